/* gp.c — the gnuplot driver (see gp.h). */
#include "gp.h"

#include "cs_file.h"
#include "cs_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERR_CAP (64 * 1024)          /* keep this much of gnuplot's stderr */
#define OUT_CAP (64 * 1024 * 1024)   /* and of its stdout (dumb drawings) */

/* ---- command text ------------------------------------------------------ */

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void cs_gpbuf_init(cs_gpbuf *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void cs_gpbuf_free(cs_gpbuf *b)
{
    free(b->s);
    cs_gpbuf_init(b);
}

void cs_gpbuf_reset(cs_gpbuf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->s)
        b->s[0] = '\0';
}

const char *cs_gpbuf_str(const cs_gpbuf *b)
{
    return b->s ? b->s : "";
}

static int gpbuf_reserve(cs_gpbuf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void cs_gpbuf_append(cs_gpbuf *b, const char *s, size_t n)
{
    if (gpbuf_reserve(b, n) != 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void gpbuf_vprintf(cs_gpbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void gpbuf_vprintf(cs_gpbuf *b, const char *fmt, va_list ap)
{
    pthread_once(&c_locale_once, c_locale_init);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    if (gpbuf_reserve(b, 64) == 0) {
        va_list ap2;
        va_copy(ap2, ap);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
        va_end(ap2);
        if (n < 0) {
            b->failed = 1;
        } else if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
        } else if (gpbuf_reserve(b, (size_t)n) == 0) {
            vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
            b->len += (size_t)n;
        }
        if (b->s)
            b->s[b->len < b->cap ? b->len : b->cap - 1] = '\0';
    }
    if (old)
        uselocale(old);
}

void cs_gpbuf_printf(cs_gpbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gpbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void cs_gpbuf_quote(cs_gpbuf *b, const char *text)
{
    int first = 1, open = 0;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        int special = *p == '\'' || *p == '\n';
        if (open && special) {
            cs_gpbuf_append(b, "'", 1);
            open = 0;
        }
        if (!open && !first)
            cs_gpbuf_append(b, " . ", 3);
        first = 0;
        if (special) {
            cs_gpbuf_append(b, *p == '\'' ? "\"'\"" : "\"\\n\"", 3 + (*p == '\n'));
            continue;
        }
        if (!open) {
            cs_gpbuf_append(b, "'", 1);
            open = 1;
        }
        if (*p < 0x20 || *p == 0x7f)
            cs_gpbuf_append(b, " ", 1);
        else
            cs_gpbuf_append(b, (const char *)p, 1);
    }
    if (open)
        cs_gpbuf_append(b, "'", 1);
    if (first)
        cs_gpbuf_append(b, "''", 2);
}

void cs_gpbuf_num(cs_gpbuf *b, double v)
{
    if (v == 0.0)
        v = 0.0; /* no "-0" */
    cs_gpbuf_printf(b, "%.7g", v);
}

void cs_gp_fmt_num(char *dst, size_t cap, double v)
{
    pthread_once(&c_locale_once, c_locale_init);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    snprintf(dst, cap, "%.7g", v == 0.0 ? 0.0 : v);
    if (old)
        uselocale(old);
}

/* ---- finding gnuplot ----------------------------------------------------- */

static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static char *gp_prog = NULL;        /* override; NULL: default */
static char *gp_search = NULL;      /* override; NULL: $PATH */
static int gp_search_set = 0;
static int gp_cached = 0;
static cs_gp_info gp_info;
static _Atomic double gp_timeout = 120.0;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void cs_gp_set_program(const char *prog)
{
    pthread_mutex_lock(&gp_lock);
    free(gp_prog);
    gp_prog = dup_or_null(prog);
    gp_cached = 0;
    pthread_mutex_unlock(&gp_lock);
}

void cs_gp_set_search_path(const char *search_path)
{
    pthread_mutex_lock(&gp_lock);
    free(gp_search);
    gp_search = dup_or_null(search_path);
    gp_search_set = search_path != NULL;
    gp_cached = 0;
    pthread_mutex_unlock(&gp_lock);
}

void cs_gp_set_timeout(double seconds)
{
    gp_timeout = seconds > 0 ? seconds : 120.0;
}

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Resolve the program to an executable path (caller holds gp_lock). */
static int resolve_program(char *out, size_t cap)
{
    const char *prog = gp_prog;
    if (!prog)
        prog = getenv("CSREG_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    if (strchr(prog, '/')) {
        if (strlen(prog) >= cap || !is_exec_file(prog))
            return -1;
        strcpy(out, prog);
        return 0;
    }
    const char *path = gp_search_set ? gp_search : getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int w;
        if (n == 0)
            w = snprintf(out, cap, "./%s", prog);
        else
            w = snprintf(out, cap, "%.*s/%s", (int)n, p, prog);
        if (w > 0 && (size_t)w < cap && is_exec_file(out))
            return 0;
        if (!end)
            break;
        p = end + 1;
    }
    return -1;
}

/* ---- one child process ---------------------------------------------------- */

/* Move fd above 2 so that dup2 onto 0/1/2 in the child always happens. */
static int fd_high(int fd)
{
    if (fd > 2)
        return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return n;
}

static int make_pipe(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    p[0] = fd_high(p[0]);
    p[1] = fd_high(p[1]);
    if (p[0] < 0 || p[1] < 0) {
        if (p[0] >= 0)
            close(p[0]);
        if (p[1] >= 0)
            close(p[1]);
        return -1;
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Read what is there on *fd into b (up to cap bytes kept); close on EOF. */
static void drain(int *fd, cs_gpbuf *b, size_t cap)
{
    char chunk[8192];
    for (;;) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n > 0) {
            if (b && b->len < cap) {
                size_t keep = (size_t)n;
                if (keep > cap - b->len)
                    keep = cap - b->len;
                cs_gpbuf_append(b, chunk, keep);
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            close_fd(fd);
        return;
    }
}

/* Run exe with argv, feed it `in`, collect stdout/stderr, reap it.
 * Returns 0 and the wait status in *wstatus, or a CS_E* code. */
static int run_child(const char *exe, char *const argv[], const char *in,
                     size_t inlen, cs_gpbuf *out, cs_gpbuf *errb,
                     int *wstatus, const cs_cancel *cancel, cs_err *err)
{
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if (make_pipe(pin) != 0 || make_pipe(pout) != 0 || make_pipe(perr) != 0) {
        int e = errno;
        close_fd(&pin[0]), close_fd(&pin[1]);
        close_fd(&pout[0]), close_fd(&pout[1]);
        return cs_fail(err, CS_EIO, "cannot create pipes for gnuplot: %s", strerror(e));
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
    posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
    posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* descriptors some other part of the program opened without O_CLOEXEC
     * stay out of gnuplot */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    pid_t pid = -1;
    int rc = posix_spawn(&pid, exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close_fd(&pin[0]);
    close_fd(&pout[1]);
    close_fd(&perr[1]);
    if (rc != 0) {
        close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&perr[0]);
        if (rc == ENOENT)
            return cs_fail(err, CS_ENOTFOUND, "%s", CS_GP_NOT_FOUND_MSG);
        return cs_fail(err, CS_EIO, "cannot run gnuplot (%s): %s", exe, strerror(rc));
    }

    /* Writing to a gnuplot that stopped reading (it exits at the first
     * error) must give EPIPE, not kill us: block SIGPIPE in this thread and
     * swallow the one our write may raise. */
    sigset_t pipeset, oldmask, pending;
    sigemptyset(&pipeset);
    sigaddset(&pipeset, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeset, &oldmask);
    sigemptyset(&pending);
    sigpending(&pending);
    int pipe_was_pending = sigismember(&pending, SIGPIPE);
    int got_epipe = 0;

    fcntl(pin[1], F_SETFL, fcntl(pin[1], F_GETFL) | O_NONBLOCK);
    fcntl(pout[0], F_SETFL, fcntl(pout[0], F_GETFL) | O_NONBLOCK);
    fcntl(perr[0], F_SETFL, fcntl(perr[0], F_GETFL) | O_NONBLOCK);

    size_t off = 0;
    if (inlen == 0)
        close_fd(&pin[1]);
    double deadline = cs_now() + gp_timeout;
    int exited = 0, status = 0, timed_out = 0, cancelled = 0;
    while (pin[1] >= 0 || pout[0] >= 0 || perr[0] >= 0) {
        struct pollfd pf[3];
        int np = 0, iin = -1, iout = -1, ierr = -1;
        if (pin[1] >= 0)
            iin = np, pf[np++] = (struct pollfd){.fd = pin[1], .events = POLLOUT};
        if (pout[0] >= 0)
            iout = np, pf[np++] = (struct pollfd){.fd = pout[0], .events = POLLIN};
        if (perr[0] >= 0)
            ierr = np, pf[np++] = (struct pollfd){.fd = perr[0], .events = POLLIN};
        double left = deadline - cs_now();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        if (cs_cancelled(cancel)) {
            cancelled = 1;
            break;
        }
        /* Once the input is sent, look at the child now and then: a window
         * terminal's helper may keep our pipes open after gnuplot exited. */
        int wait_ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
        if (pin[1] < 0 && wait_ms > 50)
            wait_ms = 50;
        int pr = poll(pf, (nfds_t)np, wait_ms);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0) {
            if (iin >= 0 && (pf[iin].revents & (POLLOUT | POLLERR | POLLHUP))) {
                while (off < inlen) {
                    ssize_t w = write(pin[1], in + off, inlen - off);
                    if (w > 0) {
                        off += (size_t)w;
                        continue;
                    }
                    if (w < 0 && errno == EINTR)
                        continue;
                    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        break;
                    if (w < 0 && errno == EPIPE)
                        got_epipe = 1;
                    off = inlen; /* gnuplot stopped reading; give up */
                }
                if (off >= inlen)
                    close_fd(&pin[1]);
            }
            if (iout >= 0 && (pf[iout].revents & (POLLIN | POLLERR | POLLHUP)))
                drain(&pout[0], out, OUT_CAP);
            if (ierr >= 0 && (pf[ierr].revents & (POLLIN | POLLERR | POLLHUP)))
                drain(&perr[0], errb, ERR_CAP);
        }
        if (pin[1] < 0 && !exited) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = 1;
                if (pout[0] >= 0)
                    drain(&pout[0], out, OUT_CAP);
                if (perr[0] >= 0)
                    drain(&perr[0], errb, ERR_CAP);
                break;
            }
        }
    }
    close_fd(&pin[1]);
    close_fd(&pout[0]);
    close_fd(&perr[0]);
    if (!exited) {
        if (timed_out || cancelled)
            kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }

    if (got_epipe && !pipe_was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipeset, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &oldmask, NULL);

    if (timed_out)
        return cs_fail(err, CS_EIO, "gnuplot did not finish within %g s and was stopped",
                       (double)gp_timeout);
    if (cancelled)
        return cs_fail(err, CS_ECANCEL, "interrupted: gnuplot was stopped");
    if (out && out->failed)
        return cs_fail(err, CS_ENOMEM, "out of memory reading gnuplot's output");
    *wstatus = status;
    return CS_OK;
}

/* ---- detection ------------------------------------------------------------ */

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
        int start = p == list || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t';
        char e = p[n];
        if (start && (e == '\0' || e == ' ' || e == '\n' || e == '\t'))
            return 1;
    }
    return 0;
}

