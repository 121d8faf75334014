/* sweep_journal.c — the resumable journal of a sweep (cs_sweep_journal.h). */
#include "cs_sweep_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_clock.h"
#include "cs_file.h"

#define MAGIC "csreg sweep journal 1\n"
#define BLOCK_TRIALS 32
#define BLOCK_SECONDS 0.5
#define DEFINE_KEY "define."   /* header lines of defined methods' definitions */

struct cs_sweep_journal {
    pthread_mutex_t mu;
    FILE *f;
    char path[4096];
    const char *name;         /* path's last component, for messages */
    size_t np, nm, T;
    /* loaded at open */
    unsigned char *lfin, *lsucc;
    long *liters;
    int *lstarts;
    double *lsecs;
    long loaded;
    /* the block being gathered */
    char *body;
    size_t blen, bcap;
    size_t bcount;
    double last_write;
    cs_err err;               /* the first write error */
    int failed;
};

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t cs_crc32(const void *data, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc_init);
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

int cs_sweep_journal_name(const char *out, char *buf, size_t len, cs_err *err)
{
    int n = snprintf(buf, len, "%s.journal", out);
    if (n < 0 || (size_t)n >= len)
        return cs_fail(err, CS_EINVAL, "the journal name of %s is too long", out);
    return CS_OK;
}

/* ------------------------------------------------------------ text */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

