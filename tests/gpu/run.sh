#!/usr/bin/env bash
# run.sh — csreg's GPU checks, run from the folder `make gpu-bundle` made
# (build/gpu), on a machine with an NVIDIA GPU and the CUDA libraries:
#  1. the CPU/CUDA parity suite (also with CSREG_CUDA_SYNC=1), cuDNN's
#     rows included when the module finds a cuDNN 9, and the device errors;
#  2. one epoch of the mlp, the cnn and resnet20 on cpu and on cuda beside
#     PyTorch's (when installed), with the csreg/PyTorch ratio on cuda; the
#     cuda epoch's profile per op (CSREG_CUDA_PROFILE, profile-MODEL.txt),
#     and the cnn's and resnet20's epoch without cuDNN and with our batch norm;
#  3. the cost of watching a run on cuda (bench_nn watch);
#  4. `sweep device=cuda` against the CPU trial by trial, kind by kind
#     (test_sweep_gpu: bin, osb, ter, 2bit and the binary variants;
#     test_sweep_gpu_matrix: eig and orth);
#  5. fig1a at paper size on the GPU (and, in the full run, on the CPU's
#     cores), and sessions/paper-all.csr with --device cuda (full run).
# It ends with a table of every step: its result and seconds.
#   run.sh [--quick] [DIR]   DIR: the CSVs and logs (default: here)
# --quick fits in 5 minutes of an H100 (smaller samples, resnet20 on 1000
# images, no CPU fig1a, no paper-all); the full run fits in 10 minutes.
# Exit status 1 when a check failed (each failure has a FAIL: line).
set -u
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
outdir=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the libraries bundle.sh gzipped, unpacked once
for z in lib*.so*.gz; do
  if [ -e "$z" ] && [ ! -e "${z%.gz}" ]; then
    gzip -dc "$z" >"${z%.gz}.tmp" && mv "${z%.gz}.tmp" "${z%.gz}"
  fi
