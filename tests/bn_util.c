/* bn_util.c — see bn_util.h. */
#include "bn_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bn_out_name[BN_OUTS] = {"out",     "mean", "rstd",   "running mean",
                                          "running var", "eval out", "dinp", "dgamma",
                                          "dbeta",   "dres"};

/* uniform in [-1, 1) (an LCG: the same draws everywhere) */
static double draw(unsigned long long *r)
{
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*r >> 11) / 4503599627370496.0 - 1.0;
}

static float *fill(size_t n)
{
    return calloc(n ? n : 1, sizeof(float));
}

int bn_in_new(bn_in *in, int B, int C, int HW, int kind, unsigned long seed)
{
    memset(in, 0, sizeof *in);
    in->B = B;
    in->C = C;
    in->HW = HW;
    in->kind = kind;
    size_t n = (size_t)B * C * HW;
    in->x = fill(n);
    in->sc = fill(n);
    in->dy = fill(n);
    in->gamma = fill(C);
    in->beta = fill(C);
    in->rm = fill(C);
    in->rv = fill(C);
    if (!in->x || !in->sc || !in->dy || !in->gamma || !in->beta || !in->rm || !in->rv) {
        bn_in_free(in);
        return -1;
    }
    unsigned long long r = seed * 2654435761ULL + 1;
    for (int c = 0; c < C; c++) {   /* each channel its own mean and spread, as a conv's */
        double mu = 0.5 * draw(&r), sd = 0.6 + 0.5 * draw(&r);
        in->gamma[c] = (float)(0.9 + 0.3 * draw(&r));
        in->beta[c] = (float)(0.2 * draw(&r));
        in->rm[c] = (float)(0.2 * draw(&r));
        in->rv[c] = (float)(1.0 + 0.5 * draw(&r));
        for (int b = 0; b < B; b++)
            for (int i = 0; i < HW; i++)
                in->x[((size_t)b * C + c) * HW + i] = (float)(mu + sd * draw(&r));
    }
    for (size_t i = 0; i < n; i++) {
        in->sc[i] = (float)(0.5 * draw(&r));
        in->dy[i] = (float)draw(&r);
    }
    return 0;
}

void bn_in_free(bn_in *in)
{
    float *p[] = {in->x, in->sc, in->dy, in->gamma, in->beta, in->rm, in->rv};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        free(p[i]);
    memset(in, 0, sizeof *in);
}

static float **out_slot(bn_out *o, int k)
{
    float **s[BN_OUTS] = {&o->y, &o->mean, &o->rstd, &o->rm, &o->rv,
                          &o->ye, &o->dx,  &o->dg,   &o->db, &o->dres};
    return s[k];
}

/* the elements of output k */
static size_t out_len(const bn_in *in, int k)
{
    size_t n = (size_t)in->B * in->C * in->HW;
    return k == 0 || k == 5 || k == 6 || k == 9 ? n : (size_t)in->C;
}

int bn_out_new(bn_out *o, const bn_in *in)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < BN_OUTS; k++)
        if (!(*out_slot(o, k) = fill(out_len(in, k)))) {
            bn_out_free(o);
            return -1;
        }
    return 0;
}

void bn_out_free(bn_out *o)
{
    for (int k = 0; k < BN_OUTS; k++)
        free(*out_slot(o, k));
    memset(o, 0, sizeof *o);
}

enum { D_X, D_SC, D_G, D_B, D_RM, D_RV, D_RM2, D_RV2, D_DY, D_BM, D_BR, D_BZ, D_M2, D_R2, D_IN };

