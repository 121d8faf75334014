/* sweep_report.c — the caption, the terminal's table and the JSON rows of
 * `sweep`. The CSV itself goes only into out= (cs_sweep_write_csv). */
#include "sweep_report.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void sweep_caption(const sweep_setting *s, char *buf, size_t len)
{
    char fixed[48] = "";
    if (s->axis == 2 && s->M)
        snprintf(fixed, sizeof fixed, ", M = %zu", s->M);
    else if (s->axis == 2)
        snprintf(fixed, sizeof fixed, ", gamma = %g", s->gamma);
    snprintf(buf, len, "%s recovery, N = %ld%s, %ld trial%s per point, up to %ld start%s, %ld "
             "iterations, stop %s", s->kind, s->N, fixed, s->trials, s->trials == 1 ? "" : "s",
             s->starts, s->starts == 1 ? "" : "s", s->maxit, s->stop);
}

void sweep_xlabel(const sweep_setting *s, char *buf, size_t len)
{
    if (s->axis == 0)
        snprintf(buf, len, "undersampling ratio gamma = M/N (N = %ld)", s->N);
    else if (s->axis == 1)
        snprintf(buf, len, "number of measurements M (N = %ld)", s->N);
    else if (!strcmp(s->kind, "orth"))
        snprintf(buf, len, "K = number of columns of X (N = %ld)", s->N);
    else
        snprintf(buf, len, "K = number of nonzero entries of x* (N = %ld)", s->N);
}

static void rows_json(FILE *json, FILE *text, const void *ctx)
{
    (void)text;
    const cs_sweep_result *r = ctx;
    fputc('[', json);
    for (size_t i = 0; i < r->nrows; i++) {
        const cs_sweep_row *w = &r->rows[i];
        int first = 1;
        fputs(i ? ",{" : "{", json);
        if (r->vary[0])
            cs_json_num_member(json, &first, r->vary, w->vary);
        cs_json_str_member(json, &first, "method", w->method);
        cs_json_num_member(json, &first, "N", (double)w->N);
        cs_json_num_member(json, &first, "M", (double)w->M);
        cs_json_num_member(json, &first, "gamma", w->gamma);
        cs_json_num_member(json, &first, "K", (double)w->K);
        cs_json_num_member(json, &first, "trials", (double)w->trials);
        cs_json_num_member(json, &first, "success", w->success);
        cs_json_num_member(json, &first, "stderr", w->stderr_);
        cs_json_num_member(json, &first, "mean_iters", w->mean_iters);
        cs_json_num_member(json, &first, "mean_restarts", w->mean_restarts);
        cs_json_num_member(json, &first, "seconds", w->seconds);
        fputc('}', json);
    }
    fputc(']', json);
}

void sweep_report(cs_result *res, const cs_sweep_result *r, const sweep_setting *s,
                  const char *const *methods, size_t nm)
{
    static const char *const axes[] = {"gamma", "M", "K"};
    char caption[256];
    sweep_caption(s, caption, sizeof caption);
    cs_result_text(res, "sweep %s\n", caption);
    if (r->vary[0])
        cs_result_text(res, "%-8s", r->vary);
    cs_result_text(res, "%-8s", axes[s->axis]);
    int width[32];
    for (size_t m = 0; m < nm && m < 32; m++) {
        width[m] = (int)strlen(methods[m]) + 2;
        if (width[m] < 16)
            width[m] = 16;
        cs_result_text(res, "%-*s", m + 1 < nm ? width[m] : 0, methods[m]);
    }
    cs_result_text(res, "\n");
    /* a block of rows per value of vary= (one block without it) */
    for (size_t b0 = 0, b1; b0 < r->nrows; b0 = b1) {
        for (b1 = b0 + 1; b1 < r->nrows && r->vary[0] && r->rows[b1].vary == r->rows[b0].vary;)
            b1++;
        if (!r->vary[0])
            b1 = r->nrows;
        size_t np = nm ? (b1 - b0) / nm : 0;
        for (size_t p = 0; p < np; p++) {
            const cs_sweep_row *w = &r->rows[b0 + p];
            if (r->vary[0])
                cs_result_text(res, "%-8g", w->vary);
            if (s->axis == 0)
                cs_result_text(res, "%-8g", w->gamma);
            else
                cs_result_text(res, "%-8zu", s->axis == 1 ? w->M : w->K);
            for (size_t m = 0; m < nm && m < 32; m++) {
                const cs_sweep_row *c = &r->rows[b0 + m * np + p];
                char cell[48];
                snprintf(cell, sizeof cell, "%.3f ± %.3f", c->success, c->stderr_);
                /* ± is two bytes and one column */
                cs_result_text(res, "%-*s", m + 1 < nm ? width[m] + 1 : 0, cell);
            }
            cs_result_text(res, "\n");
        }
    }
    cs_result_text(res, "(success rate ± its standard error over the trials)\n");
    cs_result_text_human_only(res);
    cs_result_json_written(res, "_rows", rows_json, r);
}