static int detect_locked(cs_err *err)
{
    cs_gp_info info;
    memset(&info, 0, sizeof info);
    if (resolve_program(info.path, sizeof info.path) != 0)
        return cs_fail(err, CS_ENOTFOUND, "%s", CS_GP_NOT_FOUND_MSG);

    cs_gpbuf out, errb;
    cs_gpbuf_init(&out);
    cs_gpbuf_init(&errb);
    int status = 0;
    char *argv_v[] = {info.path, (char *)"--version", NULL};
    int rc = run_child(info.path, argv_v, "", 0, &out, &errb, &status, NULL, err);
    if (rc == CS_OK) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
            sscanf(cs_gpbuf_str(&out), "gnuplot %d.%d patchlevel %d", &info.major,
                   &info.minor, &info.patchlevel) < 2)
            rc = cs_fail(err, CS_EIO, "%s does not look like gnuplot (--version said \"%.60s\")",
                         info.path, cs_gpbuf_str(&out));
    }
    if (rc == CS_OK && info.major < 5)
        rc = cs_fail(err, CS_EUNSUPPORTED,
                     "gnuplot %d.%d is too old: csreg needs gnuplot 5.0 or newer",
                     info.major, info.minor);
    if (rc == CS_OK) {
        snprintf(info.version, sizeof info.version, "%d.%d patchlevel %d", info.major,
                 info.minor, info.patchlevel);
        cs_gpbuf_reset(&out);
        cs_gpbuf_reset(&errb);
        static const char probe[] = "set print '-'\nprint GPVAL_TERMINALS\n";
        char *argv_t[] = {info.path, (char *)"-d", (char *)"/dev/stdin", NULL};
        rc = run_child(info.path, argv_t, probe, sizeof probe - 1, &out, &errb, &status, NULL,
                       err);
        if (rc == CS_OK && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
            rc = cs_fail(err, CS_EIO, "gnuplot (%s) failed to list its terminals", info.path);
    }
    if (rc == CS_OK) {
        static const struct { const char *name; unsigned bit; } terms[] = {
            {"pngcairo", CS_GP_TERM_PNGCAIRO}, {"png", CS_GP_TERM_PNG},
            {"svg", CS_GP_TERM_SVG}, {"pdfcairo", CS_GP_TERM_PDFCAIRO},
            {"gif", CS_GP_TERM_GIF}, {"dumb", CS_GP_TERM_DUMB},
            {"qt", CS_GP_TERM_QT}, {"wxt", CS_GP_TERM_WXT}, {"x11", CS_GP_TERM_X11},
        };
        for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
            if (has_word(cs_gpbuf_str(&out), terms[i].name))
                info.terms |= terms[i].bit;
        gp_info = info;
        gp_cached = 1;
    }
    cs_gpbuf_free(&out);
    cs_gpbuf_free(&errb);
    return rc;
}