int bn_run(const cs_nn_ops *ops, const bn_in *in, bn_out *o, const bn_out *fwd, char *why,
           size_t len)
{
    int B = in->B, C = in->C, HW = in->HW, rc = -1;
    size_t n = (size_t)B * C * HW, nb = n * sizeof(float), cb = (size_t)C * sizeof(float);
    /* the inputs, then the outputs in bn_out's order */
    float *d[D_IN + BN_OUTS] = {0};
    const float *src[D_IN] = {in->x,  in->sc, in->gamma, in->beta, in->rm, in->rv, in->rm,
                              in->rv, in->dy, NULL,      NULL,     NULL,   NULL,   NULL};
    size_t bytes[D_IN] = {nb, nb, cb, cb, cb, cb, cb, cb, nb, cb, cb, nb, cb, cb};
    for (int i = 0; i < D_IN + BN_OUTS; i++) {
        size_t b = i < D_IN ? bytes[i] : out_len(in, i - D_IN) * sizeof(float);
        if (!(d[i] = ops->alloc(b))) {
            snprintf(why, len, "%s: no memory", ops->name);
            goto out;
        }
        if (i < D_IN && src[i] && ops->upload(d[i], src[i], b)) {
            snprintf(why, len, "%s: upload failed", ops->name);
            goto out;
        }
    }
    float *y = d[D_IN], *mean = d[D_IN + 1], *rstd = d[D_IN + 2], *ye = d[D_IN + 5],
          *dx = d[D_IN + 6], *dg = d[D_IN + 7], *db = d[D_IN + 8], *dres = d[D_IN + 9];
    /* the running statistics of the training run end in rm, rv */
    for (int train = 1; train >= 0; train--) {
        float *out = train ? y : ye, *m = train ? mean : d[D_M2], *r = train ? rstd : d[D_R2],
              *rm = train ? d[D_RM] : d[D_RM2], *rv = train ? d[D_RV] : d[D_RV2];
        if (in->kind == BN_ADD_RELU)
            ops->bn_add_relu_forward(out, d[D_X], d[D_SC], d[D_G], d[D_B], m, r, rm, rv, B, C, HW,
                                     1, C, HW, 1, train);
        else if (in->kind == BN_RELU)
            ops->bn_relu_forward(out, d[D_X], d[D_G], d[D_B], m, r, rm, rv, B, C, HW, train);
        else
            ops->bn_forward(out, d[D_X], d[D_G], d[D_B], m, r, rm, rv, B, C, HW, train);
    }
    if (ops->download(o->y, y, nb) || ops->download(o->mean, mean, cb) ||
        ops->download(o->rstd, rstd, cb) || ops->download(o->rm, d[D_RM], cb) ||
        ops->download(o->rv, d[D_RV], cb) || ops->download(o->ye, ye, nb)) {
        snprintf(why, len, "%s: download failed", ops->name);
        goto out;
    }
    /* the backward from fwd's statistics and output (or this run's) */
    const bn_out *f = fwd ? fwd : o;
    if (ops->upload(d[D_BM], f->mean, cb) || ops->upload(d[D_BR], f->rstd, cb) ||
        ops->upload(d[D_BZ], f->y, nb)) {
        snprintf(why, len, "%s: upload failed", ops->name);
        goto out;
    }
    if (in->kind == BN_ADD_RELU)
        ops->bn_add_relu_backward(dx, dg, db, dres, d[D_DY], NULL, d[D_BZ], d[D_X], d[D_G],
                                  d[D_BM], d[D_BR], B, C, HW);
    else if (in->kind == BN_RELU)
        ops->bn_relu_backward(dx, dg, db, d[D_DY], d[D_BZ], d[D_X], d[D_G], d[D_B], d[D_BM],
                              d[D_BR], B, C, HW);
    else
        ops->bn_backward(dx, dg, db, d[D_DY], d[D_X], d[D_G], d[D_BM], d[D_BR], B, C, HW);
    if (ops->download(o->dx, dx, nb) || ops->download(o->dg, dg, cb) ||
        ops->download(o->db, db, cb) || ops->download(o->dres, dres, nb)) {
        snprintf(why, len, "%s: download failed", ops->name);
        goto out;
    }
    char msg[256];
    if (ops->error && ops->error(msg, sizeof msg)) {
        snprintf(why, len, "%s: %s", ops->name, msg);
        goto out;
    }
    rc = 0;
out:
    for (int i = 0; i < D_IN + BN_OUTS; i++)
        if (d[i])
            ops->release(d[i]);
    return rc;
}

double bn_out_err(const bn_in *in, const bn_out *a, const bn_out *b, const bn_out *ref,
                  double *err)
{
    double worst = 0;
    for (int k = 0; k < BN_OUTS; k++) {
        err[k] = -1;
        if (k == 9 && in->kind != BN_ADD_RELU)
            continue;
        const float *pa = *out_slot((bn_out *)a, k), *pb = *out_slot((bn_out *)b, k),
                    *pr = *out_slot((bn_out *)ref, k);
        double e = 0, m = 1e-6;
        for (size_t i = 0; i < out_len(in, k); i++) {
            double dd = fabs((double)pa[i] - pb[i]);
            e = dd > e || isnan(dd) ? (isnan(dd) ? INFINITY : dd) : e;
            m = fabs(pr[i]) > m ? fabs(pr[i]) : m;
        }
        err[k] = e / m;
        worst = err[k] > worst ? err[k] : worst;
    }
    return worst;
}
