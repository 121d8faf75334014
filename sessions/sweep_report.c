/* sweep_report.c — the caption, the terminal's table and the JSON rows of
 * `sweep`. The CSV itself goes only into out= (cs_sweep_write_csv). */
#include "sweep_report.h"

#include <math.h>
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
    cs_result_text(res, "sweep %s\n%-8s", caption, axes[s->axis]);
    size_t np = nm ? r->nrows / nm : 0;
    int width[32];
    for (size_t m = 0; m < nm && m < 32; m++) {
        width[m] = (int)strlen(methods[m]) + 2;
        if (width[m] < 16)
            width[m] = 16;
        cs_result_text(res, "%-*s", m + 1 < nm ? width[m] : 0, methods[m]);
    }
    cs_result_text(res, "\n");
    for (size_t p = 0; p < np; p++) {
        const cs_sweep_row *w = &r->rows[p];
        if (s->axis == 0)
            cs_result_text(res, "%-8g", w->gamma);
        else
            cs_result_text(res, "%-8zu", s->axis == 1 ? w->M : w->K);
        for (size_t m = 0; m < nm && m < 32; m++) {
            const cs_sweep_row *c = &r->rows[m * np + p];
            char cell[48];
            snprintf(cell, sizeof cell, "%.3f ± %.3f", c->success, c->stderr_);
            /* ± is two bytes and one column */
            cs_result_text(res, "%-*s", m + 1 < nm ? width[m] + 1 : 0, cell);
        }
        cs_result_text(res, "\n");
    }
    cs_result_text(res, "(success rate ± its standard error over the trials)\n");
    cs_result_text_human_only(res);
    cs_result_json_written(res, "_rows", rows_json, r);
}
