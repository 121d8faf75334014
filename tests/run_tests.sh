#!/usr/bin/env bash
# Runs every cmocka suite of each build directory given (build/rel build/asan)
# and ends with one summary line: "tests: N passed, M failed".
set -u
passed=0; failed=0; failed_suites=()
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for dir in "$@"; do
  variant=$(basename "$dir")
  for t in "$dir"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *.o|*.d) continue;; esac
    name="$variant/$(basename "$t")"
    log=$(mktemp)
    # Suites that run the program itself find it here.
    CSREG_BIN="$dir/csreg" "$t" >"$log" 2>&1
    rc=$?
    p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | head -1)
    f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | head -1)
    p=${p:-0}; f=${f:-0}
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed or sanitizer abort
    passed=$((passed + p)); failed=$((failed + f))
    if [ $rc -ne 0 ]; then
      failed_suites+=("$name")
      echo "---- $name FAILED (exit $rc)"; cat "$log"
    else
      echo "ok   $name: $p passed$(grep -oE '\[  SKIPPED \] [0-9]+' "$log" | head -1 | sed 's/.*] / skipped /')"
    fi
    rm -f "$log"
  done
done
echo
echo "tests: $passed passed, $failed failed"
[ ${#failed_suites[@]} -eq 0 ] || { echo "failed suites: ${failed_suites[*]}"; exit 1; }
[ $passed -gt 0 ] || { echo "no test ran"; exit 1; }
