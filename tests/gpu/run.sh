#!/usr/bin/env bash
# run.sh — csreg's GPU checks, run from the folder `make gpu-bundle` made
# (build/gpu), on a machine with an NVIDIA GPU and the CUDA libraries:
# the CPU/CUDA parity suite (also with CSREG_CUDA_SYNC=1), the device
# errors, one epoch of an mlp and a cnn on cpu and on cuda (accuracy and
# time of each), and the cost of watching a run (bench_nn watch cuda).
# About a minute on an H100. Exit status 1 when a check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
D="$here/data"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
num() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2; }

echo "== the machine"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
ldd ./csreg | grep -Ei 'libcuda|libcudart|libcublas' && bad "./csreg links a CUDA library"
ldd ./libcsreg_cuda.so | grep 'not found' && bad "the CUDA module misses a library"

echo "== parity: test_nn_device"
./test_nn_device 2>&1 | grep -v '^\[ RUN\|^\[       OK' || bad "test_nn_device"
./test_nn_device 2>&1 | grep -q 'SKIPPED \] test_parity' && bad "parity skipped: no GPU answered"
echo "== parity again with CSREG_CUDA_SYNC=1 (synchronize and check after every op)"
log=$(CSREG_CUDA_SYNC=1 ./test_nn_device 2>&1) || bad "test_nn_device with CSREG_CUDA_SYNC=1"
grep -E '^\[  (PASSED|FAILED) ' <<<"$log"

echo "== device errors"
out=$(CSREG_CUDA_DEVICE=99 ./csreg -e "train model=mlp epochs=1 limit=256 device=cuda data=$D" 2>&1)
echo "CSREG_CUDA_DEVICE=99: $out"
grep -q "CSREG_CUDA_DEVICE=99 is out of range" <<<"$out" || bad "CSREG_CUDA_DEVICE=99 not refused clearly"
out=$(CSREG_CUDA_MODULE=/nonexistent.so ./csreg --json -e "train model=mlp epochs=1 limit=256 device=auto data=$D" 2>&1)
grep -o '"device_reason":"[^"]*"' <<<"$out" || bad "no device_reason without the module"
out=$(./csreg --json -e "train model=mlp epochs=1 limit=256 device=auto data=$D" 2>&1)
grep -o '"device_reason":"[^"]*"' <<<"$out"
grep -q '"device":"cuda"' <<<"$out" || bad "device=auto did not pick cuda"

echo "== one epoch on cpu and cuda (the bundle's training images; test accuracy on its test images)"
printf '%-5s %-10s %8s %9s %9s %10s\n' model dev train_acc test_acc seconds images/s
for m in "mlp" "cnn limit=6000"; do
  for dev in cpu cuda; do
    out=$(./csreg --json --seed 1 -e "train model=$m epochs=1 device=$dev data=$D" -e "evaluate data=$D" 2>&1)
    tr=$(grep '"cmd":"train"' <<<"$out")
    ev=$(grep '"cmd":"evaluate"' <<<"$out")
    if [ -z "$tr" ] || [ -z "$ev" ] || grep -q '"error"' <<<"$out"; then
      bad "train model=$m device=$dev: $out"; continue
    fi
    printf '%-5s %-10s %8.4f %9.4f %9.2f %10.0f\n' "${m%% *}" "$dev" "$(num train_accuracy <<<"$tr")" \
      "$(num accuracy <<<"$ev")" "$(num seconds <<<"$tr")" "$(num images_per_s <<<"$tr")"
  done
done

echo "== PyTorch, the same networks and images, on cuda (its second epoch) and on the CPU"
if python3 -c 'import torch' 2>/dev/null; then
  for m in "mlp 0" "cnn 6000"; do set -- $m
    for dev in cuda cpu; do timeout 120 python3 torch_epoch.py "$D" "$1" $dev "$2" || echo "torch $m $dev failed"; done
  done
else
  echo "PyTorch not installed here"
fi

echo "== the cost of watching a run, on cuda (bench_nn watch)"
CSREG_FASHION_MNIST="$D" ./bench_nn watch cuda || bad "bench_nn watch cuda"

echo
[ $fail -eq 0 ] && echo "run.sh: all GPU checks passed" || echo "run.sh: some GPU checks FAILED"
exit $fail
