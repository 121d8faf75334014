/* sweep_csv.c — success curves from sweep CSVs (sweep_csv.h). */
#include "sweep_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_parse.h"

#define MAX_COLS 32
#define NAME_LEN 128
#define LINE_LEN 4096

typedef struct row {
    char method[NAME_LEN];
    double x, y, e;
    size_t file;
} row;

typedef struct rows {
    row *r;
    size_t n, cap;
} rows;

/* Split a CSV line in place at commas (a sweep CSV quotes only fields
 * holding a comma, which its numbers and method texts do not). */
static size_t split(char *line, char **cols)
{
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < MAX_COLS;) {
        cols[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int col_of(char *const *head, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(head[i], name))
            return (int)i;
    return -1;
}

/* The data lines of a file (its '#' and blank lines skipped), the first
 * being the header; *line_no the file's line number of each. */
static int slurp_lines(const char *path, char ***lines, long **line_no, size_t *n, cs_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cs_fail(err, CS_EIO, "cannot open %s", path);
    char buf[LINE_LEN];
    size_t cap = 0;
    long k = 0;
    int rc = CS_OK;
    *lines = NULL, *line_no = NULL, *n = 0;
    while (fgets(buf, sizeof buf, f)) {
        k++;
        if (buf[0] == '#' || buf[0] == '\n' || buf[0] == '\r')
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **l = realloc(*lines, cap * sizeof *l);
            long *ln = l ? realloc(*line_no, cap * sizeof *ln) : NULL;
            if (l)
                *lines = l;
            if (ln)
                *line_no = ln;
            if (!l || !ln) {
                rc = cs_fail(err, CS_ENOMEM, "out of memory");
                break;
            }
        }
        if (!((*lines)[*n] = strdup(buf))) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
            break;
        }
        (*line_no)[(*n)++] = k;
    }
    fclose(f);
    return rc;
}

/* x: the column named, else the first when it is not `method` (a vary=
 * CSV), else the first of gamma, M, K whose values differ between rows. */
static int x_column(char *const *head, size_t nh, const char *xname, char **lines, size_t n)
{
    if (xname)
        return col_of(head, nh, xname);
    if (strcmp(head[0], "method"))
        return 0;
    static const char *const axes[] = {"gamma", "M", "K"};
    for (int k = 0; k < 3; k++) {
        int c = col_of(head, nh, axes[k]);
        char first[LINE_LEN] = "", copy[LINE_LEN], *cols[MAX_COLS];
        for (size_t i = 1; c >= 0 && i < n; i++) {
            snprintf(copy, sizeof copy, "%s", lines[i]);
            if (split(copy, cols) <= (size_t)c)
                break;
            if (i == 1)
                snprintf(first, sizeof first, "%s", cols[c]);
            else if (strcmp(first, cols[c]))
                return c;
        }
    }
    return col_of(head, nh, "gamma");
}

static int read_file(const char *path, size_t file, const char *xname, char *xvar, size_t xcap,
                     rows *out, cs_err *err)
{
    char **lines = NULL;
    long *line_no = NULL;
    size_t n = 0;
    int rc = slurp_lines(path, &lines, &line_no, &n, err);
    char headbuf[LINE_LEN], *head[MAX_COLS], copy[LINE_LEN], *cols[MAX_COLS];
    size_t nh = 0;
    int xc = -1, mc = -1, sc = -1, ec = -1;
    if (!rc && n < 2)
        rc = cs_fail(err, CS_EINVAL, "%s: no rows", path);
    if (!rc) {
        snprintf(headbuf, sizeof headbuf, "%s", lines[0]);
        nh = split(headbuf, head);
        mc = col_of(head, nh, "method");
        sc = col_of(head, nh, "success");
        ec = col_of(head, nh, "stderr");
        xc = x_column(head, nh, xname, lines, n);
        if (mc < 0 || sc < 0)
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: not a sweep CSV (no method and success "
                         "columns)", path, line_no[0]);
        else if (xc < 0)
            rc = cs_fail(err, CS_EINVAL, "%s: no column %s", path, xname ? xname : "gamma");
    }
    for (size_t i = 1; !rc && i < n; i++) {
        snprintf(copy, sizeof copy, "%s", lines[i]);
        size_t nc = split(copy, cols);
        if (nc != nh) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: %zu fields, the header has %zu", path,
                         line_no[i], nc, nh);
            break;
        }
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 64;
            row *r = realloc(out->r, cap * sizeof *r);
            if (!r) {
                rc = cs_fail(err, CS_ENOMEM, "out of memory");
                break;
            }
            out->r = r, out->cap = cap;
        }
        row *r = &out->r[out->n];
        memset(r, 0, sizeof *r);
        snprintf(r->method, sizeof r->method, "%s", cols[mc]);
        r->file = file;
        cs_err sub;
        if (cs_parse_double(cols[xc], &r->x, &sub) || cs_parse_double(cols[sc], &r->y, &sub) ||
            (ec >= 0 && cs_parse_double(cols[ec], &r->e, &sub)))
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: %s", path, line_no[i], sub.msg);
        else
            out->n++;
    }
    if (!rc)
        snprintf(xvar, xcap, "%s", head[xc]);
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(line_no);
    return rc;
}