int cs_gp_detect(cs_gp_info *info, cs_err *err)
{
    pthread_mutex_lock(&gp_lock);
    int rc = gp_cached ? CS_OK : detect_locked(err);
    if (rc == CS_OK && info)
        *info = gp_info;
    pthread_mutex_unlock(&gp_lock);
    return rc;
}

/* ---- running a script ------------------------------------------------------ */

/* Copy line `lineno` (1-based) of script into dst, shortened, printable. */
static void script_line(const char *script, long lineno, char *dst, size_t cap)
{
    const char *p = script;
    for (long i = 1; i < lineno && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    size_t n = 0;
    if (p)
        for (; p[n] && p[n] != '\n' && n + 4 < cap; n++)
            dst[n] = (unsigned char)p[n] < 0x20 ? ' ' : p[n];
    if (p && p[n] && p[n] != '\n' && n + 4 >= cap) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

/* Turn gnuplot's stderr into one message. gnuplot reports an error in a
 * script file as `"/dev/stdin" line N: MESSAGE`, maybe followed by a
 * `system error: ...` line. */
static int gnuplot_error(const char *script, const char *errtext, int status, cs_err *err)
{
    static const char tag[] = "\"/dev/stdin\" line ";
    const char *hit = NULL;
    for (const char *p = errtext; (p = strstr(p, tag)) != NULL; p++) {
        const char *colon = strchr(p, ':');
        if (colon && strncmp(colon, ": warning:", 10) != 0)
            hit = p;
    }
    if (hit) {
        long lineno = strtol(hit + sizeof tag - 1, NULL, 10);
        const char *msg = strchr(hit, ':') + 1;
        while (*msg == ' ')
            msg++;
        size_t mlen = strcspn(msg, "\n");
        const char *extra = msg + mlen;
        while (*extra == '\n')
            extra++;
        size_t elen = strcspn(extra, "\n");
        char cmd[96];
        script_line(script, lineno, cmd, sizeof cmd);
        return cs_fail(err, CS_EIO, "gnuplot: line %ld: %.*s%s%.*s (in: %s)", lineno,
                       (int)mlen, msg, elen ? "; " : "", (int)elen, extra, cmd);
    }
    /* No line tag: report the last non-empty line. */
    const char *last = NULL;
    size_t llen = 0;
    for (const char *p = errtext; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 0)
            last = p, llen = n;
        p += n;
        if (*p)
            p++;
    }
    if (last)
        return cs_fail(err, CS_EIO, "gnuplot: %.*s", (int)llen, last);
    if (WIFSIGNALED(status))
        return cs_fail(err, CS_EIO, "gnuplot was killed by signal %d", WTERMSIG(status));
    return cs_fail(err, CS_EIO, "gnuplot exited with status %d",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int gp_run(const char *script, cs_gpbuf *stdout_text, const cs_cancel *cancel,
                  cs_err *err)
{
    cs_gp_info info;
    int rc = cs_gp_detect(&info, err);
    if (rc != CS_OK)
        return rc;
    cs_gpbuf errb;
    cs_gpbuf_init(&errb);
    int status = 0;
    char *argv[] = {info.path, (char *)"-d", (char *)"/dev/stdin", NULL};
    rc = run_child(info.path, argv, script, strlen(script), stdout_text, &errb, &status, cancel,
                   err);
    if (rc == CS_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        rc = gnuplot_error(script, cs_gpbuf_str(&errb), status, err);
    cs_gpbuf_free(&errb);
    return rc;
}

int cs_gp_run(const char *script, cs_gpbuf *stdout_text, cs_err *err)
{
    return gp_run(script, stdout_text, NULL, err);
}

/* ---- outputs -------------------------------------------------------------- */

int cs_gp_check_name(const char *path, cs_err *err)
{
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty output file name");
    size_t n = strlen(path);
    if (n >= 3900)
        return cs_fail(err, CS_EINVAL, "output file name too long");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return cs_fail(err, CS_EINVAL,
                           "output file name contains a control character (byte %ld)",
                           (long)(p - (const unsigned char *)path) + 1);
    if (path[n - 1] == '/')
        return cs_fail(err, CS_EINVAL, "output file name '%s' names a directory", path);
    return CS_OK;
}

int cs_gp_check_path(const char *path, cs_err *err)
{
    int rc = cs_gp_check_name(path, err);
    if (rc != CS_OK)
        return rc;
    /* missing folders are made at the write (cs_make_parents); the nearest
     * existing one must be a folder */
    struct stat st;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
        *slash = '\0';
        if (slash == dir || stat(dir, &st) != 0)
            continue;
        if (!S_ISDIR(st.st_mode))
            return cs_fail(err, CS_EIO, "cannot write '%s': '%s' is not a folder", path, dir);
        break;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_fail(err, CS_EINVAL, "cannot write '%s': it is a directory", path);
    return CS_OK;
}

/* A name gnuplot takes as a plain file: never starting with '|' (a pipe to
 * a shell command!) or '~' (home expansion). */
static void output_name(cs_gpbuf *b, const char *path)
{
    if (path[0] != '/' && strncmp(path, "./", 2) != 0 && strncmp(path, "../", 3) != 0)
        cs_gpbuf_append(b, "./", 2);
    cs_gpbuf_append(b, path, strlen(path));
}

void cs_gp_compose(cs_gpbuf *out, const char *prologue, const char *body,
                   const char *output)
{
    cs_gpbuf_append(out, prologue, strlen(prologue));
    if (output) {
        cs_gpbuf name;
        cs_gpbuf_init(&name);
        output_name(&name, output);
        cs_gpbuf_printf(out, "set output ");
        cs_gpbuf_quote(out, cs_gpbuf_str(&name));
        cs_gpbuf_printf(out, "\n");
        if (name.failed)
            out->failed = 1;
        cs_gpbuf_free(&name);
    }
    cs_gpbuf_append(out, body, strlen(body));
    if (output)
        cs_gpbuf_printf(out, "unset output\n");
}

int cs_gp_render(const char *prologue, const char *body, const char *path,
                 cs_gpbuf *stdout_text, FILE *script_only, const cs_cancel *cancel, cs_err *err)
{
    if (path) {
        int rc = script_only ? cs_gp_check_name(path, err) : cs_gp_check_path(path, err);
        if (rc != CS_OK)
            return rc;
    }
    cs_gpbuf script;
    cs_gpbuf_init(&script);
    int rc = CS_OK;
    if (script_only) {
        cs_gp_compose(&script, prologue, body, path);
        if (script.failed)
            rc = cs_fail(err, CS_ENOMEM, "out of memory building the gnuplot script");
        else if (fwrite(cs_gpbuf_str(&script), 1, script.len, script_only) != script.len ||
                 fflush(script_only) != 0)
            rc = cs_fail(err, CS_EIO, "cannot write the gnuplot script: %s", strerror(errno));
        cs_gpbuf_free(&script);
        return rc;
    }

    /* an MPI rank other than 0 writes no image (cs_file.h) */
    if (path && cs_file_discard())
        return CS_OK;
    rc = cs_gp_detect(NULL, err);
    if (rc != CS_OK)
        return rc;
    char tmp[4200];
    if (path) {
        int fd = cs_tmp_create(path, tmp, sizeof tmp, err);
        if (fd < 0)
            return fd;
        close(fd);
    }
    cs_gp_compose(&script, prologue, body, path ? tmp : NULL);
    if (script.failed)
        rc = cs_fail(err, CS_ENOMEM, "out of memory building the gnuplot script");
    else
        rc = gp_run(cs_gpbuf_str(&script), stdout_text, cancel, err);
    cs_gpbuf_free(&script);
    if (path) {
        /* gnuplot's own write errors (svg, gif) name a line of the script:
         * say which file could not be written */
        if (rc == CS_EIO && strstr(err->msg, "system error")) {
            char msg[CS_ERR_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            rc = cs_fail(err, CS_EIO, "cannot write '%s' (the file is left as it was): %s", path,
                         msg);
        }
        /* the finished image is checked before it replaces the old file */
        if (rc == CS_OK)
            rc = cs_gp_check_image(tmp, path, err);
        if (rc == CS_OK && rename(tmp, path) != 0)
            rc = cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(errno));
        if (rc != CS_OK)
            unlink(tmp);
    }
    return rc;
}

int cs_gp_save_script(const char *file, const char *note, const char *prologue,
                      const char *body, const char *output_name, cs_err *err)
{
    cs_gpbuf s;
    cs_gpbuf_init(&s);
    if (note)
        cs_gpbuf_append(&s, note, strlen(note));
    cs_gp_compose(&s, prologue, body, output_name);
    if (s.failed) {
        cs_gpbuf_free(&s);
        return cs_fail(err, CS_ENOMEM, "out of memory building the gnuplot script");
    }
    cs_afile af;
    int rc = cs_afile_open(&af, file, 0, err);
    if (!rc) {
        rc = cs_afile_write(&af, cs_gpbuf_str(&s), s.len, err);
        if (!rc)
            rc = cs_afile_commit(&af, err);
        if (rc)
            cs_afile_abort(&af);   /* the old file stays */
    }
    cs_gpbuf_free(&s);
    return rc;
}
