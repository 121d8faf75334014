/* array_mat.c — MATLAB .mat files through libmatio (v4, v5, v7 and, with
 * its HDF5 support, v7.3).
 *
 * libmatio is opened with dlopen at the first .mat file, not linked: it
 * pulls in HDF5, libcurl and a TLS stack (some 35 libraries, 20 MiB, 3 ms
 * at every start of every csreg process), which only .mat files need.
 * Without it (or without its header at build time) .mat files are refused
 * with a message saying what to install.
 *
 * libmatio keeps global state (its log function, HDF5's error stack) and is
 * not thread-safe, so every call into it holds one lock. Its messages are
 * caught instead of printed (the engine never prints) and the first one
 * joins our error. Data is column-major there, row-major here. */
#include "array_internal.h"

#if defined(__has_include)
#if __has_include(<matio.h>)
#define CS_MATIO_HEADER 1
#endif
#endif

#ifdef CS_MATIO_HEADER

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <matio.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAT_NAME_MAX 63 /* MATLAB's namelengthmax */
/* Debian 12's libmatio11 (1.5.x), else whatever the dev symlink names */
#define MATIO_SONAME "libmatio.so.11"

/* the functions used, typed by the header */
#define MATIO_FUNCS(X)                                                                   \
    X(Mat_Open) X(Mat_Close) X(Mat_CreateVer) X(Mat_Rewind) X(Mat_VarReadNextInfo)        \
    X(Mat_VarReadInfo) X(Mat_VarRead) X(Mat_VarFree) X(Mat_VarCreate) X(Mat_VarWrite)     \
    X(Mat_LogInitFunc)
#define MATIO_FIELD(f) __typeof__(&f) f;
static struct { MATIO_FUNCS(MATIO_FIELD) } mx;

static pthread_mutex_t mat_lock = PTHREAD_MUTEX_INITIALIZER;
static char mat_msg[200]; /* libmatio's first message since mat_begin; under the lock */
static int mat_state;     /* 0: not tried, 1: loaded, -1: missing (mat_why says why) */
static char mat_why[300];

static void catch_log(int level, char *message)
{
    (void)level;
    if (mat_msg[0] || !message)
        return;
    snprintf(mat_msg, sizeof mat_msg, "%.*s", (int)strcspn(message, "\n"), message);
}

