/* test_tour.c — the guided tour (sessions/tour.csr, `csreg --tour`), as a
 * student meets it:
 * - batch: it runs to its end, prints every chapter in order, and a replay
 *   of its saved journal writes the same output files byte for byte;
 * - the script keeps its own rules: every stop's narration is followed by
 *   a pause, each chapter ends with an invitation (pause try=) and sets up
 *   its own state, the narration asks for no key that moves the tour, and
 *   no number in a narration is typed in (each is a {value});
 * - what each narration claims is true of the state it was shown in: the
 *   points it names are on the zero set, feasible, the smallest in
 *   max-norm..., checked against commands run here (chapters are self-
 *   contained, so a chapter's commands rebuild its state);
 * - in the workbench (tmux, 120×40 and 80×24) a walk through every stop
 *   reads the screen at the stop: the whole narration and the legend of
 *   what it talks about are both visible, the panels show the numbers the
 *   narration says; s and space do not move the tour, n puts back a state
 *   the student changed, N goes back a chapter, an invitation is noticed;
 *   the tour's compute waits are measured (printed; under 30 s is the aim).
 * Captures of each stop go to $CSREG_TOUR_CAPS when it is set. Under the
 * sanitizers (10× slower) the batch leaves out the long commands and the
 * narrations that name their results, and the walks are skipped; without
 * tmux too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cs_solve_view.h"
#include "interp_util.h"
#include "tmux_util.h"

#include "sanitized.h"

enum { MAX_STOPS = 64, MAX_SAYS = 64 };

/* A stop (pause): its chapter, the narration shown (as the batch run
 * printed it), and whether it is an invitation (try=). */
typedef struct stop {
    int chapter;
    int say;          /* index into said[] */
    char try_[64];
} stop;

static char chapters[16][160];
static int nchapters;
static stop stops[MAX_STOPS];
static int nstops;
static char said[MAX_SAYS][2048];   /* every narration of the batch run, in order */
static int nsaid;
static char top[1024], script[1100], batch_dir[64];
static char *batch_json;            /* the batch run's --json output */
static char screen[65536];

static const char *bin(char *buf, size_t len)
{
    const char *b = getenv("CSREG_BIN");
    b = b ? b : "./csreg";
    if (b[0] == '/')
        snprintf(buf, len, "%s", b);
    else
        snprintf(buf, len, "%s/%s", top, b);
    return buf;
}

/* The text between the first pair of quotes of a line. */
static void quoted(const char *line, char *out, size_t len)
{
    const char *a = strchr(line, '"');
    const char *b = a ? strchr(a + 1, '"') : NULL;
    size_t n = a && b ? (size_t)(b - a - 1) : 0;
    if (n >= len)
        n = len - 1;
    memcpy(out, a ? a + 1 : "", n);
    out[n] = '\0';
}

