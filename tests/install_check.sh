#!/usr/bin/env bash
# install_check.sh — `make install` as a user meets it (issue 34): install
# into a temporary DESTDIR, then check the tree, the exported symbols, the
# examples built with pkg-config against the installed tree (C and C++),
# the man page and the completion, the installed program finding its data
# away from the source tree, the Python package, and `make uninstall`.
# Prints cmocka's summary lines so tests/run_tests.sh counts them.
set -u
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dest=$root/dest prefix=/usr
passed=0 failed=0
ok() { echo "[       OK ] install: $1"; passed=$((passed + 1)); }
bad() { echo "[  FAILED  ] install: $1: $2"; failed=$((failed + 1)); }
finish() {
  [ "$failed" -eq 0 ] && echo "[  PASSED  ] $passed test(s)." || echo "[  FAILED  ] $failed test(s)."
  exit $((failed > 0))
}

# BUILD_ROOT: the build folders to install from (make test's; default build)
broot=${BUILD_ROOT:-build}
if ! make --no-print-directory -s install BUILD_ROOT="$broot" DESTDIR="$dest" PREFIX=$prefix \
     >"$root/install.log" 2>&1; then
  bad make-install "$(tail -5 "$root/install.log")"; finish
fi
top=$dest$prefix

# 1. the tree
missing=""
for f in bin/csreg lib/libcsreg.so.0.1.0 lib/libcsreg.so.0 lib/libcsreg.so lib/libcsreg.a \
         include/csreg.h lib/pkgconfig/csreg.pc share/man/man1/csreg.1 \
         share/bash-completion/completions/csreg share/csreg/sessions/tour.csr \
         share/csreg/sessions/data/gset/G11.txt lib/python3/dist-packages/csreg/__init__.py; do
  [ -e "$top/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "tree ($(find "$dest" -type f | wc -l) files)" || bad tree "missing:$missing"
soname=$(objdump -p "$top/lib/libcsreg.so.0.1.0" | awk '/SONAME/ {print $2}')
[ "$soname" = libcsreg.so.0 ] && ok "soname $soname" || bad soname "'$soname'"

# 2. the shared library exports exactly the functions of csreg.h
want=$(grep -E '^CSREG_API ' include/csreg.h | grep -oE '[a-z_0-9]+\(' | tr -d '(' | sort)
have=$(nm -D --defined-only "$top/lib/libcsreg.so.0.1.0" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
if [ "$want" = "$have" ]; then ok "exports: the $(echo "$have" | wc -l) functions of csreg.h"
else bad exports "$(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi

# 3. the examples, built against the installed tree with pkg-config, and C++
export PKG_CONFIG_PATH=$top/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
export LD_LIBRARY_PATH=$top/lib
flags=$(pkg-config --cflags --libs csreg) || bad pkg-config "csreg.pc not found"
for e in eval_reg recover sweep; do
  if ! cc -std=c11 -Wall -Wextra -Werror examples/$e.c $flags -o "$root/$e" 2>"$root/cc.log"; then
    bad "example $e" "$(head -3 "$root/cc.log")"; continue
  fi
  (cd "$root" && ./$e >"$root/$e.out" 2>&1) && ok "example $e: $(head -1 "$root/$e.out" | cut -c1-60)" ||
    bad "example $e" "$(tail -2 "$root/$e.out")"
done
grep -q '^value: 98$' "$root/eval_reg.out" && grep -q '^grad: -44 -16 156$' "$root/eval_reg.out" &&
  ok "eval_reg: bin at 1,2,3 is 98, gradient -44 -16 156" || bad eval_reg "$(cat "$root/eval_reg.out")"
grep -q '^bin,bin,20,' "$root/sweep.csv" && ok "sweep wrote its CSV" || bad sweep "no sweep.csv rows"
printf '#include <csreg.h>\n#include <cstdio>\nint main() { cs_reg *r; double v, g[2], x[2] = {1, -1};\n'\
'  if (cs_reg_open(&r, "bin", 1) || cs_reg_value_grad(r, x, 2, &v, g)) return 1;\n'\
'  std::printf("%%g\\n", v); cs_reg_close(r); return v != 0; }\n' >"$root/cxx.cc"
if g++ -Wall -Wextra -Werror "$root/cxx.cc" $flags -o "$root/cxx" 2>"$root/cxx.log" && "$root/cxx" >/dev/null; then
  ok "C++ includes csreg.h (extern \"C\") and links"
else bad c++ "$(head -3 "$root/cxx.log")"; fi
if cc -std=c11 examples/eval_reg.c -I"$top/include" "$top/lib/libcsreg.a" \
     $(pkg-config --libs --static csreg | sed 's/-lcsreg//') -o "$root/eval_static" 2>"$root/st.log" &&
   "$root/eval_static" | grep -q '^value: 98$'; then ok "static libcsreg.a links"
else bad static "$(head -3 "$root/st.log")"; fi

# 4. man page and completion, generated from the command table
man1=$top/share/man/man1/csreg.1
names=$("$top/bin/csreg" --json -e help | /usr/bin/python3 -c '
import json, re, sys
text = json.loads(sys.stdin.read())["text"]
print("\n".join(sorted(set(re.findall(r"^  ([a-z]+)\b", text, re.M)))))')
absent=$(for c in $names; do grep -q "^\.B $c\b" "$man1" || echo "$c"; done)
head -1 "$man1" | grep -q '^\.TH CSREG 1' && [ -z "$absent" ] && ok "man page names every command ($(echo $names | wc -w))" ||
  bad man "commands not in csreg.1: $absent"
comp=$top/share/bash-completion/completions/csreg
if bash -n "$comp" && bash -c "source '$comp' && complete -p csreg" >/dev/null 2>&1 &&
   grep -q "sweep" "$comp"; then ok "bash completion"; else bad completion "does not load"; fi

# 5. the installed program away from the source tree finds its data
out=$(cd "$root" && "$top/bin/csreg" -e 'maxcut graph=G11 trials=1 maxit=20' 2>&1)
echo "$out" | grep -q 'G11' && ok "installed csreg finds the G-set (maxcut graph=G11)" ||
  bad datadir "$out"
out=$(cd "$root" && CSREG_DATADIR=$root/nowhere "$top/bin/csreg" -e 'maxcut graph=G12 trials=1 maxit=5' 2>&1)
echo "$out" | grep -q 'G12' && ok "CSREG_DATADIR falls back to the installed data" || bad datadir-env "$out"

# 6. the Python package from the installed tree
out=$(cd "$root" && PYTHONPATH=$top/lib/python3/dist-packages /usr/bin/python3 -c \
      'import csreg; v, g = csreg.Reg("bin").value_grad([1, 2, 3]); print(v, list(g))' 2>&1)
[ "$out" = "98.0 [-44.0, -16.0, 156.0]" ] && ok "python: import csreg from the installed tree" ||
  bad python "$out"

# 7. uninstall leaves nothing
make --no-print-directory -s uninstall BUILD_ROOT="$broot" DESTDIR="$dest" PREFIX=$prefix >/dev/null 2>&1
left=$(find "$dest" -type f -o -type l | head -3)
[ -z "$left" ] && ok "uninstall removes every file" || bad uninstall "left: $left"
finish
