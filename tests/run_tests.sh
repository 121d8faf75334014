#!/usr/bin/env bash
# Runs the cmocka suites of each build directory given (build/rel build/asan)
# in parallel and ends with one summary line: "tests: N passed, M failed"
# (CI parses it; the exit status is 1 when a suite failed or none ran).
#
#   tests/run_tests.sh [-j N] [--unit] [--only NAME]... DIR...
#
# -j N (or JOBS=N): suites at once, default the number of cores.
# --unit: only the unit suites, not those tagged e2e in tests/suites.txt
# (`make check`), with CSREG_TEST_UNIT=1 so that a unit suite skips its
# long end-to-end part. --only NAME: that suite alone (repeatable; test_
# optional).
# The suites tagged slow in tests/suites.txt start first, in the file's
# order, so that no long suite starts last and runs alone; one tagged
# rel-only (asan-only) runs in the build folder named rel (asan) only. A
# passing suite prints one line with its seconds, a failing one its whole log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
unit=0; only=()
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2;;
    -j*) jobs=${1#-j}; shift;;
    --unit) unit=1; export CSREG_TEST_UNIT=1; shift;;
    --only) only+=("test_${2#test_}"); shift 2;;
    -h|--help) sed -n '2,16p' "$0"; exit 0;;
    -*) echo "run_tests.sh: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
done
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "run_tests.sh: -j needs a number >= 1" >&2; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# tags of a suite from tests/suites.txt ("NAME TAG..." lines, # comments)
declare -A tags=()
slow_order=()
while read -r name rest; do
  case "$name" in ''|\#*) continue;; esac
  read -ra words <<<"${rest%%#*}"   # the tags, without the comment
  tags[$name]=" ${words[*]} "
  case "${tags[$name]}" in *" slow "*) slow_order+=("$name");; esac
done <"$here/suites.txt"
has_tag() { case "${tags[$1]:- }" in *" $2 "*) return 0;; esac; return 1; }

# the queue: slow suites first (file order, each build dir), then the rest
queue=(); skipped=0
want() { # dir suite
  local dir=$1 s=$2
  [ -x "$dir/tests/$s" ] || return 1
  if [ ${#only[@]} -gt 0 ]; then
    local o; for o in "${only[@]}"; do [ "$o" = "$s" ] && return 0; done; return 1
  fi
  if [ $unit = 1 ] && has_tag "$s" e2e; then return 1; fi
  local v tag
  v=$(basename "$dir")
  for tag in ${tags[$s]:-}; do   # rel-only, asan-only: that build only
    case "$tag" in *-only) [ "$tag" = "$v-only" ] || { skipped=$((skipped + 1)); return 1; };; esac
  done
  return 0
}
for s in "${slow_order[@]}"; do
  for dir in "$@"; do want "$dir" "$s" && queue+=("$dir/tests/$s"); done
done
for dir in "$@"; do
  for t in "$dir"/tests/test_*; do
    case "$t" in *.o|*.d) continue;; esac
    s=$(basename "$t")
    has_tag "$s" slow && [ ${#only[@]} -eq 0 ] && continue
    want "$dir" "$s" && queue+=("$t")
  done
done
# a slow suite named by --only was queued above; keep each once
if [ ${#only[@]} -gt 0 ]; then
  declare -A seen=(); q=()
  for t in "${queue[@]}"; do [ -n "${seen[$t]:-}" ] || { seen[$t]=1; q+=("$t"); }; done
  queue=("${q[@]}")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# one suite: its log and "rc seconds" in $tmp/N.{log,res}
run_one() {
  local t=$1 n=$2 dir start end
  dir=$(dirname "$(dirname "$t")")
  start=$EPOCHREALTIME
  # Suites that run the program itself find it here.
  CSREG_BIN="$dir/csreg" "$t" >"$tmp/$n.log" 2>&1
  local rc=$?
  end=$EPOCHREALTIME
  echo "$rc $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" >"$tmp/$n.res"
}

passed=0; failed=0; failed_suites=(); times=()
report() { # n
  local n=$1 t=${queue[$1]} rc secs name p f
  rc=1; secs='?'
  [ -f "$tmp/$n.res" ] && read -r rc secs <"$tmp/$n.res"
  name="$(basename "$(dirname "$(dirname "$t")")")/$(basename "$t")"
  p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$tmp/$n.log" | grep -oE '[0-9]+' | head -1)
  f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$tmp/$n.log" | grep -oE '[0-9]+' | head -1)
  p=${p:-0}; f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed or sanitizer abort
  passed=$((passed + p)); failed=$((failed + f))
  times+=("$secs $name")
  if [ "$rc" -ne 0 ]; then
    failed_suites+=("$name")
    echo "---- $name FAILED (exit $rc, $secs s)"; cat "$tmp/$n.log"; echo "---- end of $name"
  else
    echo "ok   $name: $p passed$(grep -oE '\[  SKIPPED \] [0-9]+' "$tmp/$n.log" | head -1 |
      sed 's/.*] / skipped /') ($secs s)"
  fi
}

start_all=$EPOCHREALTIME
declare -A running=()   # pid -> queue index
next=0
while [ $next -lt ${#queue[@]} ] || [ ${#running[@]} -gt 0 ]; do
  while [ $next -lt ${#queue[@]} ] && [ ${#running[@]} -lt "$jobs" ]; do
    # (the shell's "Segmentation fault" line about a crashed suite: into its log)
    run_one "${queue[$next]}" "$next" 2>>"$tmp/$next.log" &
    running[$!]=$next
    next=$((next + 1))
  done
  done_pid=
  wait -n -p done_pid
  [ -n "$done_pid" ] || continue
  report "${running[$done_pid]}"
  unset "running[$done_pid]"
done

echo
wall=$(awk -v a="$start_all" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
[ ${#times[@]} -eq 0 ] || echo "slowest: $(printf '%s\n' "${times[@]}" | sort -rn | head -5 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
echo "${#queue[@]} suites in ${wall} s with -j $jobs$([ $skipped -gt 0 ] && echo " ($skipped left out: tagged for another build in tests/suites.txt)")"
# the summary line last: CI reads it
[ ${#failed_suites[@]} -eq 0 ] || echo "failed suites: ${failed_suites[*]}"
[ $passed -gt 0 ] || echo "no test ran"
echo "tests: $passed passed, $failed failed"
[ ${#failed_suites[@]} -eq 0 ] && [ $passed -gt 0 ]