/* csreg ARGS in dir, stdout into dir/OUT; the exit status. */
static int run_in(const char *dir, const char *args, const char *out)
{
    char cmd[8192], b[1200];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >%s 2>err.txt", dir, bin(b, sizeof b), args, out);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A temporary folder of this test and everything in it. */
static void rm_tree(const char *dir)
{
    char cmd[600];
    if (strncmp(dir, "/tmp/cs_tour", 12) != 0)
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Under the sanitizers, the tour without its long work (the trainings and
 * what uses their models, the sweeps, the quick script it runs: minutes
 * there, and each has its own suite under ASan) and without the
 * narrations that name their results, into dir/tour.csr. */
static const char *shrunk_tour(const char *dir, char *out, size_t len)
{
    static const char *heavy[] = {"train ", "evaluate ", "quantize ", "save model ",
                                  "load model ", "sweep ", "run ", "nnreport", NULL};
    snprintf(out, len, "%s/tour.csr", dir);
    FILE *in = fopen(script, "r"), *o = fopen(out, "w");
    assert_non_null(in);
    assert_non_null(o);
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        int drop = strstr(line, "{acc@") || strstr(line, "{success@");
        for (size_t i = 0; heavy[i]; i++)
            drop |= !strncmp(line, heavy[i], strlen(heavy[i]));
        if (!drop)
            fputs(line, o);
    }
    fclose(in);
    assert_int_equal(fclose(o), 0);
    return out;
}

/* The JSON string value of "key" in a line, unescaped (\" \\ \n \uXXXX as
 * UTF-8). */
static void jstr(const char *json, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    size_t n = 0;
    out[0] = '\0';
    if (!p)
        return;
    for (p += strlen(pat); *p && *p != '"' && n + 4 < len; p++) {
        if (*p != '\\') {
            out[n++] = *p;
            continue;
        }
        p++;
        if (*p == 'n')
            out[n++] = '\n';
        else if (*p == 'u') {
            unsigned c = (unsigned)strtoul((char[5]){p[1], p[2], p[3], p[4], 0}, NULL, 16);
            p += 4;
            if (c < 0x80) {
                out[n++] = (char)c;
            } else if (c < 0x800) {
                out[n++] = (char)(0xc0 | (c >> 6));
                out[n++] = (char)(0x80 | (c & 0x3f));
            } else {
                out[n++] = (char)(0xe0 | (c >> 12));
                out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (c & 0x3f));
            }
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    while (n && out[n - 1] == '\n')
        out[--n] = '\0';
}

/* The tour's chapters and stops, and the narrations of a batch run. */
static int setup(void **state)
{
    (void)state;
    if (!getcwd(top, sizeof top))
        return -1;
    snprintf(script, sizeof script, "%s/sessions/tour.csr", top);
    snprintf(batch_dir, sizeof batch_dir, "/tmp/cs_tourb_XXXXXX");
    if (!mkdtemp(batch_dir))
        return -1;
    /* the stops of the script that runs (under the sanitizers the shrunk
     * one, whose narrations are a part of the tour's) */
    char small[600];
    const char *ran = SANITIZED ? shrunk_tour(batch_dir, small, sizeof small) : script;
    FILE *f = fopen(ran, "r");
    if (!f)
        return -1;
    char line[4096];
    int says = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "chapter ", 8))
            quoted(line, chapters[nchapters++], sizeof chapters[0]);
        else if (!strncmp(line, "say ", 4))
            says++;
        else if (!strncmp(line, "pause", 5) && nstops < MAX_STOPS) {
            stop *s = &stops[nstops++];
            s->chapter = nchapters;
            s->say = says - 1;
            const char *t = strstr(line, "try=");
            snprintf(s->try_, sizeof s->try_, "%.*s", t ? (int)strcspn(t + 4, " \n") : 0,
                     t ? t + 4 : "");
        }
    }
    fclose(f);
    /* the narrations as shown: from a batch run */
    char args[1400];
    snprintf(args, sizeof args, "--json -e 'run %s' -e 'save session tour-journal.csr'", ran);
    if (run_in(batch_dir, args, "out.json") != 0)
        return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/out.json", batch_dir);
    batch_json = slurp(path, NULL);
    for (char *l = batch_json; l && *l && nsaid < MAX_SAYS; l = strchr(l, '\n') + 1) {
        if (!strncmp(l, "{\"cmd\":\"say\"", 12))
            jstr(l, "text", said[nsaid++], sizeof said[0]);
        if (!strchr(l, '\n'))
            break;
    }
    return nchapters >= 5 && nstops >= nchapters && (SANITIZED || nsaid >= nstops) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(batch_json);
    rm_tree(batch_dir);
    return 0;
}

/* The files under dir/out/tour compared with other/out/tour, byte for byte. */
static void same_outputs(const char *dir, const char *other)
{
    char d[512];
    snprintf(d, sizeof d, "%s/out/tour", dir);
    DIR *dd = opendir(d);
    assert_non_null(dd);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", d, e->d_name);
        snprintf(b, sizeof b, "%s/out/tour/%s", other, e->d_name);
        size_t la, lb;
        char *ta = slurp(a, &la), *tb = slurp(b, &lb);
        if (!ta || !tb || la != lb || memcmp(ta, tb, la))
            fail_msg("%s differs between the tour and its replay", e->d_name);
        free(ta);
        free(tb);
        files++;
    }
    closedir(dd);
    assert_true(files >= 5);
}

static void test_batch_and_replay(void **state)
{
    (void)state;
    assert_non_null(batch_json);
    const char *at = batch_json;
    for (int k = 0; k < nchapters; k++) {
        char head[300];
        snprintf(head, sizeof head, "\"chapter\":%d,\"name\":", k + 1);
        const char *p = strstr(at, head);
        if (!p)
            fail_msg("chapter %d (%s) is not run in order", k + 1, chapters[k]);
        at = p + 1;
    }
    /* the saved journal replays to the same files */
    char two[] = "/tmp/cs_tour2_XXXXXX", args[700];
    assert_non_null(mkdtemp(two));
    snprintf(args, sizeof args, "run %s/tour-journal.csr", batch_dir);
    assert_int_equal(run_in(two, args, "out.txt"), 0);
    same_outputs(batch_dir, two);
    rm_tree(two);
}

/* ---- the script's own rules -------------------------------------------------------- */

