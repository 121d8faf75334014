/* gp_image.c — is the image gnuplot wrote complete? gnuplot's cairo
 * terminals do not report a failed write (a full disk gives a truncated
 * PNG or PDF and exit status 0), so before a finished image is renamed
 * over its target its format's start and end markers are checked. */
#include "gp.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct image_format {
    const char *ext, *name;
    const char *head;   /* the file starts with one of these ('|' separated) */
    const char *tail;   /* and ends with this, trailing whitespace aside when text */
    size_t tail_len;
    int text;
    const char *what;   /* the end marker, for the message */
} image_format;

static const image_format formats[] = {
    {".png", "PNG", "\x89PNG\r\n\x1a\n", "\0\0\0\0IEND\xae\x42\x60\x82", 12, 0, "IEND chunk"},
    {".pdf", "PDF", "%PDF-", "%%EOF", 5, 1, "%%EOF"},
    {".gif", "GIF", "GIF87a|GIF89a", "\x3b", 1, 0, "trailer"},
    {".svg", "SVG", "<?xml|<svg", "</svg>", 6, 1, "</svg> closing tag"},
};

static const image_format *format_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcasecmp(dot, formats[i].ext) == 0)
            return &formats[i];
    return NULL;
}

static int starts_with_one(const unsigned char *buf, size_t n, const char *heads)
{
    for (const char *h = heads; *h;) {
        size_t len = strcspn(h, "|");
        if (n >= len && memcmp(buf, h, len) == 0)
            return 1;
        h += len + (h[len] == '|');
    }
    return 0;
}

int cs_gp_check_image(const char *file, const char *target, cs_err *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return cs_fail(err, CS_EIO, "cannot read back the image for '%s': %s", target,
                       strerror(e));
    }
    const image_format *fm = format_of(target);
    unsigned char head[16], tail[1024];
    size_t nt = st.st_size < (off_t)sizeof tail ? (size_t)st.st_size : sizeof tail;
    ssize_t gh = st.st_size > 0 ? pread(fd, head, sizeof head, 0) : 0;
    ssize_t gt = nt > 0 ? pread(fd, tail, nt, st.st_size - (off_t)nt) : 0;
    /* the data on the disk before the name goes over the old file */
    int synced = fsync(fd) == 0 || errno == EINVAL;
    int e = errno;
    close(fd);
    if (st.st_size == 0)
        return cs_fail(err, CS_EIO, "gnuplot wrote nothing to '%s' (the file is left as it was)",
                       target);
    if (!synced)
        return cs_fail(err, CS_EIO, "cannot write '%s': %s (the file is left as it was)",
                       target, strerror(e));
    if (!fm)
        return CS_OK;
    if (gh < 0 || gt != (ssize_t)nt)
        return cs_fail(err, CS_EIO, "cannot read back the image for '%s'", target);
    if (!starts_with_one(head, (size_t)gh, fm->head))
        return cs_fail(err, CS_EIO, "gnuplot's output for '%s' is not a %s file (the file is "
                       "left as it was)", target, fm->name);
    size_t end = nt;
    while (fm->text && end > 0 && strchr(" \t\r\n", tail[end - 1]))
        end--;
    if (end < fm->tail_len || memcmp(tail + end - fm->tail_len, fm->tail, fm->tail_len) != 0)
        return cs_fail(err, CS_EIO, "gnuplot wrote an incomplete %s to '%s' (%lld bytes, no %s "
                       "at the end: is the disk full?); the file is left as it was", fm->name,
                       target, (long long)st.st_size, fm->what);
    return CS_OK;
}