int sweep_curves_make(const cs_sweep_result *r, const char *const *methods, size_t nm,
                      int axis, sweep_curves *c, cs_err *err)
{
    static const char *const axes[] = {"gamma", "M", "K"};
    memset(c, 0, sizeof *c);
    c->xvar = axes[axis];
    size_t nb = 0, n = r->nrows;   /* blocks: values of vary= */
    for (size_t i = 0; i < n; i++)
        nb += i == 0 || (r->vary[0] && r->rows[i].vary != r->rows[i - 1].vary);
    size_t per = nb && nm ? n / nb / nm : 0;   /* points a curve (full blocks) */
    int over_vary = r->vary[0] && nb > 1 && per == 1;
    size_t ns = over_vary || nb == 0 ? nm : nb * nm;
    c->series = calloc(ns ? ns : 1, sizeof *c->series);
    c->mem = malloc((3 * (n ? n : 1) + 1) * sizeof *c->mem);
    c->names = calloc(ns ? ns : 1, 160);
    if (!c->series || !c->mem || !c->names) {
        sweep_curves_free(c);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    c->nseries = ns;
    double *x = c->mem, *y = x + n, *e = y + n;
    if (over_vary) {
        /* one curve per method over the values: block b's row m */
        c->xvar = r->vary;
        for (size_t m = 0; m < nm; m++) {
            for (size_t b = 0; b < nb; b++) {
                const cs_sweep_row *w = &r->rows[b * nm + m];
                x[m * nb + b] = w->vary;
                y[m * nb + b] = w->success;
                e[m * nb + b] = w->stderr_;
            }
            c->series[m] = (cs_plot_series){.name = methods[m], .x = x + m * nb,
                                            .y = y + m * nb, .err = e + m * nb, .n = nb};
        }
        return CS_OK;
    }
    /* one curve per method (and value): the block's rows in order */
    size_t k = 0;
    for (size_t b0 = 0, b1; b0 < n; b0 = b1) {
        for (b1 = b0 + 1; b1 < n && r->vary[0] && r->rows[b1].vary == r->rows[b0].vary;)
            b1++;
        if (!r->vary[0])
            b1 = n;
        size_t np = nm ? (b1 - b0) / nm : 0;
        for (size_t m = 0; m < nm && k < ns; m++, k++) {
            for (size_t p = 0; p < np; p++) {
                const cs_sweep_row *w = &r->rows[b0 + m * np + p];
                size_t i = b0 + m * np + p;
                x[i] = axis == 0 ? w->gamma : axis == 1 ? (double)w->M : (double)w->K;
                y[i] = w->success;
                e[i] = w->stderr_;
            }
            char *name = c->names + k * 160;
            if (r->vary[0])
                snprintf(name, 160, "%s %s=%g", methods[m], r->vary, r->rows[b0].vary);
            else
                snprintf(name, 160, "%s", methods[m]);
            size_t i0 = b0 + m * np;
            c->series[k] = (cs_plot_series){.name = name, .x = x + i0, .y = y + i0,
                                            .err = e + i0, .n = np};
        }
    }
    c->nseries = k;
    return CS_OK;
}

void sweep_curves_free(sweep_curves *c)
{
    free(c->series);
    free(c->mem);
    free(c->names);
    memset(c, 0, sizeof *c);
}