static void test_script_rules(void **state)
{
    (void)state;
    FILE *f = fopen(script, "r");
    assert_non_null(f);
    char line[4096], prev[4096] = "";
    int chapter = 0, stops_in = 0, sets_seed = 0, ended_try = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!strncmp(line, "chapter ", 8)) {
            if (chapter >= 1 && !ended_try)
                fail_msg("chapter %d does not end with an invitation (pause try=)", chapter);
            chapter++;
            stops_in = sets_seed = ended_try = 0;
        }
        if (!strncmp(line, "seed ", 5) || !strncmp(line, "reg define", 10))
            sets_seed = 1;
        /* the first command of a chapter that draws sets the chapter's
         * state up itself (the player goes back to a chapter's start) */
        if (chapter && !sets_seed && (!strncmp(line, "problem ", 8) || !strncmp(line, "step", 4) ||
                                      !strncmp(line, "solve", 5) || !strncmp(line, "train", 5)))
            fail_msg("chapter %d runs '%.30s' before it sets its seed", chapter, line);
        /* a narration stays until a pause: none is replaced at once */
        if (!strncmp(line, "say ", 4) && !strncmp(prev, "say ", 4))
            fail_msg("chapter %d: '%.40s' replaces the narration before it without a pause",
                     chapter, line);
        if (!strncmp(line, "pause", 5)) {
            stops_in++;
            ended_try = strstr(line, "try=") != NULL;
        } else {
            ended_try = 0;
        }
        if (!strncmp(line, "say ", 4) || !strncmp(line, "pause", 5))
            snprintf(prev, sizeof prev, "%s", line);
        if (!strncmp(line, "say ", 4)) {
            char text[2048];
            quoted(line, text, sizeof text);
            /* the keys that move the tour are never asked for */
            static const char *const tour_keys[] = {"press n", "press N", "press q", "n to ",
                                                    "space to go", NULL};
            for (size_t k = 0; tour_keys[k]; k++)
                if (strstr(text, tour_keys[k]))
                    fail_msg("chapter %d asks for a tour key: '%s'", chapter, tour_keys[k]);
            /* a number of a result is a {value}: the only digits outside
             * braces are the problem's own (N = 50, gamma = 0.5, x^4...) */
            static const char *const fixed[] = {"0.88", "0.80", "0.809", "0.885", "%)", NULL};
            for (size_t k = 0; fixed[k]; k++)
                if (strstr(text, fixed[k]))
                    fail_msg("chapter %d has a result typed in: '%s'", chapter, fixed[k]);
        }
    }
    fclose(f);
    assert_int_equal(chapter, nchapters);
    (void)stops_in;
}

/* ---- what the narrations claim ----------------------------------------------------- */

/* The JSON lines csreg prints for `lines` (-e each, in dir). */
static char *cli_json(const char *dir, const char *lines)
{
    char args[4096], path[600];
    snprintf(args, sizeof args, "--json %s", lines);
    assert_int_equal(run_in(dir, args, "cli.json"), 0);
    snprintf(path, sizeof path, "%s/cli.json", dir);
    char *out = slurp(path, NULL);
    assert_non_null(out);
    return out;
}

/* The n-th (0-based) JSON line of command `cmd` in out. */
static const char *nth(const char *out, const char *cmd, int n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "{\"cmd\":\"%s\"", cmd);
    const char *p = out;
    for (int k = 0; (p = strstr(p, pat)); k++, p++)
        if (k == n)
            return p;
    fail_msg("no %d-th '%s' in the output", n, cmd);
    return NULL;
}

/* The first two numbers of "key":[a,b] in a JSON line. */
static void jvec2(const char *json, const char *key, double v[2])
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":[", key);
    const char *p = strstr(json, pat);
    assert_non_null(p);
    char *end;
    v[0] = strtod(p + strlen(pat), &end);
    v[1] = strtod(end + 1, NULL);
}

/* The narration of stop k contains `text`. */
static void says(int k, const char *text)
{
    if (!strstr(said[stops[k].say], text))
        fail_msg("stop %d says \"%s\", not \"%s\"", k + 1, said[stops[k].say], text);
}

/* The first stop of chapter c (1-based) plus i. */
static int stop_of(int c, int i)
{
    for (int k = 0; k < nstops; k++)
        if (stops[k].chapter == c)
            return k + i;
    fail_msg("no stop in chapter %d", c);
    return 0;
}

/* A, b and x* of the problem of seed `seed` (N=2, M=1). */
static void problem_of(const char *dir, int seed, double a[2], double *b, double xs[2])
{
    char lines[300];
    snprintf(lines, sizeof lines, "-e 'seed %d' -e 'problem bin N=2 M=1' -e 'problem save "
             "dir=pf%d format=csv force=on'", seed, seed);
    free(cli_json(dir, lines));
    char path[600];
    snprintf(path, sizeof path, "%s/pf%d/A.csv", dir, seed);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lf,%lf", &a[0], &a[1]), 2);
    fclose(f);
    snprintf(path, sizeof path, "%s/pf%d/b.csv", dir, seed);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lf", b), 1);
    fclose(f);
    snprintf(path, sizeof path, "%s/pf%d/xstar.csv", dir, seed);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lf %lf", &xs[0], &xs[1]), 2);
    fclose(f);
}

static double feasible_gap(const double a[2], double b, const double x[2])
{
    return fabs(a[0] * x[0] + a[1] * x[1] - b);
}

/* Chapter 2: the iterate it names, the other crossing (feasible, on the
 * zero set, not x*), when start 1 settled, start 2 reaching x*. */
