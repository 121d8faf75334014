#include "cs_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_TAG ".csreg-"
#define TMP_END ".tmp"

int cs_make_parents(const char *path, cs_err *err)
{
    char dir[4096];
    if (!path || strlen(path) >= sizeof dir)
        return cs_fail(err, CS_EINVAL, "file name too long");
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return CS_OK;
    *slash = '\0';
    struct stat sb;
    if (stat(dir, &sb) == 0)
        return S_ISDIR(sb.st_mode) ? CS_OK
                                   : cs_fail(err, CS_EIO, "cannot write '%s': '%s' is not a "
                                             "folder", path, dir);
    /* each missing level, from the top */
    for (char *p = dir + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char keep = *p;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return cs_fail(err, CS_EIO, "cannot create folder '%s' for '%s': %s", dir, path,
                           strerror(errno));
        *p = keep;
        if (!keep)
            break;
    }
    return CS_OK;
}

/* ---- temporary files -------------------------------------------------- */

/* The process id in `name` when it is "BASE.csreg-PID-N.tmp", else 0. */
static long tmp_owner(const char *name, const char *base, size_t blen)
{
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, TMP_TAG, strlen(TMP_TAG)) != 0)
        return 0;
    const char *p = name + blen + strlen(TMP_TAG);
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p || pid <= 0 || *end != '-')
        return 0;
    p = end + 1;
    size_t digits = strspn(p, "0123456789");
    return digits > 0 && strcmp(p + digits, TMP_END) == 0 ? pid : 0;
}

int cs_tmp_sweep(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = path;
    if (slash) {
        base = path + (slash - dir) + 1;
        slash[slash == dir ? 1 : 0] = '\0';
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    size_t blen = strlen(base);
    DIR *d = blen ? opendir(dir) : NULL;
    if (!d)
        return 0;
    int removed = 0;
    long self = (long)getpid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        long pid = tmp_owner(e->d_name, base, blen);
        /* ours only: a process of this machine that has ended, a plain
         * file of this user */
        if (pid == 0 || pid == self || (pid_t)pid != pid || kill((pid_t)pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

static atomic_uint tmp_counter;

int cs_tmp_create(const char *path, char *tmp, size_t cap, cs_err *err)
{
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty file name");
    int rc = cs_make_parents(path, err);
    if (rc)
        return rc;
    cs_tmp_sweep(path);
    for (int tries = 0; tries < 1000; tries++) {
        unsigned c = atomic_fetch_add(&tmp_counter, 1u);
        int w = snprintf(tmp, cap, "%s" TMP_TAG "%ld-%u" TMP_END, path, (long)getpid(), c);
        if (w < 0 || (size_t)w >= cap)
            return cs_fail(err, CS_EINVAL, "file name too long");
        /* 0666: the umask decides, as for any file a program creates */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return cs_fail(err, CS_EIO, "cannot create a temporary file next to '%s'", path);
}

/* ---- atomic outputs ---------------------------------------------------- */

static int discard;

void cs_file_set_discard(int on) { discard = on != 0; }
int cs_file_discard(void) { return discard; }

int cs_afile_open(cs_afile *af, const char *path, int must_not_exist, cs_err *err)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty file name");
    if (strlen(path) + 40 >= sizeof af->tmp)
        return cs_fail(err, CS_EINVAL, "file name too long");
    if (discard) { /* written nowhere; tmp stays "" so commit renames nothing */
        snprintf(af->path, sizeof af->path, "%s", path);
        af->f = fopen("/dev/null", "we");
        return af->f ? CS_OK : cs_fail(err, CS_EIO, "cannot open /dev/null");
    }
    if (must_not_exist && access(path, F_OK) == 0)
        return cs_fail(err, CS_EIO, "'%s' exists (add force=on to overwrite)", path);
    int fd = cs_tmp_create(path, af->tmp, sizeof af->tmp, err);
    if (fd < 0) {
        af->tmp[0] = '\0';
        return fd;
    }
    snprintf(af->path, sizeof af->path, "%s", path);
    af->f = fdopen(fd, "w");
    if (!af->f) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        af->tmp[0] = '\0';
        return cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return CS_OK;
}

/* The errno of a stream whose write failed: flushing again reports it,
 * or when stdio dropped the buffer, a probe byte (the temporary file is
 * removed anyway). */
static int stream_errno(FILE *f)
{
    errno = 0;
    fflush(f);
    if (errno == 0 && write(fileno(f), "\n", 1) < 0)
        return errno;
    return errno ? errno : EIO;
}

static int write_failed(const cs_afile *af, int e, cs_err *err)
{
    return cs_fail(err, CS_EIO, "cannot write '%s': %s (the file is left as it was)", af->path,
                   strerror(e));
}

int cs_afile_poll(cs_afile *af, cs_err *err)
{
    if (!af->f)
        return cs_fail(err, CS_EIO, "'%s' is not open", af->path);
    if (cs_cancelled(af->cancel))
        return cs_fail(err, CS_ECANCEL, "interrupted while writing '%s' (the file is left as "
                       "it was)", af->path);
    if (ferror(af->f))
        return write_failed(af, stream_errno(af->f), err);
    return CS_OK;
}

int cs_afile_write(cs_afile *af, const void *data, size_t n, cs_err *err)
{
    enum { PIECE = 1 << 20 };
    const char *p = data;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < PIECE ? n - done : PIECE;
        if (fwrite(p + done, 1, k, af->f) != k)
            return write_failed(af, stream_errno(af->f), err);
        done += k;
        int rc = cs_afile_poll(af, err);
        if (rc)
            return rc;
    }
    return CS_OK;
}

int cs_afile_commit(cs_afile *af, cs_err *err)
{
    if (!af->f)
        return cs_fail(err, CS_EIO, "'%s' is not open", af->path);
    int e = 0;
    if (ferror(af->f))
        e = stream_errno(af->f);
    else if (fflush(af->f) != 0)
        e = errno;
    /* the data on the disk before the name: a crash never installs a
     * file whose blocks were not written (EINVAL: no sync on this kind) */
    else if (fsync(fileno(af->f)) != 0 && errno != EINVAL)
        e = errno;
    if (fclose(af->f) != 0 && !e)
        e = errno;
    af->f = NULL;
    if (!e && af->tmp[0] && rename(af->tmp, af->path) != 0)
        e = errno;
    if (e) {
        if (af->tmp[0])
            unlink(af->tmp);
        af->tmp[0] = '\0';
        return write_failed(af, e, err);
    }
    af->tmp[0] = '\0';
    return CS_OK;
}

void cs_afile_abort(cs_afile *af)
{
    if (af->f) {
        fclose(af->f);
        af->f = NULL;
    }
    if (af->tmp[0])
        unlink(af->tmp);
    af->tmp[0] = '\0';
}

int cs_partial_name(const char *path, char *buf, size_t len, cs_err *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    int w = snprintf(buf, len, "%.*s.partial%s", (int)(dot - path), path, dot);
    if (w < 0 || (size_t)w >= len)
        return cs_fail(err, CS_EINVAL, "file name too long for the partial results of '%s'",
                       path);
    return CS_OK;
}