int sweep_csv_read(const char *const *paths, const char *const *labels, size_t nfiles,
                   const char *x, sweep_csv_curves *c, cs_err *err)
{
    memset(c, 0, sizeof *c);
    rows all = {0};
    int rc = CS_OK;
    for (size_t f = 0; !rc && f < nfiles; f++) {
        char xv[32];
        rc = read_file(paths[f], f, x, xv, sizeof xv, &all, err);
        if (!rc && f == 0)
            snprintf(c->xvar, sizeof c->xvar, "%s", xv);
        else if (!rc && strcmp(xv, c->xvar))
            rc = cs_fail(err, CS_EINVAL, "%s: its x is %s, %s's is %s (give x=)", paths[f], xv,
                         paths[0], c->xvar);
    }
    /* a curve per (file, method), in the order they first appear */
    size_t *key = rc ? NULL : calloc(all.n + 1, sizeof *key);
    c->series = rc ? NULL : calloc(all.n + 1, sizeof *c->series);
    c->mem = rc ? NULL : malloc((3 * all.n + 1) * sizeof *c->mem);
    c->names = rc ? NULL : calloc(all.n + 1, NAME_LEN * 2);   /* "method (label)" */
    if (!rc && (!key || !c->series || !c->mem || !c->names))
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    size_t used = 0;
    for (size_t i = 0; !rc && i < all.n; i++) {
        if (key[i])
            continue;
        size_t s = c->nseries++;
        cs_plot_series *ser = &c->series[s];
        char *name = c->names + s * NAME_LEN * 2;
        const row *r0 = &all.r[i];
        if (nfiles == 1) {
            snprintf(name, NAME_LEN * 2, "%s", r0->method);
        } else {
            char label[NAME_LEN];
            const char *p = labels && labels[r0->file] ? labels[r0->file] : paths[r0->file];
            const char *slash = strrchr(p, '/');
            snprintf(label, sizeof label, "%s", labels && labels[r0->file] ? p
                                                 : slash ? slash + 1 : p);
            char *dot = labels && labels[r0->file] ? NULL : strrchr(label, '.');
            if (dot && !strcmp(dot, ".csv"))
                *dot = '\0';
            snprintf(name, NAME_LEN * 2, "%.*s (%.*s)", NAME_LEN - 1, r0->method, NAME_LEN - 8,
                     label);
        }
        double *xs = c->mem + used, *ys = xs + all.n, *es = ys + all.n;
        size_t k = 0;
        for (size_t j = i; j < all.n; j++)
            if (!key[j] && all.r[j].file == r0->file && !strcmp(all.r[j].method, r0->method)) {
                key[j] = s + 1;
                xs[k] = all.r[j].x, ys[k] = all.r[j].y, es[k] = all.r[j].e;
                k++;
            }
        *ser = (cs_plot_series){.name = name, .x = xs, .y = ys, .err = es, .n = k};
        used += k;
    }
    free(key);
    free(all.r);
    if (rc)
        sweep_csv_free(c);
    return rc;
}

void sweep_csv_free(sweep_csv_curves *c)
{
    free(c->series);
    free(c->mem);
    free(c->names);
    memset(c, 0, sizeof *c);
}