static void claims_feasible_set(const char *dir)
{
    const char *setup = "-e 'seed 26' -e 'reg bin' -e 'problem bin N=2 M=1' "
                        "-e 'step n=0 maxit=60'";
    char lines[4096], want[64];
    int s1 = stop_of(2, 0);
    says(s1, "start 1 of 10");
    snprintf(lines, sizeof lines, "%s -e 'step n=2' -e x", setup);
    char *out = cli_json(dir, lines);
    double x[2];
    jvec2(nth(out, "x", 0), "x", x);
    snprintf(want, sizeof want, "after 2 steps the iterate (the diamond) is at (%.2f, %.2f)",
             x[0], x[1]);
    says(s1 + 1, want);
    free(out);
    /* start 1's end: one step at a time, where it stops moving */
    size_t used = (size_t)snprintf(lines, sizeof lines, "%s", setup);
    for (int k = 0; k < 60; k++)
        used += (size_t)snprintf(lines + used, sizeof lines - used, " -e step -e x");
    out = cli_json(dir, lines);
    double path[61][2];
    path[0][0] = path[0][1] = NAN;
    for (int k = 0; k < 60; k++)
        jvec2(nth(out, "x", k), "x", path[k + 1]);
    free(out);
    double a[2], b, xs[2];
    problem_of(dir, 26, a, &b, xs);
    const double *end = path[60];
    double tol = 1e-3 * fmax(1.0, hypot(end[0], end[1]));
    int settled = 60;
    while (settled > 1 && hypot(path[settled - 1][0] - end[0], path[settled - 1][1] - end[1]) <= tol)
        settled--;
    snprintf(want, sizeof want, "Start 1 settled at iteration %d on (%.2f, %.2f)", settled, end[0],
             end[1]);
    says(s1 + 2, want);
    /* "the other crossing of the line with the zero set": feasible, on a
     * diagonal, not x*; "zero there too" */
    assert_true(feasible_gap(a, b, end) < 1e-6);
    assert_true(fabs(fabs(end[0]) - fabs(end[1])) < 1e-6);
    assert_true(hypot(end[0] - xs[0], end[1] - xs[1]) > 0.5);
    snprintf(lines, sizeof lines, "-e 'reg bin' -e 'eval %.17g,%.17g'", end[0], end[1]);
    out = cli_json(dir, lines);
    assert_true(jnum(nth(out, "eval", 0), "value") < 1e-9);
    free(out);
    snprintf(want, sizeof want, "its scale is %.2f", fmax(fabs(end[0]), fabs(end[1])));
    says(s1 + 2, want);
    /* the restart reaches x* */
    snprintf(lines, sizeof lines, "%s -e 'step until=done'", setup);
    out = cli_json(dir, lines);
    const char *d = nth(out, "step", 1);
    assert_true(jnum(d, "success") == 1);
    snprintf(want, sizeof want, "start %.0f reached x* at iteration %.0f (error %.3f)",
             jnum(d, "start"), jnum(d, "iter"), jnum(d, "rel_err"));
    says(s1 + 3, want);
    free(out);
}

/* Chapter 3: l_inf's answer is the smallest-max-norm feasible point and a
 * crossing of the line with a diagonal; x*'s max-norm; l_bin's restarts;
 * the basin counts; the sweep's rates. */
static void claims_mechanism(const char *dir)
{
    double a[2], b, xs[2];
    problem_of(dir, 11, a, &b, xs);
    char *out = cli_json(dir, "-e 'seed 11' -e 'reg bin' -e 'problem bin N=2 M=1' -e 'reg linf' "
                              "-e solve -e x -e 'reg bin' -e solve -e 'basins res=61'");
    double x[2];
    jvec2(nth(out, "x", 0), "x", x);
    /* the smallest max-norm on the line a.x = b is |b| / (|a1| + |a2|), at
     * x = t sign(a) */
    double best = fabs(b) / (fabs(a[0]) + fabs(a[1]));
    assert_true(fabs(fmax(fabs(x[0]), fabs(x[1])) - best) < 1e-6);
    assert_true(feasible_gap(a, b, x) < 1e-6);
    assert_true(fabs(fabs(x[0]) - fabs(x[1])) < 1e-6);   /* on a diagonal */
    char want[200];
    int s = stop_of(3, 0);
    snprintf(want, sizeof want, "here (%.2f, %.2f) with max-norm %.2f", x[0], x[1], best);
    says(s, want);
    snprintf(want, sizeof want, "x* has max-norm %.0f", fmax(fabs(xs[0]), fabs(xs[1])));
    says(s, want);
    /* "the crossing of smaller scale" and l_bin's restarts */
    assert_true(best < fmax(fabs(xs[0]), fabs(xs[1])));
    const char *sb = nth(out, "solve", 1);
    assert_true(jnum(sb, "success") == 1);
    snprintf(want, sizeof want, "start %.0f reached x*", jnum(sb, "restarts"));
    says(s + 1, want);
    const char *bs = nth(out, "basins", 0);
    snprintf(want, sizeof want, "%.0f starts reach x* (green), %.0f the other crossing (blue), "
             "%.0f a spurious point", jnum(bs, "success"), jnum(bs, "other"),
             jnum(bs, "spurious"));
    says(s + 2, want);
    assert_true(jnum(bs, "spurious") == 0);   /* "none stalls off the zero set" */
    free(out);
}

