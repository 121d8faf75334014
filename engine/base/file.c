#include "cs_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int cs_afile_open(cs_afile *af, const char *path, int must_not_exist, cs_err *err)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty file name");
    if (strlen(path) + 16 >= sizeof af->tmp)
        return cs_fail(err, CS_EINVAL, "file name too long");
    if (must_not_exist && access(path, F_OK) == 0)
        return cs_fail(err, CS_EIO, "'%s' exists (add force=on to overwrite)", path);
    int rc = cs_make_parents(path, err);
    if (rc)
        return rc;
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0)
        return cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(errno));
    af->f = fdopen(fd, "w");
    if (!af->f) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        return cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return CS_OK;
}

int cs_afile_commit(cs_afile *af, cs_err *err)
{
    if (!af->f)
        return cs_fail(err, CS_EIO, "'%s' is not open", af->path);
    int bad = ferror(af->f);
    int e = errno;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->f = NULL;
    /* mkstemp creates 0600; outputs are ordinary files */
    if (!bad) {
        mode_t mask = umask(0);
        umask(mask);
        chmod(af->tmp, 0666 & ~mask);
    }
    if (bad || rename(af->tmp, af->path) != 0) {
        if (!bad)
            e = errno;
        unlink(af->tmp);
        return cs_fail(err, CS_EIO, "cannot write '%s': %s", af->path, strerror(e));
    }
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
