#!/usr/bin/env bash
# bundle.sh BUILD OUT — `make gpu-bundle`: a self-contained folder OUT
# (build/gpu) to run on a GPU machine that has the CUDA libraries but no
# package manager or network: csreg, the CUDA module, the programs that
# touch CUDA (test_nn_device, test_sweep_gpu, test_sweep_gpu_matrix, bench_nn), the
# session scripts (paper-all.csr and what it sources), the non-system shared libraries
# they need (OpenBLAS, LAPACKE, gfortran, cmocka, ...: not libc, libm,
# libpthread, ld-linux, libstdc++, libgcc_s, nor CUDA's own; the large ones
# gzipped), a subset of Fashion-MNIST (the first GPU_TRAIN_IMAGES training
# and GPU_TEST_IMAGES test images: the folder must stay under the device
# tool's 64 MiB), and run.sh.
set -euo pipefail
build=$1 out=$2
ntrain=${GPU_TRAIN_IMAGES:-4000}
ntest=${GPU_TEST_IMAGES:-2000}
data=${CSREG_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out/data"
progs=(csreg libcsreg_cuda.so tests/test_nn_device tests/test_sweep_gpu tests/test_sweep_gpu_matrix
       tests/bench_nn)
for p in "${progs[@]}"; do
  [ -e "$build/$p" ] || { echo "gpu-bundle: $build/$p missing (a CUDA build: make CUDA=1)" >&2; exit 1; }
  # without debug information: the folder travels
  objcopy --strip-debug "$build/$p" "$out/$(basename "$p")"
done
# the shared libraries they need, but the system's and CUDA's
system='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt)\.'
for p in "${progs[@]}"; do ldd "$build/$p"; done | awk '/=> \//{print $1, $3}' | sort -u |
while read -r name path; do
  if ! [[ $name =~ $system ]]; then cp -L "$path" "$out/$name"; fi
done
# the libraries of over 1 MiB gzipped (OpenBLAS alone is 35 MiB, 10
# gzipped): run.sh unpacks them beside itself on its first run
find "$out" -maxdepth 1 -name 'lib*.so*' ! -name libcsreg_cuda.so -size +1M -exec gzip -6 {} +
# Fashion-MNIST: the first ntrain training and ntest test images (the IDX
# header's count rewritten)
be32() { printf "\\$(printf %03o $(($1 >> 24 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 & 255)))"; }
subset() {   # file header-bytes item-bytes n
  local f=$1 hdr=$2 item=$3 n=$4
  { zcat "$data/$f.gz" | head -c 4 || true
    be32 "$n"
    zcat "$data/$f.gz" | tail -c +9 | head -c $((hdr - 8 + n * item)) || true
  } | gzip -6 >"$out/data/$f.gz"
}
[ -r "$data/train-images-idx3-ubyte.gz" ] || { echo "gpu-bundle: no Fashion-MNIST in $data (make deps)" >&2; exit 1; }
subset train-images-idx3-ubyte 16 784 "$ntrain"
subset train-labels-idx1-ubyte 8 1 "$ntrain"
subset t10k-images-idx3-ubyte 16 784 "$ntest"
subset t10k-labels-idx1-ubyte 8 1 "$ntest"
cp "$src/run.sh" "$src/../torch_epoch.py" "$out/"
mkdir -p "$out/sessions" && cp "$src/../../sessions/"*.csr "$out/sessions/"
chmod +x "$out/run.sh"
size=$(( $(du -sb "$out" | cut -f1) / 1048576 ))
echo "gpu-bundle: $out ($size MiB; $ntrain training, $ntest test images): run $out/run.sh on the GPU machine"
ls -la "$out" | awk 'NR>1{printf "  %10d %s\n", $5, $9}'
# the device tool carries 64 MiB with the working tree (about 2 MiB)
[ "$size" -le 60 ] || { echo "gpu-bundle: $size MiB: over 60, too much for the device tool (64 MiB with the working tree); lower GPU_TRAIN_IMAGES" >&2; exit 1; }