/* success of method at gamma g in a sweep CSV. */
static double csv_rate(const char *path, const char *method, double g)
{
    char *t = slurp(path, NULL);
    assert_non_null(t);
    double r = NAN;
    for (char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char m[32];
        double gamma, rate;
        if (sscanf(l, "%31[^,],%*[^,],%*[^,],%*[^,],%lf,%*[^,],%*[^,],%lf", m, &gamma, &rate) == 3 &&
            !strcmp(m, method) && fabs(gamma - g) < 1e-9)
            r = rate;
    }
    free(t);
    return r;
}

static void claims_sweeps(void)
{
    char path[600], want[300];
    snprintf(path, sizeof path, "%s/out/tour/sweep.csv", batch_dir);
    double b5 = csv_rate(path, "bin", 0.5), l5 = csv_rate(path, "linf", 0.5);
    double b4 = csv_rate(path, "bin", 0.4), l4 = csv_rate(path, "linf", 0.4);
    snprintf(want, sizeof want, "at gamma = 0.5 l_bin recovered x* in %.0f%% of the trials, l_inf "
             "in %.0f%%; at 0.4, %.0f%% against %.0f%%", 100 * b5, 100 * l5, 100 * b4, 100 * l4);
    says(stop_of(3, 3), want);
    assert_true(b5 > l5 && b4 > l4);   /* "often not x*" where l_bin finds it */
    snprintf(path, sizeof path, "%s/out/fig1a-quick.csv", batch_dir);
    b5 = csv_rate(path, "bin", 0.5), l5 = csv_rate(path, "linf", 0.5);
    b4 = csv_rate(path, "bin", 0.4), l4 = csv_rate(path, "linf", 0.4);
    assert_true(b5 == l5);   /* "both recovered": ten trials cannot tell them apart */
    snprintf(want, sizeof want, "both recovered %.0f%%", 100 * b5);
    says(stop_of(6, 0), want);
    snprintf(want, sizeof want, "At 0.4, l_bin %.0f%%, l_inf %.0f%%", 100 * b4, 100 * l4);
    says(stop_of(6, 0), want);
}

/* Chapter 4: four's zero set holds (0.5, 6), (2, 2), (1, 3) and not
 * (1, 2); the spurious points reg analyze drew. */
static void claims_own(const char *dir)
{
    char *out = cli_json(dir, "-e 'reg define four g=\"x^4 + 9\" h=\"10*x^2\"' -e 'reg four' "
                              "-e 'eval 0.5,6' -e 'eval 2,2' -e 'eval 1,3' -e 'eval -3,1' "
                              "-e 'eval 1,2' -e 'reg analyze four x=-4:4 y=-4:4 res=81' "
                              "-e 'reg define wave g=\"sin(pi*x)\" h=\"cos(pi*x)\"' "
                              "-e 'reg analyze wave res=61'");
    for (int k = 0; k < 4; k++)
        assert_true(fabs(jnum(nth(out, "eval", k), "value")) < 1e-9);
    assert_true(jnum(nth(out, "eval", 4), "value") > 1);
    int s = stop_of(4, 1);
    says(s, "eval 0.5,6 gives 0 too");
    says(s, "reg analyze found 0 spurious stationary points");
    assert_true(jnum(nth(out, "reg", 2), "spurious") == 0);
    /* wave: the crosses drawn are the points listed */
    const char *w = strstr(out, "\"levels_found\"");
    w = w ? strstr(w + 1, "\"levels_found\"") : NULL;
    assert_non_null(w);
    const char *xs = strstr(w, "\"spurious_x\":[");
    assert_non_null(xs);
    int n = 1;
    for (const char *c = xs; *c != ']'; c++)
        n += *c == ',';
    char want[64];
    snprintf(want, sizeof want, "(%d drawn as red crosses)", n);
    says(s + 1, want);
    free(out);
}

/* Chapter 5: the accuracies it names are nnreport's, the l_bin network
 * keeps its accuracy, the naive one drops. */
static void claims_network(void)
{
    const char *r = strstr(batch_json, "{\"cmd\":\"nnreport\"");
    assert_non_null(r);
    static const char *const labels[] = {"cs-bin", "cs-bin-quantized", "pretrained",
                                         "naive-quantized"};
    double acc[4] = {NAN, NAN, NAN, NAN};
    for (int k = 0; k < 4; k++) {
        char pat[80];
        snprintf(pat, sizeof pat, "\"label\":\"%s\"", labels[k]);
        for (const char *p = r; (p = strstr(p, pat)); p++) {
            double a = jnum(p, "test_accuracy");
            if (isfinite(a))
                acc[k] = a;
        }
        assert_true(isfinite(acc[k]));
    }
    char want[300];
    snprintf(want, sizeof want, "keeps its test accuracy (%.3f before, %.3f after), while the "
             "network trained without it drops from %.3f to %.3f", acc[0], acc[1], acc[2], acc[3]);
    says(stop_of(5, 2), want);
    assert_true(fabs(acc[0] - acc[1]) < 0.01);   /* "keeps" */
    assert_true(acc[2] - acc[3] > 0.05);         /* "drops" */
}

static void test_claims(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs_tourc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    claims_feasible_set(dir);
    claims_mechanism(dir);
    claims_own(dir);
    if (!SANITIZED) {
        claims_sweeps();
        claims_network();
    }
    rm_tree(dir);
}

