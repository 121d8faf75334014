/* project.c — the project's own files from any working directory. */
#include "cs_project.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CSREG_DATADIR
#define CSREG_DATADIR "/usr/local/share/csreg"
#endif

size_t cs_project_dirs(char dirs[][4096], size_t cap)
{
    size_t n = 0;
    const char *env = getenv("CSREG_DATADIR");
    if (env && *env && n < cap)
        snprintf(dirs[n++], 4096, "%.4000s", env);
    if (n < cap)
        snprintf(dirs[n++], 4096, ".");
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = k > 0 ? (exe[k] = '\0', strrchr(exe, '/')) : NULL;
    if (!slash) {
        if (n < cap)
            snprintf(dirs[n++], 4096, "%s", CSREG_DATADIR);
        return n;
    }
    *slash = '\0';
    if (n < cap)
        snprintf(dirs[n++], 4096, "%.4000s", exe);
    if (n < cap)
        snprintf(dirs[n++], 4096, "%.4000s/../..", exe);
    if (n < cap)
        snprintf(dirs[n++], 4096, "%.4000s/../share/csreg", exe);
    if (n < cap)
        snprintf(dirs[n++], 4096, "%s", CSREG_DATADIR);
    return n;
}

int cs_project_find(const char *rel, char *buf, size_t len)
{
    char dirs[CS_PROJECT_MAX_DIRS][4096];
    size_t n = cs_project_dirs(dirs, CS_PROJECT_MAX_DIRS);
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf, len, "%s/%s", dirs[i], rel);
        if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
            return 0;
    }
    return -1;
}
