#!/bin/sh
# run.sh BUILD_DIR — the Python package's tests (tests/python) against
# BUILD_DIR/libcsreg.so.0 and BUILD_DIR/csreg; prints pytest's summary line
# (everything on failure). PYTHON overrides Debian's /usr/bin/python3.
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd) || exit 2
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import pytest, numpy' 2>/dev/null; then
    echo "python tests: $py lacks pytest or numpy (make deps: python3-pytest python3-numpy python3-torch)" >&2
    exit 1
fi
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
cd "$root" && PYTHONPATH="$root/python" CSREG_LIB="$build/libcsreg.so.0" CSREG_BIN="$build/csreg" \
    PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -p no:cacheprovider tests/python >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then cat "$log"; else tail -n 1 "$log"; fi
# cmocka's summary line too, so tests/run_tests.sh counts these tests
n=$(tail -n 1 "$log" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
[ $rc -eq 0 ] && echo "[  PASSED  ] ${n:-0} test(s)." || echo "[  FAILED  ] 1 test(s)."
exit $rc