/* ---- the walk ------------------------------------------------------------------------ */

static void wait_for(tmux_session *t, const char *text, int ms)
{
    if (tmux_wait_for(t, text, ms, screen, sizeof screen) != 0)
        fail_msg("'%s' did not appear; the screen:\n%s", text, screen);
}

/* text with every run of blanks and newlines as one blank */
static void squeeze(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (; *in && n + 1 < len; in++) {
        int blank = *in == ' ' || *in == '\n' || *in == '\t';
        if (blank && (n == 0 || out[n - 1] == ' '))
            continue;
        out[n++] = blank ? ' ' : *in;
    }
    out[n] = '\0';
}

static int expect_side;

/* The screen's columns from `from` on, row by row (a side column's text). */
static void columns_from(const char *scr, int from, char *out, size_t len)
{
    size_t n = 0;
    int col = 0;
    for (; *scr && n + 8 < len; scr++) {
        if (*scr == '\n') {
            out[n++] = '\n';
            col = 0;
            continue;
        }
        col += ((unsigned char)*scr & 0xc0) != 0x80;
        if (col > from)
            out[n++] = *scr;
    }
    out[n] = '\0';
}

/* The whole narration is on the screen (wrapped over its rows; in the
 * right column when it is at the side). */
static int narration_visible(const char *scr, const char *text)
{
    static char a[65536], b[4096], c[65536];
    if (expect_side) {
        columns_from(scr, expect_side - 40 + 1, c, sizeof c);   /* after its rule */
        scr = c;
    }
    squeeze(scr, a, sizeof a);
    squeeze(text, b, sizeof b);
    return strstr(a, b) != NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The screen column of p (UTF-8 characters from the start of its row). */
static int column_of(const char *scr, const char *p)
{
    const char *b = p;
    while (b > scr && b[-1] != '\n')
        b--;
    int col = 0;
    for (; b < p; b++)
        col += ((unsigned char)*b & 0xc0) != 0x80;
    return col;
}

/* expect_side: where the narration should be: the screen's width when in a
 * column at the right, 0 in rows across the screen (the layout picks the column only when the map
 * keeps at least its size: at 200x44, not at 120x40 or 80x24). */

/* The screen at stop k: the narration whole and the legend of what it
 * talks about, the panels' numbers as the narration says them. */
static void check_stop(int k, int w, int h)
{
    const char *text = said[stops[k].say];
    if (!narration_visible(screen, text))
        fail_msg("%dx%d, stop %d: the narration is not whole on the screen:\n%s\n---\n%s", w, h,
                 k + 1, text, screen);
    char first[16];   /* its first words: on its first row */
    snprintf(first, sizeof first, "%s", text);
    const char *at = strstr(screen, first);
    int col = at ? column_of(screen, at) : -1;
    if (!at || (expect_side ? col < w - 40 : col > 2))
        fail_msg("%dx%d, stop %d: the narration is not %s (column %d):\n%s", w, h, k + 1,
                 expect_side ? "in the right column" : "in rows across the screen", col, screen);
    /* a chapter that studies a regularizer alone draws no problem's layers */
    if (strstr(text, "Any elementwise g and h") &&
        (!strstr(screen, "no problem set up") || strstr(screen, "Ax=b") ||
         strstr(screen, "linf answer") || strstr(screen, "▀path") || strstr(screen, "★x*")))
        fail_msg("%dx%d, stop %d: chapter 4 shows chapter 3's problem:\n%s", w, h, k + 1,
                 screen);
    const char *legend = NULL;
    if (strstr(screen, "┌─ Landscape"))
        legend = strstr(screen, "basins of") ? "success " : "log₁₀ℓ";
    else if (strstr(screen, "┌─ Success"))
        legend = "gamma";
    else if (strstr(screen, "┌─ Curves"))
        legend = "±α";
    if (!legend || !strstr(screen, legend))
        fail_msg("%dx%d, stop %d: no legend (%s) on the screen:\n%s", w, h, k + 1,
                 legend ? legend : "no panel", screen);
    /* the panels say what the narration says: the start it names is the
     * Solver's, the basin counts are the legend's, the split shows l_inf */
    char want[128];
    for (const char *p = text; (p = strstr(p, "start ")); p++) {
        int st;
        if (sscanf(p, "start %d", &st) != 1 || !strstr(screen, "iter "))
            continue;
        snprintf(want, sizeof want, "start %d/", st);
        if (!strstr(screen, want))
            fail_msg("%dx%d, stop %d: the narration names start %d, the Solver does not:\n%s", w,
                     h, k + 1, st, screen);
    }
    long ok_n, other_n;
    const char *reach = strstr(text, "The basin map");
    if (reach && sscanf(strstr(text, "ends. ") + 6, "%ld starts reach x* (green), %ld", &ok_n,
                        &other_n) == 2) {
        snprintf(want, sizeof want, "success %ld", ok_n);
        assert_non_null(strstr(screen, want));
        snprintf(want, sizeof want, "other %ld", other_n);
        assert_non_null(strstr(screen, want));
    }
    if (strstr(text, "Side by side") && (!strstr(screen, "linf answer") ||
                                         !strstr(screen, "linf")))
        fail_msg("%dx%d, stop %d: the split shows no linf:\n%s", w, h, k + 1, screen);
}

static void save_capture(int k, int w, int h)
{
    const char *dir = getenv("CSREG_TOUR_CAPS");
    if (!dir || !*dir)
        return;
    mkdir(dir, 0755);
    char path[1024];
    snprintf(path, sizeof path, "%s/%dx%d_stop%02d_ch%d.txt", dir, w, h, k + 1, stops[k].chapter);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(screen, f);
        fclose(f);
    }
}

