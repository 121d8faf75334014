#!/usr/bin/env bash
# Strong scaling of csreg-mpi: one fixed sweep on 1, 2 and 4 ranks (one
# thread each), its trials/s and parallel efficiency (speedup / ranks), and
# a check that every run wrote the same CSV.
#   tests/mpi/scaling.sh [BIN] [RANKS...]      BIN: ./csreg-mpi, RANKS: 1 2 4
#   TRIALS=200 N=100 to change the sweep.
# Ranks beyond the cores are oversubscribed (--oversubscribe): they share
# cores and the efficiency drops accordingly.
set -eu
bin=${1:-./csreg-mpi}
shift || true
ranks=${*:-1 2 4}
trials=${TRIALS:-200}
n=${N:-100}
[ -x "$bin" ] || { echo "no $bin (build with MPI=1: make deps && make)"; exit 1; }
bin=$(realpath "$bin")
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmd="sweep kind=bin methods=bin N=$n gamma=0.5 trials=$trials restarts=1 threads=1 out=s.csv"
echo "sweep: $cmd"
echo "cores: $(nproc)"
printf '%6s %10s %10s %9s %11s\n' ranks seconds trials/s speedup efficiency
t1=
for k in $ranks; do
  mkdir -p "$work/$k"
  t0=$(date +%s.%N)
  (cd "$work/$k" && mpirun "${root[@]}" --oversubscribe -np "$k" "$bin" -e "$cmd" >/dev/null)
  t=$(echo "$(date +%s.%N) - $t0" | bc -l)
  [ -n "$t1" ] || t1=$t
  awk -v k="$k" -v t="$t" -v t1="$t1" -v n="$trials" -v c="$(nproc)" 'BEGIN {
    s = t1 / t; note = ""
    if (k + 0 > c + 0) note = "  (oversubscribed)"
    printf "%6d %10.2f %10.2f %9.2f %10.0f%%%s\n", k, t, n / t, s, 100 * s / k, note }'
  cmp -s "$work/$k/s.csv" "$work/$(set -- $ranks; echo "$1")/s.csv" ||
    { echo "✗ the CSV of $k ranks differs from the first run's"; exit 1; }
done
echo "✓ every run wrote the same CSV"