/* Under the lock: the library and its functions, once. */
static void mat_load(void)
{
    if (mat_state)
        return;
    mat_state = -1;
    void *h = dlopen(MATIO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libmatio.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(mat_why, sizeof mat_why, "%s", e ? e : "not found");
        return;
    }
#define MATIO_SYM(f)                                                                     \
    if (!(*(void **)&mx.f = dlsym(h, #f))) {                                              \
        snprintf(mat_why, sizeof mat_why, "libmatio has no %s", #f);                    \
        return;                                                                           \
    }
    MATIO_FUNCS(MATIO_SYM)
    /* kept loaded: HDF5 inside holds global state */
    mx.Mat_LogInitFunc("csreg", catch_log); /* also routes HDF5's errors to it */
    mat_state = 1;
}

/* Take the lock with libmatio loaded; else an error naming path. */
static int mat_begin(const char *path, cs_err *err)
{
    pthread_mutex_lock(&mat_lock);
    mat_load();
    mat_msg[0] = '\0';
    if (mat_state > 0)
        return CS_OK;
    pthread_mutex_unlock(&mat_lock);
    return cs_fail(err, CS_EUNSUPPORTED, "%s: .mat files need libmatio (Debian: apt-get install "
                   "libmatio11): %s", path, mat_why);
}

static void mat_end(void) { pthread_mutex_unlock(&mat_lock); }

/* " (libmatio: ...)" when libmatio said something, else "" */
static const char *why(char *buf, size_t len)
{
    if (mat_msg[0])
        snprintf(buf, len, " (libmatio: %s)", mat_msg);
    else
        buf[0] = '\0';
    return buf;
}

static const char *class_name(const matvar_t *v)
{
    static const char *const names[] = {"empty", "cell", "struct", "object", "char", "sparse",
                                        "double", "single", "int8", "uint8", "int16", "uint16",
                                        "int32", "uint32", "int64", "uint64", "function",
                                        "opaque"};
    if (v->isLogical)
        return "logical";
    unsigned c = (unsigned)v->class_type;
    return c < sizeof names / sizeof *names ? names[c] : "unknown";
}

/* "Phi 30x60 double" */
static void describe(const matvar_t *v, char *buf, size_t len)
{
    size_t w = (size_t)snprintf(buf, len, "%s ", v->name ? v->name : "?");
    for (int k = 0; k < v->rank && v->dims && w < len; k++)
        w += (size_t)snprintf(buf + w, len - w, "%s%zu", k ? "x" : "", v->dims[k]);
    if (w < len)
        snprintf(buf + w, len - w, "%s%s%s", v->rank > 0 ? " " : "",
                 v->isComplex ? "complex " : "", class_name(v));
}

static int numeric_2d(const matvar_t *v)
{
    int numeric = v->class_type == MAT_C_DOUBLE || v->class_type == MAT_C_SINGLE ||
                  v->class_type == MAT_C_SPARSE;
    return numeric && v->name && v->name[0] && !v->isComplex && !v->isLogical && v->rank == 2 &&
           v->dims && v->dims[0] > 0 && v->dims[1] > 0;
}

/* The variables of the file, described and comma separated, into list;
 * how many are numeric 2-D, the name of the first of those into first. */
static int survey(mat_t *mat, char *list, size_t len, char *first, size_t flen)
{
    int numeric = 0;
    size_t w = 0;
    list[0] = first[0] = '\0';
    mx.Mat_Rewind(mat);
    for (matvar_t *v; (v = mx.Mat_VarReadNextInfo(mat)) != NULL; mx.Mat_VarFree(v)) {
        char d[160];
        describe(v, d, sizeof d);
        if (w + strlen(d) + 8 < len)
            w += (size_t)snprintf(list + w, len - w, "%s%s", w ? ", " : "", d);
        else if (w + 6 < len && !strstr(list, ", ..."))
            w += (size_t)snprintf(list + w, len - w, ", ...");
        if (numeric_2d(v) && numeric++ == 0)
            snprintf(first, flen, "%s", v->name ? v->name : "");
    }
    return numeric;
}

/* Why the variable cannot be an array, or CS_OK. */
static int check_var(const matvar_t *v, const char *name, cs_err *err)
{
    char d[160];
    describe(v, d, sizeof d);
    if (v->isComplex)
        return cs_fail(err, CS_EUNSUPPORTED, "%s is complex (%s): real numbers only", name, d);
    if (v->isLogical || (v->class_type != MAT_C_DOUBLE && v->class_type != MAT_C_SINGLE &&
                         v->class_type != MAT_C_SPARSE))
        return cs_fail(err, CS_EUNSUPPORTED, "%s is %s: double or single only", name, d);
    if (v->rank != 2 || !v->dims)
        return cs_fail(err, CS_EDIM, "%s has %d dimensions (%s): 2 only", name, v->rank, d);
    return CS_OK;
}

static int read_sparse(const matvar_t *v, cs_array *a, const char *name, cs_err *err)
{
    const mat_sparse_t *s = v->data;
    if (v->data_type != MAT_T_DOUBLE && v->data_type != MAT_T_SINGLE)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: sparse data of this type is not supported "
                       "(double or single)", name);
    if (!s || !s->jc || s->njc != a->cols + 1)
        return cs_fail(err, CS_EINVAL, "%s: malformed sparse matrix", name);
    for (size_t j = 0; j < a->cols; j++)
        for (size_t k = s->jc[j]; k < s->jc[j + 1]; k++) {
            if (k >= s->nir || k >= s->ndata || s->ir[k] >= a->rows)
                return cs_fail(err, CS_EINVAL, "%s: malformed sparse matrix", name);
            a->data[s->ir[k] * a->cols + j] += v->data_type == MAT_T_DOUBLE
                ? ((const double *)s->data)[k] : (double)((const float *)s->data)[k];
        }
    return CS_OK;
}

static int read_dense(const matvar_t *v, cs_array *a, const char *name, cs_err *err)
{
    size_t n = a->rows * a->cols;
    if (!v->data || (v->data_type != MAT_T_DOUBLE && v->data_type != MAT_T_SINGLE) ||
        v->nbytes < n * (v->data_type == MAT_T_DOUBLE ? sizeof(double) : sizeof(float)))
        return cs_fail(err, CS_EINVAL, "%s: malformed variable", name);
    for (size_t k = 0; k < n; k++)
        a->data[(k % a->rows) * a->cols + k / a->rows] = v->data_type == MAT_T_DOUBLE
            ? ((const double *)v->data)[k] : (double)((const float *)v->data)[k];
    return CS_OK;
}

/* The variable var (checked, then read) into out; name "F.mat:var". */
static int read_var(mat_t *mat, const char *var, cs_array *out, const char *name, cs_err *err)
{
    char w[240];
    matvar_t *info = mx.Mat_VarReadInfo(mat, var);
    int rc = info ? check_var(info, name, err)
                  : cs_fail(err, CS_EIO, "%s: cannot read the variable%s", name, why(w, sizeof w));
    if (rc == CS_OK) /* the size checked before libmatio allocates the data */
        rc = cs_array_alloc_named(out, info->dims[0], info->dims[1], name, err);
    mx.Mat_VarFree(info);
    if (rc)
        return rc;
    matvar_t *v = mx.Mat_VarRead(mat, var);
    if (!v)
        rc = cs_fail(err, CS_EIO, "%s: cannot read the variable%s", name, why(w, sizeof w));
    else if (v->rank != 2 || v->dims[0] != out->rows || v->dims[1] != out->cols)
        rc = cs_fail(err, CS_EINVAL, "%s: malformed variable", name);
    else
        rc = v->class_type == MAT_C_SPARSE ? read_sparse(v, out, name, err)
                                            : read_dense(v, out, name, err);
    mx.Mat_VarFree(v);
    if (rc == CS_OK)
        rc = cs_array_check_finite(out, name, err);
    if (rc)
        cs_array_free(out);
    return rc;
}

/* Why var (NULL: a numeric 2-D one) is not to be had, given the survey. */
static int missing(const char *path, const char *var, const char *list, cs_err *err)
{
    char w[240];
    if (!list[0] && mat_msg[0])
        return cs_fail(err, CS_EINVAL, "%s: cannot read its variables, damaged or truncated?%s",
                       path, why(w, sizeof w));
    char what[100] = "no numeric 2-D variable";
    if (var)
        snprintf(what, sizeof what, "no variable '%s'", var);
    return cs_fail(err, CS_ENOTFOUND, "%s: %s (%s%s)", path, what,
                   list[0] ? "it has: " : "no variables in it", list);
}

static int read_locked(const char *path, const char *var, cs_array *out, cs_err *err)
{
    char w[240];
    mat_t *mat = mx.Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return cs_fail(err, CS_EINVAL, "%s: not a MATLAB .mat file that libmatio reads%s", path,
                       why(w, sizeof w));
    char list[320], first[MAT_NAME_MAX + 2], name[4200];
    int rc = CS_OK;
    if (var) {
        matvar_t *info = mx.Mat_VarReadInfo(mat, var);
        if (!info) {
            survey(mat, list, sizeof list, first, sizeof first);
            rc = missing(path, var, list, err);
        }
        mx.Mat_VarFree(info);
    } else {
        int n = survey(mat, list, sizeof list, first, sizeof first);
        if (n == 0)
            rc = missing(path, NULL, list, err);
        else if (n > 1)
            rc = cs_fail(err, CS_EINVAL, "%s holds %d numeric variables (%s): name one, as "
                         "%s:%s", path, n, list, path, first);
        var = first;
    }
    if (rc == CS_OK) {
        snprintf(name, sizeof name, "%s:%s", path, var);
        rc = read_var(mat, var, out, name, err);
    }
    mx.Mat_Close(mat);
    return rc;
}

int cs_mat_read_array(const char *path, const char *var, cs_array *out, cs_err *err)
{
    /* open it ourselves first: a missing file gets the system's reason */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cs_fail(err, CS_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    close(fd);
    if (!regular)
        return cs_fail(err, CS_EIO, "cannot read '%s': not a regular file", path);
    int rc = mat_begin(path, err);
    if (rc)
        return rc;
    rc = read_locked(path, var, out, err);
    mat_end();
    return rc;
}

static int valid_name(const char *s)
{
    if (!isalpha((unsigned char)s[0]) || strlen(s) > MAT_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* One variable: transposed to column-major, handed to libmatio. */
static int write_var(mat_t *mat, const char *var, const cs_array *a, const char *path,
                     cs_err *err)
{
    /* v5 counts a variable's bytes in 32 bits */
    if ((double)a->rows * (double)a->cols * sizeof(double) > (double)UINT32_MAX - 4096)
        return cs_fail(err, CS_EDIM, "%s: a %zux%zu array is too large for a v5 .mat file "
                       "(4 GiB): write .npy", path, a->rows, a->cols);
    double *col = malloc(a->rows * a->cols * sizeof *col);
    if (!col)
        return cs_fail(err, CS_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            col[j * a->rows + i] = a->data[i * a->cols + j];
    size_t dims[2] = {a->rows, a->cols};
    char w[240];
    int rc = CS_OK;
    matvar_t *v = mx.Mat_VarCreate(var, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, col,
                                   MAT_F_DONT_COPY_DATA);
    if (!v || mx.Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE) != 0)
        rc = cs_fail(err, CS_EIO, "cannot write '%s': variable '%s' failed%s", path, var,
                     why(w, sizeof w));
    mx.Mat_VarFree(v); /* leaves col to us (MAT_F_DONT_COPY_DATA) */
    free(col);
    return rc;
}

static int write_locked(const char *path, const char *tmp, size_t n, const char *const names[],
                        const cs_array *const arrays[], cs_err *err)
{
    char w[240];
    /* our own header text: libmatio's default has the date in it */
    mat_t *mat = mx.Mat_CreateVer(tmp, "MATLAB 5.0 MAT-file, written by csreg", MAT_FT_MAT5);
    if (!mat)
        return cs_fail(err, CS_EIO, "cannot write '%s'%s", path, why(w, sizeof w));
    int rc = CS_OK;
    for (size_t k = 0; k < n && rc == CS_OK; k++)
        rc = write_var(mat, names[k], arrays[k], path, err);
    if (mx.Mat_Close(mat) != 0 && rc == CS_OK)
        rc = cs_fail(err, CS_EIO, "cannot write '%s'%s", path, why(w, sizeof w));
    return rc;
}

int cs_mat_write_arrays(const char *path, size_t n, const char *const names[],
                        const cs_array *const arrays[], unsigned flags, cs_err *err)
{
    for (size_t k = 0; k < n; k++) {
        if (!valid_name(names[k]))
            return cs_fail(err, CS_EINVAL, "%s: '%s' is not a MATLAB variable name (a letter, "
                           "then letters, digits or '_', at most %d)", path, names[k],
                           MAT_NAME_MAX);
        for (size_t m = 0; m < k; m++)
            if (strcmp(names[m], names[k]) == 0)
                return cs_fail(err, CS_EINVAL, "%s: variable '%s' named twice", path, names[k]);
    }
    if (cs_file_discard())
        return CS_OK; /* an MPI rank other than 0: written nowhere */
    if ((flags & CS_ARRAY_NO_CLOBBER) && access(path, F_OK) == 0)
        return cs_fail(err, CS_EIO, "'%s' exists (add force=on to overwrite)", path);
    char tmp[4200];
    int fd = cs_tmp_create(path, tmp, sizeof tmp, err);
    if (fd < 0)
        return fd;
    close(fd); /* libmatio opens it by name */
    int rc = mat_begin(path, err);
    if (rc == CS_OK) {
        rc = write_locked(path, tmp, n, names, arrays, err);
        mat_end();
    }
    if (rc == CS_OK) { /* the data on the disk before the name, as cs_afile_commit */
        fd = open(tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL) || rename(tmp, path) != 0)
            rc = cs_fail(err, CS_EIO, "cannot write '%s': %s (the file is left as it was)",
                         path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    if (rc)
        unlink(tmp);
    return rc;
}

int cs_mat_available(void)
{
    pthread_mutex_lock(&mat_lock);
    mat_load();
    int ok = mat_state > 0;
    pthread_mutex_unlock(&mat_lock);
    return ok;
}

#else /* no <matio.h> at build time */

static int no_matio(const char *path, cs_err *err)
{
    return cs_fail(err, CS_EUNSUPPORTED, "%s: .mat files need libmatio, and this csreg was "
                   "built without its header (libmatio-dev): use .npy, .csv or .mtx", path);
}

int cs_mat_read_array(const char *path, const char *var, cs_array *out, cs_err *err)
{
    (void)var;
    (void)out;
    return no_matio(path, err);
}

int cs_mat_write_arrays(const char *path, size_t n, const char *const names[],
                        const cs_array *const arrays[], unsigned flags, cs_err *err)
{
    (void)n;
    (void)names;
    (void)arrays;
    (void)flags;
    return no_matio(path, err);
}

int cs_mat_available(void) { return 0; }

#endif
