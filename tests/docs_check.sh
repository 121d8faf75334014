#!/usr/bin/env bash
# docs_check.sh [CSREG] — the documentation tells the truth (no cmocka: shell
# and /usr/bin/python3 only). CSREG: the program whose tables docs/manual.md
# shows (default $CSREG_BIN, else build/rel/csreg). Checks:
#   readme     README.md has at most 200 lines and keeps the two commands at
#              the top (`make run`, and `make test`, which .ci/run runs)
#   tables     docs/gen-tables.sh --check: the generated tables are the
#              program's, and regenerating them from empty gives the file
#   links      every relative link of README.md and docs/*.md names a file
#              that exists, and a #section that file has
# Prints cmocka's summary lines, so tests/run_tests.sh can count them; exit
# status 1 when a check failed.
set -u
cd "$(dirname "$0")/.."
bin=${1:-${CSREG_BIN:-build/rel/csreg}}
passed=0 failed=0
ok() { echo "[       OK ] docs: $1"; passed=$((passed + 1)); }
bad() { echo "[  FAILED  ] docs: $1: $2"; failed=$((failed + 1)); }

# readme
n=$(wc -l <README.md)
top=$(awk '/^```/{f++; next} f==1' README.md)
if [ "$n" -gt 200 ]; then bad readme "README.md has $n lines (at most 200)"
elif ! grep -q '^make run ' <<<"$top" || ! grep -q '^make test ' <<<"$top"; then
  bad readme "README.md's first code block lost \`make run\` or \`make test\`"
elif ! grep -qx 'make test' .ci/run; then bad readme ".ci/run no longer runs \`make test\`"
else ok "readme ($n lines)"; fi

# tables
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! out=$(docs/gen-tables.sh --check "$bin" 2>&1); then
  bad tables "$out"
else
  # from empty tables, the generator writes the file as it is
  awk '/^<!-- BEGIN generated: /{print; skip=1; next} /^<!-- END generated: /{skip=0} !skip' \
    docs/manual.md >"$tmp/manual.md"
  if ! DOCS_MANUAL="$tmp/manual.md" docs/gen-tables.sh "$bin" >/dev/null ||
     ! cmp -s "$tmp/manual.md" docs/manual.md; then
    bad tables "regenerating the emptied tables does not give docs/manual.md"
  else ok tables; fi
fi

# links
if out=$(/usr/bin/python3 - README.md docs/*.md <<'PY'
import os, re, sys
def slug(h):   # GitHub's anchor of a heading
    return re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
def anchors(path):
    text = re.sub(r"```.*?```", "", open(path, encoding="utf-8").read(), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.*)$", text, re.M)}
bad = []
for f in sys.argv[1:]:
    text = re.sub(r"```.*?```", "", open(f, encoding="utf-8").read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue            # http:, mailto: ...
        path, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            bad.append("%s: %s: no such file" % (f, target))
        elif frag and dest.endswith(".md") and frag not in anchors(dest):
            bad.append("%s: %s: no such section" % (f, target))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
); then ok links; else bad links "$out"; fi

[ $passed -gt 0 ] && echo "[  PASSED  ] $passed test(s)."
[ $failed -gt 0 ] && echo "[  FAILED  ] $failed test(s)."
[ $failed -eq 0 ]
