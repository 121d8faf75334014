/* nn_io.c — network checkpoints: a versioned little-endian binary file (and
 * .npz paths and ZIP files sent to nn_npz.c).
 *
 *   "CSNN"  u32 version  u32 kind  u32 nhidden  u32 hidden[8]
 *   version 2 and 3: u32 nconv, u32 conv[16] (0: a pool), u32 kernel, u32 pad
 *   version 3 only: f32 mean, f32 std (the pixel normalization)
 *   version 4 only: u32 channels, height, width (before pad), classes;
 *     per channel f32 mean, f32 std (0, 0: the fixed default)
 *   u32 ntensors, per tensor: char name[24], u64 count
 *   u64 nbufs (batch-norm running statistics)
 *   u32 nwl, per weight layer: u32 quant (0/1/2), u64 rows, u64 cols
 *   f32 params[Σ count]  f32 bufs[nbufs]
 *   per quantized weight layer: i8 sign[rows·cols]
 *   u32 CRC-32 (zlib) of every byte before it
 *
 * Loading checks the magic, the version, the CRC, then that every shape
 * matches the architecture the header names. Written atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <math.h>
#include <sys/stat.h>

#include "cs_file.h"
#include "nn_internal.h"
#include "cs_bytes.h"
#include "nn_validate.h"

#define NN_FILE_MAX ((size_t)1 << 31)

typedef cs_bytes wbuf;

static void put(wbuf *b, const void *src, size_t n) { cs_bytes_put(b, src, n); }

static void put_u32(wbuf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(b, c, 4);
}

static void put_u64(wbuf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

/* Whether version 1 describes the network: an mlp or the default cnn, no pad. */
static int fits_v1(const cs_nn_config *c)
{
    static const int def[6] = {16, 16, CS_NN_CONV_POOL, 32, 32, CS_NN_CONV_POOL};
    if (c->pad || c->kind == CS_NN_RESNET20)
        return 0;
    return c->kind == CS_NN_MLP ||
           (c->kernel == 3 && c->nconv == 6 && !memcmp(c->conv, def, sizeof def));
}

/* Whether the network takes the default input: 1×28×28, 10 classes
 * (else version 4 describes it). */
static int default_shape(const cs_nn_config *c)
{
    return c->channels == 1 && c->height == CS_NN_IMG && c->width == CS_NN_IMG &&
           c->classes == CS_NN_CLASSES;
}

static void put_f32(wbuf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, u);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

