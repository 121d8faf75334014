#!/usr/bin/env bash
# run.sh — csreg's GPU checks, run from the folder `make gpu-bundle` made
# (build/gpu), on a machine with an NVIDIA GPU and the CUDA libraries:
# the CPU/CUDA parity suite (also with CSREG_CUDA_SYNC=1), the device
# errors, one epoch of an mlp and a cnn on cpu and on cuda (accuracy and
# time of each) beside PyTorch's, the cost of watching a run (bench_nn
# watch cuda), `sweep device=cuda` against the CPU trial by trial
# (test_sweep_gpu), and fig1a at paper size on the GPU and on the CPU.
# About four minutes on an H100 (fig1a on the CPU's cores is most of it).
# run.sh [DIR]: the fig1a CSVs go to DIR (default: here).
# Exit status 1 when a check failed.
set -u
outdir=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
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
for m in "mlp" "cnn limit=4000"; do
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
  for m in "mlp 0" "cnn 4000"; do set -- $m
    for dev in cuda cpu; do timeout 120 python3 torch_epoch.py "$D" "$1" $dev "$2" || echo "torch $m $dev failed"; done
  done
else
  echo "PyTorch not installed here"
fi

echo "== the cost of watching a run, on cuda (bench_nn watch)"
CSREG_FASHION_MNIST="$D" ./bench_nn watch cuda || bad "bench_nn watch cuda"

echo "== sweep device=cuda against the CPU, trial by trial (test_sweep_gpu: fig1a's sizes, 200 trials at 6 gammas)"
CSREG_GPU_SWEEP_TRIALS=200 ./test_sweep_gpu 2>&1 | grep -v '^\[ RUN\|^\[       OK' || bad "test_sweep_gpu"

echo "== fig1a at paper size (31 gammas x 1000 trials; bin with up to 10 starts, and linf): the GPU, then all $(nproc) CPU cores"
TIMEFORMAT="%R s"
for dev in cuda cpu; do
  echo -n "fig1a device=$dev: "
  { time timeout 280 ./csreg -e "seed 1" -e "sweep kind=bin methods=bin,linf N=100 gamma=0.3:0.02:0.9 trials=1000 restarts=10 stop=oracle device=$dev out=$outdir/fig1a-$dev.csv" >"$outdir/fig1a-$dev.log" 2>&1; } 2>&1 || bad "fig1a device=$dev: $(tail -2 "$outdir/fig1a-$dev.log")"
done
if [ -s "$outdir/fig1a-cuda.csv" ] && [ -s "$outdir/fig1a-cpu.csv" ]; then
  echo "success per gamma (cpu | cuda), and mean iterations:"
  paste -d, "$outdir/fig1a-cpu.csv" "$outdir/fig1a-cuda.csv" | awk -F, 'NR > 1 && $1 != "" {
    printf "  %-4s gamma=%.2f  %.3f | %.3f   iters %9.1f | %9.1f\n", $1, $5, $8, $21, $10, $23
    d = $8 - $21; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "largest difference of a success rate: %.3f\n", m }'
fi

echo
[ $fail -eq 0 ] && echo "run.sh: all GPU checks passed" || echo "run.sh: some GPU checks FAILED"
exit $fail
