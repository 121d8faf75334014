#!/bin/sh
# call_cycles.sh OBJDIR — the circles of calls between the object files of
# one folder (a.o calls a function b.o defines, and b.o, directly or through
# others of the folder, calls back into a.o). Files should only call down:
# prints every such cycle, with the symbols of each edge, and exits 1 if
# there is any. The edges come from the objects themselves (nm: what each
# defines, what each leaves undefined), so they are exact.
# An object whose source was deleted lingers in a build folder and still
# counts: check a fresh build. Usage: tests/tools/call_cycles.sh build/rel
set -eu
dir=${1:?usage: call_cycles.sh OBJDIR}
[ -d "$dir" ] || { echo "call_cycles.sh: no folder $dir" >&2; exit 2; }
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT
# one line per symbol: D|U <object> <symbol>
find "$dir" -name '*.o' | LC_ALL=C sort | while read -r o; do
    nm -g --defined-only "$o" 2>/dev/null | awk -v o="$o" 'NF >= 3 { print "D", o, $3 }'
    nm -u "$o" 2>/dev/null | awk -v o="$o" 'NF >= 2 { print "U", o, $2 }'
done >"$tab"
awk '
function folder(p) { sub(/\/[^\/]*$/, "", p); return p }
function base(p) { sub(/^.*\//, "", p); return p }
$1 == "D" { def[$3] = def[$3] SUBSEP $2; next }
$1 == "U" { use[++nu] = $2; usym[nu] = $3 }
END {
    # edges between objects of one folder, with the symbols that make them
    for (i = 1; i <= nu; i++) {
        a = use[i]; s = usym[i]
        if (!(s in def)) continue
        k = split(def[s], ds, SUBSEP)
        for (j = 2; j <= k; j++) {
            b = ds[j]
            if (b == a || folder(b) != folder(a)) continue
            e = a SUBSEP b
            if (!(e in edge)) { edge[e] = s; out[a] = out[a] SUBSEP b }
            else if (index(" " edge[e] " ", " " s " ") == 0 && length(edge[e]) < 200)
                edge[e] = edge[e] " " s
            node[a] = 1; node[b] = 1
        }
    }
    # every elementary cycle once: from its smallest object, through larger ones
    n = 0
    for (v in node) names[++n] = v
    for (i = 2; i <= n; i++) {            # insertion sort: a stable order
        t = names[i]
        for (j = i - 1; j >= 1 && names[j] > t; j--) names[j + 1] = names[j]
        names[j + 1] = t
    }
    for (i = 1; i <= n; i++) rank[names[i]] = i
    found = 0
    for (i = 1; i <= n; i++) {
        start = names[i]; depth = 1; path[1] = start; onp[start] = 1
        walk(start)
        delete onp
    }
    printf "%d cycle(s)\n", found
    exit found > 0
}
function walk(v,    k, ws, j, w, m, line) {
    k = split(out[v], ws, SUBSEP)
    for (j = 2; j <= k; j++) {
        w = ws[j]
        if (w == start) {
            found++
            line = "cycle in " folder(start) ":"
            for (m = 1; m <= depth; m++)
                line = line "\n  " base(path[m]) " -> " base(m < depth ? path[m + 1] : start) \
                       "  (" edge[path[m] SUBSEP (m < depth ? path[m + 1] : start)] ")"
            print line
        } else if (rank[w] > rank[start] && !(w in onp)) {
            path[++depth] = w; onp[w] = 1
            walk(w)
            delete onp[w]; depth--
        }
    }
}
' "$tab"