done
D="$here/data"
fail=0
summary=()
bad() { echo "FAIL: $*"; fail=1; }
num() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
# step NAME [WHAT]: the start of a step; done_step RESULT: its line in the table
step() { name=$1; t0=$(date +%s.%N); echo; echo "== $name${2:+: $2}"; }
done_step() { summary+=("$(awk -v n="$name" -v r="$1" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%-22.22s %-50.50s %7.1f s", n, r, b - a }')"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
torch_ok=0
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && torch_ok=1

step "machine"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
ldd ./csreg | grep -Ei 'libcuda|libcudart|libcublas|libcudnn' && bad "./csreg links a CUDA library"
ldd ./libcsreg_cuda.so | grep 'not found' && bad "the CUDA module misses a library"
ldd ./libcsreg_cuda.so | grep -i cudnn && bad "the CUDA module links cuDNN (it must open it at run time)"
dev=$(./csreg --json -e "train model=mlp epochs=1 limit=256 device=auto data=$D" 2>&1 | grep '"cmd":"train"' | grep -o '"device_reason":"[^"]*"' | cut -d'"' -f4)
echo "the device and its libraries: ${dev:-?}"
done_step "${dev:-?}"

step "parity" "test_nn_device"
log=$(./test_nn_device 2>&1) || bad "test_nn_device"
grep -v '^\[ RUN\|^\[       OK' <<<"$log"
grep -q 'SKIPPED \] test_parity' <<<"$log" && bad "parity skipped: no GPU answered"
log2=$(CSREG_CUDA_SYNC=1 ./test_nn_device 2>&1) || bad "test_nn_device with CSREG_CUDA_SYNC=1"
echo "again with CSREG_CUDA_SYNC=1 (synchronize and check after every op):"
grep -E '^\[  (PASSED|FAILED) ' <<<"$log2"
done_step "$(grep -E '^\[  (PASSED|FAILED) ' <<<"$log" | head -1 | tr -s ' ')"

step "device errors"
out=$(CSREG_CUDA_DEVICE=99 ./csreg -e "train model=mlp epochs=1 limit=256 device=cuda data=$D" 2>&1)
echo "CSREG_CUDA_DEVICE=99: $out"
grep -q "CSREG_CUDA_DEVICE=99 is out of range" <<<"$out" || bad "CSREG_CUDA_DEVICE=99 not refused clearly"
out=$(CSREG_CUDA_MODULE=/nonexistent.so ./csreg --json -e "train model=mlp epochs=1 limit=256 device=auto data=$D" 2>&1)
grep -o '"device_reason":"[^"]*"' <<<"$out" || bad "no device_reason without the module"
out=$(./csreg --json -e "train model=mlp epochs=1 limit=256 device=auto data=$D" 2>&1)
grep -o '"device_reason":"[^"]*"' <<<"$out"
grep -q '"device":"cuda"' <<<"$out" || bad "device=auto did not pick cuda"
done_step "$([ $fail = 0 ] && echo ok || echo FAILED)"

# one epoch: the bundle's training images (test accuracy on its test images)
models=("mlp 0" "cnn 0" "resnet20 2000")
[ $quick = 1 ] && models=("mlp 0" "cnn 2000" "resnet20 1000")
for ml in "${models[@]}"; do set -- $ml; m=$1 lim=$2
  step "epoch $m" "limit=$lim: csreg on cpu and cuda, PyTorch on cuda"
  printf '%-9s %-11s %8s %9s %9s %10s\n' model dev train_acc test_acc seconds images/s
  declare -A secs=()
  for d in cpu cuda; do
    [ $quick = 1 ] && [ $d = cpu ] && [ $m != mlp ] && continue
    # on cuda a second epoch, timed alone: the first pays cuBLAS's and the
    # kernels' loading, as PyTorch's first epoch does (torch_epoch.py times
    # its epochs after the first)
    again=(); [ $d = cuda ] && again=(-e "train model=$m epochs=1 limit=$lim device=$d data=$D")
    out=$(./csreg --json --seed 1 -e "train model=$m epochs=1 limit=$lim device=$d data=$D" "${again[@]}" -e "evaluate data=$D" 2>&1)
    tr=$(grep '"cmd":"train"' <<<"$out" | tail -1); ev=$(grep '"cmd":"evaluate"' <<<"$out")
    [ $d = cuda ] && echo "(csreg cuda: first epoch $(grep '"cmd":"train"' <<<"$out" | head -1 | num seconds) s, the second's below; $(g=$(num graph_steps <<<"$tr"); echo "${g:-0}") of its steps as a CUDA graph$(grep -o '"graph_note":"[^"]*"' <<<"$tr" | sed 's/^/; /'))"
    if [ -z "$tr" ] || [ -z "$ev" ] || grep -q '"error"' <<<"$out"; then
      bad "train model=$m device=$d: $(tail -c 400 <<<"$out")"; continue
    fi
    secs[$d]=$(num seconds <<<"$tr")
    printf '%-9s %-11s %8.4f %9.4f %9.2f %10.0f\n' "$m" "$d" "$(num train_accuracy <<<"$tr")" \
      "$(num accuracy <<<"$ev")" "${secs[$d]}" "$(num images_per_s <<<"$tr")"
  done
  if [ -n "${secs[cuda]:-}" ]; then
    # where a cuda epoch's time goes: GPU and host ms per op (CSREG_CUDA_PROFILE)
    CSREG_CUDA_PROFILE="$outdir/profile-$m.txt" ./csreg --seed 1 -e "train model=$m epochs=1 limit=$lim device=cuda data=$D" >/dev/null 2>&1
    echo "profile of one cuda epoch (the first: loading included), its top ops ($outdir/profile-$m.txt):"
    head -16 "$outdir/profile-$m.txt" 2>/dev/null | sed 's/^/  /'
    tail -1 "$outdir/profile-$m.txt" 2>/dev/null | sed 's/^/  /'
    # the same second epoch op by op (no CUDA graph); with cuDNN off, and
    # with cuDNN's convolutions but our batch norm
    vs=(CSREG_CUDA_GRAPH=off); [ $m != mlp ] && vs+=(CSREG_CUDNN=off CSREG_CUDNN_BN=off)
    for v in "${vs[@]}"; do
      out=$(env $v ./csreg --json --seed 1 -e "train model=$m epochs=1 limit=$lim device=cuda data=$D" -e "train model=$m epochs=1 limit=$lim device=cuda data=$D" 2>&1)
      echo "csreg cuda with $v: $(grep '"cmd":"train"' <<<"$out" | tail -1 | num seconds) s (its second epoch)"
    done
  fi
  res="csreg cuda ${secs[cuda]:-?} s"
  if [ $torch_ok = 1 ]; then
    t=$(timeout 180 python3 torch_epoch.py "$D" "$m" cuda "$lim" --seconds 2>/dev/null | tail -1)
    echo "PyTorch cuda (its fastest epoch after the first): ${t:-failed} s"
    [ -n "$t" ] && [ -n "${secs[cuda]:-}" ] && res="$res / torch $t = $(ratio "${secs[cuda]}" "$t")x"
  else
    echo "PyTorch with CUDA is not installed here"
  fi
  done_step "$res"
done

step "watch cost" "watching a run on cuda (bench_nn watch)"
log=$(CSREG_FASHION_MNIST="$D" ./bench_nn watch cuda 2>&1) || bad "bench_nn watch cuda"
echo "$log"
done_step "watched/unwatched $(grep -o 'median [0-9.]*' <<<"$log" | head -1)"

trials=200; [ $quick = 1 ] && trials=40
for t in test_sweep_gpu test_sweep_gpu_matrix; do
  step "$t" "sweep device=cuda against the CPU, trial by trial ($trials trials a point)"
  if [ ! -x "./$t" ]; then bad "$t is not in the bundle"; done_step missing; continue; fi
  log=$(CSREG_GPU_SWEEP_TRIALS=$trials "./$t" 2>&1) || bad "$t"
  grep -v '^\[ RUN\|^\[       OK' <<<"$log"
  grep -q 'SKIPPED' <<<"$log" && bad "$t skipped a comparison: no GPU answered"
  done_step "$(grep -c 'trials equal to the CPU' <<<"$log") kinds compared, $(grep -E '^\[  (PASSED|FAILED) ' <<<"$log" | head -1 | tr -s ' ')"
done

devs="cuda cpu"; [ $quick = 1 ] && devs=cuda
for d in $devs; do
  step "fig1a $d" "at paper size (31 gammas x 1000 trials; bin with up to 10 starts, and linf)"
  TIMEFORMAT="%R"
  s=$( { time timeout 280 ./csreg -e "seed 1" -e "sweep kind=bin methods=bin,linf N=100 gamma=0.3:0.02:0.9 trials=1000 restarts=10 stop=oracle device=$d out=$outdir/fig1a-$d.csv" >"$outdir/fig1a-$d.log" 2>&1; } 2>&1 ) || bad "fig1a device=$d: $(tail -2 "$outdir/fig1a-$d.log")"
  echo "fig1a device=$d: $s s"
  done_step "$s s"
done
if [ -s "$outdir/fig1a-cuda.csv" ] && [ -s "$outdir/fig1a-cpu.csv" ]; then
  echo "success per gamma (cpu | cuda), and mean iterations:"
  paste -d, "$outdir/fig1a-cpu.csv" "$outdir/fig1a-cuda.csv" | awk -F, 'NR > 1 && $1 != "" && $1 !~ /^#/ {
    printf "  %-4s gamma=%.2f  %.3f | %.3f   iters %9.1f | %9.1f\n", $1, $5, $8, $21, $10, $23
    d = $8 - $21; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "largest difference of a success rate: %.3f\n", m }'
fi

if [ $quick = 0 ]; then
  step "paper-all cuda" "sessions/paper-all.csr with --device cuda (every sweep of the paper's recovery section)"
  rm -rf "$outdir/paper-all" && mkdir -p "$outdir/paper-all" && cp -r sessions "$outdir/paper-all/"
  TIMEFORMAT="%R"
  s=$( { time (cd "$outdir/paper-all" && timeout 300 "$here/csreg" --device cuda run sessions/paper-all.csr >paper-all.log 2>&1); } 2>&1 ) || bad "paper-all: $(tail -3 "$outdir/paper-all/paper-all.log")"
  echo "paper-all --device cuda: $s s (the CSVs in $outdir/paper-all/out)"
  grep -o 'device_reason: .*' "$outdir/paper-all/paper-all.log" | sort | uniq -c
  done_step "$s s, $(grep -c '^device: cpu' "$outdir/paper-all/paper-all.log") sweeps on the CPU"
fi

echo
echo "== summary ($([ $quick = 1 ] && echo quick || echo full) run)"
printf '%s\n' "${summary[@]}"
echo
[ $fail -eq 0 ] && echo "run.sh: all GPU checks passed" || echo "run.sh: some GPU checks FAILED"
exit $fail
