#include "cs_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cs_text_open(const char *path, const char *name, FILE **out, cs_err *err)
{
    *out = NULL;
    if (!name)
        name = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return cs_fail(err, CS_EIO, "cannot open '%s': %s", name, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return cs_fail(err, CS_EIO, "cannot read '%s': %s", name,
                       S_ISDIR(st.st_mode) ? "it is a folder"
                                           : "not a regular file (text files only)");
    }
    *out = f;
    return CS_OK;
}

static int grow(char **line, size_t *cap, size_t need, cs_err *err)
{
    if (need <= *cap)
        return CS_OK;
    size_t nc = *cap ? 2 * *cap : 256;
    while (nc < need)
        nc *= 2;
    char *p = realloc(*line, nc);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    *line = p;
    *cap = nc;
    return CS_OK;
}

int cs_text_line(FILE *f, char **line, size_t *cap, size_t *len, int *col, cs_err *err)
{
    size_t n = 0;
    int c = EOF, rc = CS_OK;
    *col = 0;
    flockfile(f);
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n >= CS_TEXT_LINE_MAX) {
            rc = cs_fail(err, CS_EINVAL, "line longer than %zu bytes: not a text file",
                         CS_TEXT_LINE_MAX);
            break;
        }
        if (c == '\0' && !*col)
            *col = (int)n + 1;
        if ((rc = grow(line, cap, n + 2, err)) != CS_OK)
            break;
        (*line)[n++] = (char)c;
    }
    int bad = ferror(f);
    funlockfile(f);
    if (rc) {
        *col = 0;
        return rc;
    }
    if (bad)
        return cs_fail(err, CS_EIO, "read error: %s", strerror(errno));
    if (c == EOF && n == 0)
        return 0;
    if ((rc = grow(line, cap, n + 1, err)) != CS_OK)
        return rc;
    if (n > 0 && (*line)[n - 1] == '\r')
        n--;
    (*line)[n] = '\0';
    *len = n;
    if (*col)
        return cs_fail(err, CS_EINVAL, "a NUL byte at column %d: not a text file", *col);
    return 1;
}
