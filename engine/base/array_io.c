/* array_io.c — cs_array_io.h: a spec ("A.npy", "F.mat:Phi") to its format
 * module (array_csv.c, array_npy.c, array_mtx.c, array_mat.c). */
#include "array_internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define SPEC_MAX 4096

/* "F.mat:Phi" -> path "F.mat", *var "Phi"; anything else is all path
 * (a ':' may be part of a file's name). */
static int split_spec(const char *spec, char *path, const char **var, cs_err *err)
{
    *var = NULL;
    if (!spec || !*spec)
        return cs_fail(err, CS_EINVAL, "empty file name");
    size_t n = strlen(spec);
    if (n >= SPEC_MAX)
        return cs_fail(err, CS_EINVAL, "file name too long");
    memcpy(path, spec, n + 1);
    char *colon = strrchr(path, ':');
    if (colon && colon - path >= 4 && strncasecmp(colon - 4, ".mat", 4) == 0) {
        if (!colon[1])
            return cs_fail(err, CS_EINVAL, "%s: no variable name after ':'", spec);
        *colon = '\0';
        *var = spec + (colon - path) + 1;
    }
    return CS_OK;
}

static int format_of_path(const char *path, cs_err *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    static const char *const ext[] = {"csv", "npy", "mtx", "mat"};
    for (int k = 0; dot && k < 4; k++)
        if (strcasecmp(dot + 1, ext[k]) == 0)
            return CS_ARRAY_CSV + k;
    if (dot && strchr(dot, ':'))
        return cs_fail(err, CS_EUNSUPPORTED, "%s: only .mat files name a variable after ':'",
                       path);
    if (!dot || dot == base)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: no extension to tell the format (.csv, .npy, "
                       ".mtx or .mat)", path);
    return cs_fail(err, CS_EUNSUPPORTED, "%s: unknown format '%s' (.csv, .npy, .mtx or .mat)",
                   path, dot);
}

int cs_array_format_of(const char *spec, cs_err *err)
{
    char path[SPEC_MAX];
    const char *var;
    int rc = split_spec(spec, path, &var, err);
    return rc ? rc : format_of_path(path, err);
}

int cs_array_have_mat(void) { return cs_mat_available(); }

int cs_array_read(const char *spec, cs_array *out, cs_err *err)
{
    if (!out)
        return cs_fail(err, CS_EINVAL, "no array to read into");
    out->rows = out->cols = 0;
    out->data = NULL;
    char path[SPEC_MAX];
    const char *var;
    int rc = split_spec(spec, path, &var, err);
    int fmt = rc ? rc : format_of_path(path, err);
    switch (fmt) {
    case CS_ARRAY_CSV: return cs_csv_read_array(path, out, err);
    case CS_ARRAY_NPY: return cs_npy_read_array(path, out, err);
    case CS_ARRAY_MTX: return cs_mtx_read_array(path, out, err);
    case CS_ARRAY_MAT: return cs_mat_read_array(path, var, out, err);
    default: return fmt;
    }
}

static int check_array(const char *path, const cs_array *a, cs_err *err)
{
    if (!a || !a->data || a->rows == 0 || a->cols == 0)
        return cs_fail(err, CS_EDIM, "%s: nothing to write (an empty array)", path);
    return CS_OK;
}

/* The variable named after the file: "dir/my-data.mat" -> "my_data". */
static void var_from_path(const char *path, char *var, size_t len)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base) - 4; /* ".mat" */
    size_t w = 0;
    if (!isalpha((unsigned char)base[0]))
        var[w++] = 'x';
    for (size_t k = 0; k < n && w + 1 < len; k++)
        var[w++] = isalnum((unsigned char)base[k]) ? base[k] : '_';
    var[w] = '\0';
}

int cs_array_write_opts(const char *spec, const cs_array *a, unsigned flags, cs_err *err)
{
    char path[SPEC_MAX];
    const char *var;
    int rc = split_spec(spec, path, &var, err);
    int fmt = rc ? rc : format_of_path(path, err);
    if (fmt < 0)
        return fmt;
    if ((rc = check_array(path, a, err)) != CS_OK)
        return rc;
    char name[64];
    switch (fmt) {
    case CS_ARRAY_CSV: return cs_csv_write_array(path, a, flags, err);
    case CS_ARRAY_NPY: return cs_npy_write_array(path, a, flags, err);
    case CS_ARRAY_MTX: return cs_mtx_write_array(path, a, flags, err);
    default:
        if (!var) {
            var_from_path(path, name, sizeof name);
            var = name;
        }
        return cs_mat_write_arrays(path, 1, &var, &a, flags, err);
    }
}

int cs_array_write(const char *spec, const cs_array *a, cs_err *err)
{
    return cs_array_write_opts(spec, a, 0, err);
}

int cs_array_write_mat(const char *path, size_t n, const char *const names[],
                       const cs_array *const arrays[], unsigned flags, cs_err *err)
{
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty file name");
    int fmt = format_of_path(path, err);
    if (fmt < 0)
        return fmt;
    if (fmt != CS_ARRAY_MAT)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: several arrays go to a .mat file only", path);
    if (n == 0)
        return cs_fail(err, CS_EINVAL, "%s: no arrays to write", path);
    for (size_t k = 0; k < n; k++) {
        int rc = check_array(path, arrays[k], err);
        if (rc)
            return rc;
    }
    return cs_mat_write_arrays(path, n, names, arrays, flags, err);
}