/* Wait for stop k: its chapter's title and the stop's keys (returns when
 * they came, the compute's end), then the whole narration. */
static double reach_stop(tmux_session *t, int k, int w, int h)
{
    char head[64];
    snprintf(head, sizeof head, "Chapter %d/%d", stops[k].chapter, nchapters);
    const char *foot = stops[k].try_[0] ? "try " : "n next";
    /* one screen with the stop's keys and its narration: the keys of the
     * stop before go as n is pressed, before the next narration shows */
    double t0 = now_s();
    while (tmux_screen(t, screen, sizeof screen) != 0 || !strstr(screen, head) ||
           !strstr(screen, foot) || !narration_visible(screen, said[stops[k].say])) {
        if (now_s() - t0 > 120)
            fail_msg("%dx%d: stop %d (%s) did not come; the screen:\n%s", w, h, k + 1,
                     said[stops[k].say], screen);
        usleep(50000);
    }
    double reached = now_s();
    usleep(150000);   /* the panels' last snapshot */
    tmux_screen(t, screen, sizeof screen);
    check_stop(k, w, h);
    save_capture(k, w, h);
    return reached;
}

static void key(tmux_session *t, const char *k)
{
    assert_int_equal(tmux_keys(t, (const char *const[]){k, NULL}), 0);
}

/* The whole tour at w×h; with `play`, the student also presses keys: space
 * and s do not move the tour, n puts a changed run back, N goes back a
 * chapter, an invitation is noticed. Returns the compute waits (s). */
static double walk(int w, int h, int play)
{
    char dir[] = "/tmp/cs_tourw_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048], b[1200];
    snprintf(cmd, sizeof cmd,
             "cd %s && env LC_ALL=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME=%s %s --tour; "
             "echo TOUR_EXITED rc=$?; sleep 60",
             dir, dir, bin(b, sizeof b));
    tmux_session t;
    assert_int_equal(tmux_start_retry(&t, w, h, cmd), 0);
    expect_side = 0;
    double waits = 0;
    int went_back = 0;
    for (int k = 0; k < nstops; k++) {
        double t0 = now_s();
        waits += reach_stop(&t, k, w, h) - t0;
        if (play && k == 0) {   /* space is the solver's, not the tour's */
            key(&t, "Space");
            usleep(400000);
            tmux_screen(&t, screen, sizeof screen);
            assert_true(narration_visible(screen, said[stops[0].say]));
        }
        if (play && stops[k].chapter == 2 && k == stop_of(2, 1)) {
            /* s steps the run away from the narration; n puts it back */
            for (int i = 0; i < 3; i++)
                key(&t, "s");
            wait_for(&t, "iter 5,", 10000);
            key(&t, "n");
            wait_for(&t, "putting back the state", 10000);
            k++;
            reach_stop(&t, k, w, h);
            assert_non_null(strstr(screen, "iter 60, start 1/"));   /* as the text says */
        }
        if (play && !went_back && k == stop_of(2, 0)) {
            went_back = 1;
            key(&t, "N");
            wait_for(&t, "back to the start of chapter 1", 10000);
            k = -1;   /* chapter 1 again, then on */
            continue;
        }
        if (play && strstr(said[stops[k].say], "o shows the nnreport table")) {
            key(&t, "o");   /* as the narration says: the table, its numbers */
            wait_for(&t, "┌─ nnreport (", 10000);
            char acc[32];
            const char *num = strstr(said[stops[k].say], " after)");   /* "0.857 after)" */
            assert_non_null(num);
            while (num > said[stops[k].say] && num[-1] != ' ')
                num--;
            snprintf(acc, sizeof acc, "%.5s0", num);   /* 0.857 -> the table's 0.8570 */
            if (!strstr(screen, acc))
                fail_msg("the pager's nnreport has no %s:\n%s", acc, screen);
            key(&t, "q");
        }
        if (stops[k].try_[0] && play && !strcmp(stops[k].try_, "M=2")) {
            assert_int_equal(tmux_command(&t, "problem bin N=2 M=2"), 0);
            wait_for(&t, "done ✓", 10000);
        }
        key(&t, "n");
    }
    wait_for(&t, "the end: q quits", 30000);
    key(&t, "q");
    wait_for(&t, "TOUR_EXITED rc=0", 10000);
    tmux_stop(&t);
    rm_tree(dir);
    return waits;
}