int cs_nn_save(cs_nn *nn, const char *path, int force, const cs_cancel *cancel, cs_err *err)
{
    if (has_suffix(path, ".npz"))
        return cs_nn_save_npz(nn, path, force, cancel, err);
    wbuf b = {0};
    int v4 = !default_shape(&nn->cfg);
    int v3 = !v4 && nn->cfg.in_std[0] > 0;   /* its own normalization */
    int v1 = fits_v1(&nn->cfg) && !v3 && !v4;
    put(&b, "CSNN", 4);
    put_u32(&b, v1 ? CS_NN_FILE_VERSION : v4 ? 4u : v3 ? 3u : 2u);
    put_u32(&b, (uint32_t)nn->cfg.kind);
    put_u32(&b, (uint32_t)nn->cfg.nhidden);
    for (int i = 0; i < CS_NN_MAX_HIDDEN; i++)
        put_u32(&b, (uint32_t)nn->cfg.hidden[i]);
    if (!v1) {   /* version 2: the cnn's list, kernel, pad */
        put_u32(&b, (uint32_t)nn->cfg.nconv);
        for (int i = 0; i < CS_NN_MAX_CONV; i++)
            put_u32(&b, (uint32_t)nn->cfg.conv[i]);
        put_u32(&b, (uint32_t)nn->cfg.kernel);
        put_u32(&b, (uint32_t)nn->cfg.pad);
    }
    if (v3) {   /* version 3: the pixel normalization, two f32 */
        put_f32(&b, nn->cfg.in_mean[0]);
        put_f32(&b, nn->cfg.in_std[0]);
    }
    if (v4) {   /* version 4: the input's shape, the classes, each channel's normalization */
        put_u32(&b, (uint32_t)nn->cfg.channels);
        put_u32(&b, (uint32_t)nn->cfg.height);
        put_u32(&b, (uint32_t)nn->cfg.width);
        put_u32(&b, (uint32_t)nn->cfg.classes);
        for (int c = 0; c < nn->cfg.channels; c++) {
            put_f32(&b, nn->cfg.in_mean[c]);
            put_f32(&b, nn->cfg.in_std[c]);
        }
    }
    put_u32(&b, (uint32_t)nn->nt);
    for (int i = 0; i < nn->nt; i++) {
        char name[24] = {0};
        snprintf(name, sizeof name, "%s", nn->t[i].name);
        put(&b, name, sizeof name);
        put_u64(&b, nn->t[i].n);
    }
    put_u64(&b, nn->nbufs);
    put_u32(&b, (uint32_t)nn->nwl);
    for (int i = 0; i < nn->nwl; i++) {
        put_u32(&b, (uint32_t)nn->wl[i].quant);
        put_u64(&b, nn->wl[i].rows);
        put_u64(&b, nn->wl[i].cols);
    }
    size_t pbytes = nn->nparams * sizeof(float), bbytes = nn->nbufs * sizeof(float);
    float *hp = malloc(pbytes + bbytes + sizeof(float));
    if (!hp) {
        free(b.p);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    if (nn->ops->download(hp, nn->params, pbytes) ||
        nn->ops->download(hp + nn->nparams, nn->bufs, bbytes)) {
        free(hp);
        free(b.p);
        return nn_device_fail(nn, "download", err);
    }
    put(&b, hp, pbytes + bbytes);   /* little-endian IEEE hosts only */
    for (int i = 0; i < nn->nwl && !b.oom; i++) {
        nn_wlayer *w = &nn->wl[i];
        if (!w->quant)
            continue;
        size_t n = w->rows * w->cols;
        float *s = realloc(hp, n * sizeof *s);
        if (!s) {
            b.oom = 1;
            break;
        }
        hp = s;
        nn->ops->download(s, w->sign, n * sizeof *s);
        for (size_t k = 0; k < n; k++) {
            signed char c = (signed char)(s[k] > 0 ? 1 : s[k] < 0 ? -1 : 0);
            put(&b, &c, 1);
        }
    }
    free(hp);
    if (b.oom) {
        free(b.p);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    put_u32(&b, (uint32_t)crc32(0L, b.p, (uInt)(b.n)));
    cs_afile af;
    int rc = cs_afile_open(&af, path, !force, err);
    if (!rc) {
        af.cancel = cancel;
        rc = cs_afile_write(&af, b.p, b.n, err);
        if (rc)
            cs_afile_abort(&af);
        else
            rc = cs_afile_commit(&af, err);
    }
    free(b.p);
    return rc;
}

typedef struct rbuf {
    const unsigned char *p;
    size_t n, pos;
} rbuf;

static int get(rbuf *r, void *dst, size_t n)
{
    if (r->n - r->pos < n)
        return -1;
    memcpy(dst, r->p + r->pos, n);
    r->pos += n;
    return 0;
}

static int get_u32(rbuf *r, uint32_t *v)
{
    unsigned char c[4];
    if (get(r, c, 4))
        return -1;
    *v = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
    return 0;
}

static int get_u64(rbuf *r, uint64_t *v)
{
    uint32_t lo, hi;
    if (get_u32(r, &lo) || get_u32(r, &hi))
        return -1;
    *v = (uint64_t)hi << 32 | lo;
    return 0;
}

static int read_all(const char *path, unsigned char **data, size_t *n, cs_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(err, CS_EIO, "%s: cannot open", path);
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return cs_fail(err, CS_EIO, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > NN_FILE_MAX) {
        fclose(f);
        return cs_fail(err, CS_EINVAL, "%s: too large for a model file (%lld bytes)", path,
                       (long long)st.st_size);
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *p = malloc(cap);
    while (p) {
        if (len == cap) {
            if (cap >= NN_FILE_MAX) {
                free(p);
                fclose(f);
                return cs_fail(err, CS_EINVAL, "%s: too large for a model file", path);
            }
            unsigned char *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
        size_t r = fread(p + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory reading %s", path);
    if (bad) {
        free(p);
        return cs_fail(err, CS_EIO, "%s: read error", path);
    }
    *data = p;
    *n = len;
    return CS_OK;
}

#define BAD(...)                                                                               \
    do {                                                                                       \
        rc = cs_fail(err, CS_EINVAL, __VA_ARGS__);                                             \
        goto done;                                                                             \
    } while (0)

int cs_nn_load(cs_nn **out, const char *path, const char *device, cs_err *err)
{
    *out = NULL;
    unsigned char *data = NULL;
    size_t n = 0;
    int rc = read_all(path, &data, &n, err);
    if (rc)
        return rc;
    cs_nn *nn = NULL, *plan = NULL;
    float *hp = NULL;
    rbuf r = {data, n, 0};
    char magic[4];
    uint32_t version, kind, nh, hidden[CS_NN_MAX_HIDDEN], nt, nwl;
    uint64_t nbufs;
    if (n >= 4 && !memcmp(data, "PK\x03\x04", 4)) {   /* a ZIP: an .npz */
        free(data);
        return cs_nn_load_npz(out, path, device, err);
    }
    if (get(&r, magic, 4) || memcmp(magic, "CSNN", 4) != 0)
        BAD("%s: not a csreg model file (no CSNN magic)", path);
    if (get_u32(&r, &version))
        BAD("%s: truncated header", path);
    if (version < CS_NN_FILE_VERSION || version > CS_NN_FILE_VERSION_MAX)
        BAD("%s: model file version %u, this csreg reads versions %d to %d", path, version,
            CS_NN_FILE_VERSION, CS_NN_FILE_VERSION_MAX);
    if (n < 12)
        BAD("%s: truncated", path);
    {
        rbuf t = {data + n - 4, 4, 0};
        uint32_t want;
        get_u32(&t, &want);
        uint32_t got = (uint32_t)crc32(0L, data, (uInt)(n - 4));
        if (want != got)
            BAD("%s: CRC mismatch (file says %08x, contents give %08x): the file is corrupt or "
                "truncated",
                path, want, got);
        r.n = n - 4;
    }
    if (get_u32(&r, &kind) || get_u32(&r, &nh))
        BAD("%s: truncated header", path);
    for (int i = 0; i < CS_NN_MAX_HIDDEN; i++)
        if (get_u32(&r, &hidden[i]))
            BAD("%s: truncated header", path);
    if (kind > (version == 1 ? CS_NN_CNN : CS_NN_RESNET20) ||
        nh < (kind == CS_NN_RESNET20 ? 0u : 1u) || nh > CS_NN_MAX_HIDDEN)
        BAD("%s: bad model description (kind %u, %u hidden layers)", path, kind, nh);
    cs_nn_config cfg = {.kind = (cs_nn_kind)kind, .nhidden = (int)nh, .device = device};
    for (uint32_t i = 0; i < nh; i++) {
        if (hidden[i] < 1 || hidden[i] > 16384)
            BAD("%s: bad hidden size %u", path, hidden[i]);
        cfg.hidden[i] = (int)hidden[i];
    }
    if (version >= 2) {   /* nn_plan checks the ranges */
        uint32_t nconv, conv[CS_NN_MAX_CONV], kernel, pad;
        if (get_u32(&r, &nconv))
            BAD("%s: truncated header", path);
        for (int i = 0; i < CS_NN_MAX_CONV; i++)
            if (get_u32(&r, &conv[i]))
                BAD("%s: truncated header", path);
        if (get_u32(&r, &kernel) || get_u32(&r, &pad))
            BAD("%s: truncated header", path);
        if (nconv > CS_NN_MAX_CONV || kernel > 7 || pad > CS_NN_MAX_PAD)
            BAD("%s: bad model description (%u convolutions, kernel %u, pad %u)", path, nconv,
                kernel, pad);
        cfg.nconv = (int)nconv;
        for (int i = 0; i < CS_NN_MAX_CONV; i++)
            cfg.conv[i] = conv[i] > 1024 ? -1 : (int)conv[i];
        cfg.kernel = (int)kernel;
        cfg.pad = (int)pad;
    }
    if (version == 3) {   /* the pixel normalization */
        uint32_t u[2];
        if (get_u32(&r, &u[0]) || get_u32(&r, &u[1]))
            BAD("%s: truncated header", path);
        memcpy(&cfg.in_mean[0], &u[0], 4);
        memcpy(&cfg.in_std[0], &u[1], 4);
        if (!isfinite(cfg.in_mean[0]) || !isfinite(cfg.in_std[0]) || !(cfg.in_std[0] > 0))
            BAD("%s: bad pixel normalization (mean %g, std %g)", path, (double)cfg.in_mean[0],
                (double)cfg.in_std[0]);
    }
    if (version == 4) {   /* the input's shape and classes, each channel's normalization */
        uint32_t sh[4], u[2];
        for (int i = 0; i < 4; i++)
            if (get_u32(&r, &sh[i]))
                BAD("%s: truncated header", path);
        if (sh[0] < 1 || sh[0] > CS_NN_MAX_CHANNELS || sh[1] < 1 || sh[1] > CS_NN_MAX_SIDE ||
            sh[2] < 1 || sh[2] > CS_NN_MAX_SIDE || sh[3] < 1 || sh[3] > CS_NN_MAX_CLASSES)
            BAD("%s: bad input shape (%u×%u×%u, %u classes)", path, sh[0], sh[1], sh[2], sh[3]);
        cfg.channels = (int)sh[0];
        cfg.height = (int)sh[1];
        cfg.width = (int)sh[2];
        cfg.classes = (int)sh[3];
        for (uint32_t c = 0; c < sh[0]; c++) {
            if (get_u32(&r, &u[0]) || get_u32(&r, &u[1]))
                BAD("%s: truncated header", path);
            memcpy(&cfg.in_mean[c], &u[0], 4);
            memcpy(&cfg.in_std[c], &u[1], 4);
            int fixed = cfg.in_mean[c] == 0 && cfg.in_std[c] == 0 && sh[0] == 1;
            if (!fixed && (!isfinite(cfg.in_mean[c]) || !isfinite(cfg.in_std[c]) ||
                           !(cfg.in_std[c] > 0)))
                BAD("%s: bad pixel normalization of channel %u (mean %g, std %g)", path, c + 1,
                    (double)cfg.in_mean[c], (double)cfg.in_std[c]);
        }
    }
    /* the header against the shapes it names, and the file's length against
     * the header, before anything of the network's size is allocated: a
     * forged small file must not make us build a huge network */
    plan = nn_planned(&cfg, NN_PLAN_BATCH, err);
    if (!plan) {
        rc = err ? err->code : CS_EINVAL;
        goto done;
    }
    nn = plan;
    if (get_u32(&r, &nt))
        BAD("%s: truncated header", path);
    if (nt != (uint32_t)nn->nt)
        BAD("%s: %u tensors in the file, the %s model has %d", path, nt,
            cs_nn_kind_name((cs_nn_kind)kind), nn->nt);
    for (int i = 0; i < nn->nt; i++) {
        char name[24];
        uint64_t cnt;
        if (get(&r, name, sizeof name) || get_u64(&r, &cnt))
            BAD("%s: truncated header", path);
        name[23] = 0;
        if (strcmp(name, nn->t[i].name) != 0 || cnt != nn->t[i].n)
            BAD("%s: shape mismatch: tensor %d is %s[%llu] in the file, the model needs %s[%zu]",
                path, i, name, (unsigned long long)cnt, nn->t[i].name, nn->t[i].n);
    }
    if (get_u64(&r, &nbufs) || nbufs != nn->nbufs)
        BAD("%s: shape mismatch in the batch-norm statistics", path);
    if (get_u32(&r, &nwl) || nwl != (uint32_t)nn->nwl)
        BAD("%s: shape mismatch: weight layer count", path);
    uint32_t quant[NN_MAX_WL];
    size_t signs = 0;
    for (int i = 0; i < nn->nwl; i++) {
        uint64_t rows, cols;
        if (get_u32(&r, &quant[i]) || get_u64(&r, &rows) || get_u64(&r, &cols))
            BAD("%s: truncated header", path);
        if ((rc = nn_validate_wlayer(path, &nn->wl[i], quant[i], rows, cols, err)))
            goto done;
        if (quant[i])
            signs += nn->wl[i].rows * nn->wl[i].cols;
    }
    {
        size_t want = r.pos + (nn->nparams + nn->nbufs) * sizeof(float) + signs + 4;
        if (want != n)
            BAD("%s: the file is %zu bytes, its header describes %zu (%s, %zu parameters): "
                "truncated or forged", path, n, want, cs_nn_kind_name((cs_nn_kind)kind),
                cs_nn_param_count(nn));
    }
    nn = NULL;
    rc = cs_nn_build(&nn, &cfg, 0, err);
    free(plan);
    plan = NULL;
    if (rc)
        goto done;
    size_t pbytes = nn->nparams * sizeof(float), bbytes = nn->nbufs * sizeof(float);
    hp = malloc(pbytes + bbytes + nn->maxrows * nn->maxcols * sizeof(float) + 4);
    if (!hp) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto done;
    }
    if (get(&r, hp, pbytes + bbytes))
        BAD("%s: truncated: the weights are missing", path);
    for (size_t i = 0; i < nn->nparams + nn->nbufs; i++)
        if (!isfinite(hp[i]))
            BAD("%s: weight %zu is not finite", path, i);
    if ((rc = nn_validate_stats(path, nn, hp + nn->nparams, err)))
        goto done;
    if (nn->ops->upload(nn->params, hp, pbytes) ||
        nn->ops->upload(nn->bufs, hp + nn->nparams, bbytes)) {
        rc = nn_device_fail(nn, "upload", err);
        goto done;
    }
    float *s = hp;
    for (int i = 0; i < nn->nwl; i++) {
        if (!quant[i])
            continue;
        nn_wlayer *w = &nn->wl[i];
        size_t m = w->rows * w->cols;
        for (size_t k = 0; k < m; k++) {
            signed char c;
            if (get(&r, &c, 1))
                BAD("%s: truncated: the signs of %s are missing", path, w->name);
            if (c < -1 || c > 1)
                BAD("%s: bad sign value in %s", path, w->name);
            s[k] = c;
        }
        w->sign = nn->ops->alloc(m * sizeof(float));
        if (!w->sign || nn->ops->upload(w->sign, s, m * sizeof(float))) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory (%s)", nn->device);
            goto done;
        }
        w->quant = (int)quant[i];
    }
    if (r.pos != r.n)
        BAD("%s: %zu unexpected bytes after the data", path, r.n - r.pos);
done:
    free(hp);
    free(data);
    if (rc) {
        if (nn != plan)
            cs_nn_free(nn);
        free(plan);   /* shapes only: nothing else to release */
        return rc;
    }
    *out = nn;
    return CS_OK;
}