/* printf-checked: -Wformat=2 (clang's -Wformat-nonliteral) needs it */
__attribute__((format(printf, 2, 3))) static void sb_addf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap <= b->len + (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* The shortest of %.15g..%.17g that reads back as v (exact, and readable in messages). */
static const char *exact(double v, char *buf, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* A defined method's name says nothing of what it computes (`reg define`
 * may replace it between a sweep and its resume): each distinct one adds
 * "define.NAME=FORMULA", its canonical text. Built-ins add nothing, so
 * their headers stay as they were. */
static void add_definitions(sbuf *b, const cs_sweep_spec *sp)
{
    for (size_t m = 0; m < sp->nmethods; m++) {
        const cs_reg_info *info = sp->methods[m].info;
        int seen = 0;
        for (size_t k = 0; k < m && !seen; k++)
            seen = sp->methods[k].info == info;
        if (info && cs_reg_info_defined(info) && !seen)
            sb_addf(b, "\n" DEFINE_KEY "%s=%s", info->name, info->formula);
    }
}

char *cs_sweep_journal_header(const cs_sweep_spec *sp)
{
    char x[5][40];
    static const char *axes[] = {"gamma", "M", "K"};
    const cs_solve_opts *so = &sp->solve;
    sbuf b = {0};
    sb_addf(&b, "kind=%s\nN=%zu\naxis=%s\ngrid=", cs_problem_kind_name(sp->kind), sp->N,
            sp->axis >= CS_AXIS_GAMMA && sp->axis <= CS_AXIS_K ? axes[sp->axis] : "?");
    for (size_t i = 0; i < sp->nvalues; i++)
        sb_addf(&b, "%s%s", i ? "," : "", exact(sp->values[i], x[0], sizeof x[0]));
    sb_addf(&b, "\nM=%zu\ngamma=%s\nK=%zu\nmethods=", sp->M, exact(sp->gamma, x[0], sizeof x[0]),
            sp->K);
    for (size_t m = 0; m < sp->nmethods; m++)
        sb_addf(&b, "%s%s", m ? "," : "", sp->methods[m].text);
    add_definitions(&b, sp);
    sb_addf(&b, "\ntrials=%ld\nalgo=%d\nmode=%d\nmaxit=%ld\nstop=%s\ntol=%s\nrestarts=%d\n"
                "lambda=%s\ndr_t=%s\nsuccess_tol=%s\ngeneric_reg=%d\nseed=%" PRIu64 "\n",
            sp->trials, (int)so->algo, (int)so->mode, so->maxit, cs_stop_name(so->stop),
            exact(so->tol, x[1], sizeof x[1]), so->restarts, exact(so->lambda, x[2], sizeof x[2]),
            exact(so->dr_t, x[3], sizeof x[3]), exact(so->success_tol, x[4], sizeof x[4]),
            so->generic_reg, sp->seed);
    /* noisy b and the least-squares fit: only when used (older headers stay valid) */
    if (sp->noise != 0.0 || so->fit != CS_FIT_AFFINE)
        sb_addf(&b, "noise=%s\nfit=%s\n", exact(sp->noise, x[0], sizeof x[0]),
                cs_fit_name(so->fit));
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* "key value" of a header line for messages, long values cut. */
static void show_setting(const char *line, size_t len, char *buf, size_t cap)
{
    const char *eq = memchr(line, '=', len);
    size_t klen = eq ? (size_t)(eq - line) : len;
    const char *v = eq ? eq + 1 : "";
    size_t vlen = eq ? len - klen - 1 : 0;
    if (vlen > 60)
        snprintf(buf, cap, "%.*s %.56s...", (int)klen, line, v);
    else
        snprintf(buf, cap, "%.*s %.*s", (int)klen, line, (int)vlen, v);
}

static int is_define(const char *line, size_t len)
{
    size_t k = strlen(DEFINE_KEY);
    return len > k && !memcmp(line, DEFINE_KEY, k);
}

/* A "define.NAME=DEF" line split into NAME and DEF (bounded copies). */
static void split_define(const char *line, size_t len, char *nm, size_t ncap, char *def,
                         size_t dcap)
{
    size_t k = strlen(DEFINE_KEY);
    const char *eq = memchr(line, '=', len);
    size_t nl = eq ? (size_t)(eq - line) - k : len - k;
    snprintf(nm, ncap, "%.*s", (int)nl, line + k);
    snprintf(def, dcap, "%.*s", eq ? (int)(len - (size_t)(eq - line) - 1) : 0, eq ? eq + 1 : "");
}

/* The definitions of a defined method differ, or one header has none. */
static int definition_mismatch(const char *name, const char *h, size_t hl, const char *w,
                               size_t wl, cs_err *err)
{
    char hn[64], wn[64], hd[200], wd[200];
    if (!is_define(h, hl)) { /* a journal from before definitions were kept */
        split_define(w, wl, wn, sizeof wn, wd, sizeof wd);
        return cs_fail(err, CS_EINVAL, "resume: %s does not record how %s was defined (this "
                       "sweep: %s); resume=off starts afresh", name, wn, wd);
    }
    split_define(h, hl, hn, sizeof hn, hd, sizeof hd);
    if (!is_define(w, wl))
        return cs_fail(err, CS_EINVAL, "resume: %s was written with %s defined as %s, which "
                       "this sweep does not run (resume=off starts afresh)", name, hn, hd);
    split_define(w, wl, wn, sizeof wn, wd, sizeof wd);
    return cs_fail(err, CS_EINVAL, "resume: %s was written with %s defined as %s; this sweep's "
                   "%s is %s (resume=off starts afresh)", name, hn, hd, wn, wd);
}

/* A setting's line as its effective value: 0 stands for the kind's default
 * in maxit, restarts, mode, success_tol and (where the kind or fit=ls has
 * one) lambda, so that a journal of a sweep without maxit= resumes under
 * maxit=10000 and the other way round. Other lines come back as they are;
 * *len is the length of what *line then points at. */
static void effective(const char **line, size_t *len, const cs_sweep_spec *sp, char *buf,
                      size_t cap)
{
    static const char *const zeros[] = {"maxit=0", "restarts=0", "mode=0", "success_tol=0",
                                        "lambda=0"};
    size_t k = 0;
    while (k < 5 && (*len != strlen(zeros[k]) || memcmp(*line, zeros[k], *len) != 0))
        k++;
    if (k == 5)
        return;
    const cs_kind_defaults *kd = cs_kind_defaults_of(sp->kind);
    double lambda = sp->solve.fit == CS_FIT_LS ? CS_FIT_LS_LAMBDA : kd->lambda;
    char num[40];
    int n = 0;
    switch (k) {
    case 0: n = snprintf(buf, cap, "maxit=%ld", kd->maxit); break;
    case 1: n = snprintf(buf, cap, "restarts=%d", kd->starts); break;
    case 2: n = snprintf(buf, cap, "mode=%d", (int)kd->mode); break;
    case 3: n = snprintf(buf, cap, "success_tol=%s", exact(1e-2, num, sizeof num)); break;
    default:
        if (!isnan(lambda))
            n = snprintf(buf, cap, "lambda=%s", exact(lambda, num, sizeof num));
    }
    if (n > 0 && (size_t)n < cap) {
        *line = buf;
        *len = (size_t)n;
    }
}

/* The first line where the two headers differ in effect, as a message. */
static int header_mismatch(const char *name, const char *have, size_t hlen, const char *want,
                           const cs_sweep_spec *sp, cs_err *err)
{
    const char *h = have, *he = have + hlen, *w = want, *we = want + strlen(want);
    while (h < he && w < we) {
        const char *hn = memchr(h, '\n', (size_t)(he - h));
        const char *wn = memchr(w, '\n', (size_t)(we - w));
        size_t hl = hn ? (size_t)(hn - h) : (size_t)(he - h);
        size_t wl = wn ? (size_t)(wn - w) : (size_t)(we - w);
        const char *he1 = h, *we1 = w;
        size_t hel = hl, wel = wl;
        char hb[64], wb[64];
        effective(&he1, &hel, sp, hb, sizeof hb);
        effective(&we1, &wel, sp, wb, sizeof wb);
        if (hel != wel || memcmp(he1, we1, hel) != 0) {
            if (is_define(h, hl) || is_define(w, wl))
                return definition_mismatch(name, h, hl, w, wl, err);
            char a[128], b[128];
            show_setting(he1, hel, a, sizeof a);
            show_setting(we1, wel, b, sizeof b);
            return cs_fail(err, CS_EINVAL, "resume: %s is for %s, this sweep has %s (resume=off "
                           "starts afresh)", name, a, b);
        }
        h += hl + 1;
        w += wl + 1;
    }
    if (h < he || w < we)
        return cs_fail(err, CS_EINVAL, "resume: %s was written for other settings (resume=off "
                       "starts afresh)", name);
    return CS_OK;
}

/* ------------------------------------------------------------ reading */

/* A number (base 10 or 16, lowercase) right after the separator sep at *p. */
static int num(const char **p, const char *end, char sep, int base, uint64_t *v)
{
    const char *s = *p;
    if (s >= end || *s != sep)
        return -1;
    s++;
    uint64_t x = 0;
    int any = 0;
    for (; s < end; s++, any++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else
            break;
        if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        x = x * (uint64_t)base + (uint64_t)d;
    }
    if (!any || any > 20)
        return -1;
    *p = s;
    *v = x;
    return 0;
}

/* One record line [p, end) (without its newline): 0 with its trials taken,
 * or -1 when it is not valid (then nothing is taken). */
static int read_record(cs_sweep_journal *j, const char *p, const char *end)
{
    if (end - p < 12 || end[-9] != ' ')
        return -1;
    const char *c = end - 9;
    uint64_t crc, n;
    if (num(&c, end, ' ', 16, &crc) || c != end || cs_crc32(p, (size_t)(end - 9 - p)) != crc)
        return -1;
    end -= 9;
    const char *q = p + 1;
    if (*p != 'R' || num(&q, end, ' ', 10, &n) || n == 0 || n > j->np * j->T)
        return -1;
    for (int pass = 0; pass < 2; pass++) { /* check, then take */
        const char *r = q;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g, t;
            if (num(&r, end, ' ', 10, &g) || num(&r, end, ' ', 10, &t) || g >= j->np ||
                t >= j->T)
                return -1;
            size_t item = (size_t)g * j->T + (size_t)t;
            for (size_t m = 0; m < j->nm; m++) {
                uint64_t s, it, st, bits;
                if (num(&r, end, ' ', 10, &s) || s > 1 || num(&r, end, ':', 10, &it) ||
                    it > (uint64_t)LONG_MAX || num(&r, end, ':', 10, &st) ||
                    st > (uint64_t)INT_MAX || num(&r, end, ':', 16, &bits))
                    return -1;
                if (pass) {
                    size_t k = item * j->nm + m;
                    j->lsucc[k] = (unsigned char)s;
                    j->liters[k] = (long)it;
                    j->lstarts[k] = (int)st;
                    memcpy(&j->lsecs[k], &bits, sizeof bits);
                }
            }
            if (pass && !j->lfin[item]) {
                j->lfin[item] = 1;
                j->loaded++;
            }
        }
        if (r != end)
            return -1;
    }
    return 0;
}

static int read_all(const char *path, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 1 : -1;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    for (;;) {
        if (!s) {
            fclose(f);
            return -1;
        }
        n += fread(s + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        char *t = realloc(s, cap);
        if (!t)
            free(s);
        s = t;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(s);
        return -1;
    }
    *buf = s;
    *len = n;
    return 0;
}

/* ------------------------------------------------------------ writing */

static int sync_file(cs_sweep_journal *j, cs_err *err)
{
    if (fflush(j->f) != 0 || fdatasync(fileno(j->f)) != 0)
        return cs_fail(err, CS_EIO, "cannot write the journal %s: %s", j->path, strerror(errno));
    return CS_OK;
}

/* The block gathered so far as one record (the lock held). */
static int write_block(cs_sweep_journal *j, cs_err *err)
{
    if (!j->bcount)
        return CS_OK;
    sbuf line = {0};
    sb_addf(&line, "R %zu%.*s", j->bcount, (int)j->blen, j->body ? j->body : "");
    if (line.oom) {
        free(line.s);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    sb_addf(&line, " %08" PRIx32 "\n", cs_crc32(line.s, line.len));
    int rc = CS_OK;
    if (line.oom)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    else if (fwrite(line.s, 1, line.len, j->f) != line.len)
        rc = cs_fail(err, CS_EIO, "cannot write the journal %s: %s", j->path, strerror(errno));
    else
        rc = sync_file(j, err);
    free(line.s);
    j->bcount = 0;
    j->blen = 0;
    j->last_write = cs_now();
    return rc;
}

static int journal_trial_done(void *user, const cs_sweep_trial *t, cs_err *err)
{
    cs_sweep_journal *j = user;
    pthread_mutex_lock(&j->mu);
    int rc = CS_OK;
    if (j->failed) {
        if (err)
            *err = j->err;
        rc = j->err.code ? j->err.code : CS_EIO;
        goto out;
    }
    sbuf b = {.s = j->body, .len = j->blen, .cap = j->bcap};
    sb_addf(&b, " %zu %ld", t->point, t->trial);
    for (size_t m = 0; m < t->nmethods; m++) {
        uint64_t bits;
        memcpy(&bits, &t->secs[m], sizeof bits);
        sb_addf(&b, " %u:%ld:%d:%" PRIx64, (unsigned)(t->success[m] != 0), t->iters[m],
                t->starts[m], bits);
    }
    j->body = b.s;
    j->bcap = b.cap;
    if (b.oom) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    } else {
        j->blen = b.len;
        j->bcount++;
        if (j->bcount >= BLOCK_TRIALS || cs_now() - j->last_write >= BLOCK_SECONDS)
            rc = write_block(j, err);
    }
    if (rc) {
        j->failed = 1;
        if (err)
            j->err = *err;
        j->err.code = rc;
    }
out:
    pthread_mutex_unlock(&j->mu);
    return rc;
}

static int journal_preload(void *user, unsigned char *finished, unsigned char *success,
                           long *iters, int *starts, double *secs, cs_err *err)
{
    (void)err;
    cs_sweep_journal *j = user;
    if (!j->lfin)
        return CS_OK;
    for (size_t item = 0; item < j->np * j->T; item++)
        if (j->lfin[item]) {
            finished[item] = 1;
            size_t k = item * j->nm;
            memcpy(success + k, j->lsucc + k, j->nm);
            memcpy(iters + k, j->liters + k, j->nm * sizeof *iters);
            memcpy(starts + k, j->lstarts + k, j->nm * sizeof *starts);
            memcpy(secs + k, j->lsecs + k, j->nm * sizeof *secs);
        }
    return CS_OK;
}

void cs_sweep_journal_store(cs_sweep_journal *j, cs_sweep_store *store)
{
    *store = (cs_sweep_store){.user = j, .preload = journal_preload,
                              .trial_done = journal_trial_done};
}

long cs_sweep_journal_loaded(const cs_sweep_journal *j) { return j ? j->loaded : 0; }

static void journal_free(cs_sweep_journal *j)
{
    if (j->f)
        fclose(j->f);
    free(j->lfin);
    free(j->lsucc);
    free(j->liters);
    free(j->lstarts);
    free(j->lsecs);
    free(j->body);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

/* A new journal with its header (an existing file replaced). */
static int create_file(cs_sweep_journal *j, const char *header, cs_err *err)
{
    int rc = cs_make_parents(j->path, err);
    if (rc)
        return rc;
    j->f = fopen(j->path, "w");
    if (!j->f)
        return cs_fail(err, CS_EIO, "cannot create the journal %s: %s", j->path,
                       strerror(errno));
    fprintf(j->f, "%s%sheader %08" PRIx32 "\n", MAGIC, header,
            cs_crc32(header, strlen(header)));
    rc = sync_file(j, err);
    if (rc) { /* a full disk: no half-made journal left behind */
        fclose(j->f);
        j->f = NULL;
        remove(j->path);
    }
    return rc;
}

/* Check an existing journal against header, load its records, cut a torn
 * tail and open it for appending. *fresh: it holds no header (torn while
 * being created): start afresh. */
static int resume_file(cs_sweep_journal *j, const char *text, size_t len, const char *header,
                       const cs_sweep_spec *sp, int *fresh, cs_err *err)
{
    size_t ml = strlen(MAGIC);
    *fresh = 0;
    if (len < ml || memcmp(text, MAGIC, ml) != 0) {
        if (len < ml && memcmp(text, MAGIC, len) == 0) {
            *fresh = 1;
            return CS_OK;
        }
        return cs_fail(err, CS_EINVAL, "resume: %s is not a sweep journal", j->name);
    }
    /* the header lines, up to "header <crc>\n" */
    const char *hs = text + ml, *end = text + len, *p = hs, *hl = NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        if (nl - p >= 7 && !memcmp(p, "header ", 7)) {
            hl = p;
            break;
        }
        p = nl + 1;
    }
    if (!hl) {
        *fresh = 1;
        return CS_OK;
    }
    const char *c = hl + 6, *nl = memchr(hl, '\n', (size_t)(end - hl));
    uint64_t crc;
    if (num(&c, nl, ' ', 16, &crc) || c != nl || cs_crc32(hs, (size_t)(hl - hs)) != crc)
        return cs_fail(err, CS_EINVAL, "resume: %s has a damaged header (resume=off starts "
                       "afresh)", j->name);
    int rc = header_mismatch(j->name, hs, (size_t)(hl - hs), header, sp, err);
    if (rc)
        return rc;
    size_t n = j->np * j->T;
    j->lfin = calloc(n, 1);
    j->lsucc = calloc(n * j->nm, 1);
    j->liters = calloc(n * j->nm, sizeof *j->liters);
    j->lstarts = calloc(n * j->nm, sizeof *j->lstarts);
    j->lsecs = calloc(n * j->nm, sizeof *j->lsecs);
    if (!j->lfin || !j->lsucc || !j->liters || !j->lstarts || !j->lsecs)
        return cs_fail(err, CS_ENOMEM, "out of memory reading %s", j->path);
    p = nl + 1;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e || read_record(j, p, e))
            break; /* torn or damaged: the rest is dropped */
        p = e + 1;
    }
    size_t valid = (size_t)(p - text);
    if (valid < len && truncate(j->path, (off_t)valid) != 0)
        return cs_fail(err, CS_EIO, "cannot cut the torn end of %s: %s", j->path,
                       strerror(errno));
    j->f = fopen(j->path, "a");
    if (!j->f)
        return cs_fail(err, CS_EIO, "cannot open the journal %s: %s", j->path, strerror(errno));
    return sync_file(j, err);
}