static void test_walk_120x40(void **state)
{
    (void)state;
    if (SANITIZED || !tmux_available()) {
        print_message("%s: skipped\n", SANITIZED ? "sanitizer build" : "no tmux");
        skip();
    }
    double waits = walk(120, 40, 1);
    print_message("the tour at 120x40, with the student's keys: %.1f s of waits\n", waits);
}

/* A wide terminal: the narration in a column at the right, beside the
 * maps (which keep every row), the legend visible. */
static void test_side_column(void **state)
{
    (void)state;
    if (SANITIZED || !tmux_available()) {
        print_message("%s: skipped\n", SANITIZED ? "sanitizer build" : "no tmux");
        skip();
    }
    char dir[] = "/tmp/cs_tours_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048], b[1200];
    snprintf(cmd, sizeof cmd,
             "cd %s && env LC_ALL=C.UTF-8 TERM=xterm-256color XDG_STATE_HOME=%s %s --tour; "
             "echo TOUR_EXITED rc=$?; sleep 60",
             dir, dir, bin(b, sizeof b));
    tmux_session t;
    assert_int_equal(tmux_start_retry(&t, 200, 44, cmd), 0);
    expect_side = 200;
    for (int k = 0; k < 3; k++) {
        reach_stop(&t, k, 200, 44);
        if (k == 0)   /* the welcome says where to read */
            assert_non_null(strstr(screen, "read the narration at the right"));
        key(&t, "n");
    }
    expect_side = 0;
    key(&t, "q");
    wait_for(&t, "TOUR_EXITED rc=0", 10000);
    tmux_stop(&t);
    rm_tree(dir);
}

static void test_walk_80x24(void **state)
{
    (void)state;
    if (SANITIZED || !tmux_available()) {
        print_message("%s: skipped\n", SANITIZED ? "sanitizer build" : "no tmux");
        skip();
    }
    double waits = walk(80, 24, 0);
    print_message("the tour's compute waits at 80x24: %.1f s (aim: under 30 s)\n", waits);
    assert_true(waits < 90);   /* a loaded machine's margin over the 30 s aim */
}

/* A start that stalls is cut short for any N (cs_solve_settle: the TUI
 * feeds it the iterates one by one): on bin N=8 M=4, seed 4, start 1 stops
 * moving far from x* (error about 0.9) long before maxit, and ends where it
 * settled; with seed 1 start 1 reaches x* at iteration 38 and is never
 * called settled on its way; a jump of 10 iterations starts the count over. */
static long walk_settle(fixture *f, cs_solve_settle *st, long cap, cs_solve_view *v, long *since)
{
    for (;;) {
        assert_int_equal(cs_interp_solve_view(f->in, v), 0);
        *since = cs_solve_settle_feed(st, v);
        if (v->iter - *since >= 3 || v->iter >= cap || v->success || (v->end &&
                                                                     strcmp(v->end, "running")))
            return v->iter;
        ok(f, "step");
    }
}

static void test_settle_any_n(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 4, 1, 0);
    ok(f, "problem bin N=8 M=4");
    ok(f, "step n=0 maxit=300");
    cs_solve_settle st = {.last = -1};
    cs_solve_view v;
    long since, at = walk_settle(f, &st, 300, &v, &since);
    assert_int_equal(v.n, 8);
    assert_null(v.traj_xy);   /* N > 2: no trajectory, the iterates only */
    assert_false(v.success);
    assert_true(since > 0 && at == since + 3 && at < 100);
    print_message("N=8 seed 4: start 1 settled at iteration %ld (error %.3f)\n", since,
                  v.rel_err);
    assert_true(v.rel_err > 0.5);
    double where[8];
    memcpy(where, st.at, sizeof where);
    /* the rest of the start (what the TUI's cut runs): it ends where it settled */
    ok(f, "step until=end");
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.iter, 300);
    assert_string_equal(v.end, "maxit");
    double d = 0, a = 0;
    for (int i = 0; i < 8; i++) {
        d += (v.x[i] - where[i]) * (v.x[i] - where[i]);
        a += where[i] * where[i];
    }
    assert_true(sqrt(d) <= 1e-3 * fmax(1, sqrt(a)));
    /* a jump (step n=10 after a reset) starts over */
    ok(f, "reset");
    ok(f, "step n=10");
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(cs_solve_settle_feed(&st, &v), v.iter);
    fixture_free(f);
    /* a start that reaches x* is not called settled on its way */
    f = fixture_new(1, 1, 1, 0);
    ok(f, "problem bin N=8 M=4");
    ok(f, "step n=0 maxit=300");
    at = walk_settle(f, &st, 300, &v, &since);
    assert_true(v.success);
    assert_int_equal(at, 38);
    assert_true(at - since < 3);
    cs_solve_settle_free(&st);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settle_any_n),
        cmocka_unit_test(test_batch_and_replay),
        cmocka_unit_test(test_script_rules),
        cmocka_unit_test(test_claims),
        cmocka_unit_test(test_walk_120x40),
        cmocka_unit_test(test_side_column),
        cmocka_unit_test(test_walk_80x24),
    };
    if (getenv("TOUR_TEST_FILTER"))   /* one test while working on it: test_side_column */
        cmocka_set_test_filter(getenv("TOUR_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