int cs_sweep_journal_open(cs_sweep_journal **out, const char *path, const cs_sweep_spec *sp,
                          int resume, cs_err *err)
{
    *out = NULL;
    cs_sweep_journal *j = calloc(1, sizeof *j);
    char *header = cs_sweep_journal_header(sp);
    if (!j || !header) {
        free(j);
        free(header);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&j->mu, NULL);
    int rc = CS_OK;
    if (snprintf(j->path, sizeof j->path, "%s", path) >= (int)sizeof j->path) {
        rc = cs_fail(err, CS_EINVAL, "journal name too long");
        goto out;
    }
    const char *slash = strrchr(j->path, '/');
    j->name = slash ? slash + 1 : j->path;
    j->np = sp->nvalues;
    j->nm = sp->nmethods;
    j->T = sp->trials > 0 ? (size_t)sp->trials : 0;
    j->last_write = cs_now();
    int fresh = 1;
    if (resume) {
        char *text;
        size_t len;
        int r = read_all(j->path, &text, &len);
        if (r < 0) {
            rc = cs_fail(err, CS_EIO, "resume: cannot read %s: %s", j->path, strerror(errno));
            goto out;
        }
        if (r == 0) {
            rc = resume_file(j, text, len, header, sp, &fresh, err);
            free(text);
            if (rc)
                goto out;
        }
    }
    if (fresh)
        rc = create_file(j, header, err);
out:
    free(header);
    if (rc) {
        journal_free(j);
        return rc;
    }
    *out = j;
    return CS_OK;
}

int cs_sweep_journal_close(cs_sweep_journal *j, cs_err *err)
{
    if (!j)
        return CS_OK;
    pthread_mutex_lock(&j->mu);
    int rc = CS_OK;
    if (j->failed) {
        if (err)
            *err = j->err;
        rc = j->err.code ? j->err.code : CS_EIO;
    } else {
        rc = write_block(j, err);
    }
    pthread_mutex_unlock(&j->mu);
    if (j->f && fclose(j->f) != 0 && !rc)
        rc = cs_fail(err, CS_EIO, "cannot close the journal %s: %s", j->path, strerror(errno));
    j->f = NULL;
    journal_free(j);
    return rc;
}

int cs_sweep_journal_finish(cs_sweep_journal *j, cs_err *err)
{
    if (!j)
        return CS_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s", j->path);
    int rc = cs_sweep_journal_close(j, err);
    if (remove(path) != 0 && errno != ENOENT && !rc)
        rc = cs_fail(err, CS_EIO, "cannot remove the journal %s: %s", path, strerror(errno));
    return rc;
}
