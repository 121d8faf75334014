/* cli_util.c — run the csreg program (see cli_util.h). */
#include "cli_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct sink {
    char *s;
    size_t len, cap;
} sink;

static void sink_add(sink *k, const char *p, size_t n)
{
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        while (cap < k->len + n + 1)
            cap *= 2;
        char *s = realloc(k->s, cap);
        if (!s)
            abort();
        k->s = s;
        k->cap = cap;
    }
    memcpy(k->s + k->len, p, n);
    k->len += n;
    k->s[k->len] = '\0';
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *cli_binary(void)
{
    const char *b = getenv("CSREG_BIN");
    return b && *b ? b : "./csreg";
}

void cli_run_free(cli_run *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

void cli_run_opts(cli_run *r, const cli_opts *o, const char *const *args)
{
    cli_run_program(r, o, NULL, args);
}

void cli_run_program(cli_run *r, const cli_opts *o, const char *prog, const char *const *args)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
    char in_path[] = "/tmp/csreg_cli_inXXXXXX";
    int ifd = mkstemp(in_path);
    int pout[2], perr[2];
    if (ifd < 0 || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC))
        abort();
    unlink(in_path);
    const char *text = o->stdin_text ? o->stdin_text : "";
    if (write(ifd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    lseek(ifd, 0, SEEK_SET);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ifd, 0);
    posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
    posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
    if (o->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
    char bin[4096];
    /* a relative program name means the test's folder, whatever cwd is */
    if (prog)
        snprintf(bin, sizeof bin, "%s", prog);
    else if (!(o->cwd && cli_binary()[0] != '/' && realpath(cli_binary(), bin)))
        snprintf(bin, sizeof bin, "%s", cli_binary());
    char *argv[64];
    size_t n = 0;
    argv[n++] = bin;
    for (size_t i = 0; args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    pid_t pid;
    if (posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0)
        abort();
    posix_spawn_file_actions_destroy(&fa);
    close(ifd);
    close(pout[1]);
    close(perr[1]);
    sink out = {0}, err = {0};
    sink_add(&out, "", 0);
    sink_add(&err, "", 0);
    int fds[2] = {pout[0], perr[0]};
    double t0 = cli_now(), seen = -1, limit = o->timeout_s > 0 ? o->timeout_s : 300;
    int killed = 0;
    while (fds[0] >= 0 || fds[1] >= 0) {
        struct pollfd pf[2];
        int np = 0;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0)
                pf[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        poll(pf, (nfds_t)np, 20);
        for (int i = 0, k = 0; i < 2; i++) {
            if (fds[i] < 0)
                continue;
            if (pf[k++].revents) {
                char buf[8192];
                ssize_t got = read(fds[i], buf, sizeof buf);
                if (got > 0)
                    sink_add(i ? &err : &out, buf, (size_t)got);
                else if (got == 0 || errno != EINTR) {
                    close(fds[i]);
                    fds[i] = -1;
                }
            }
        }
        double t = cli_now();
        if ((o->interrupt_after || o->when) && !r->interrupted) {
            if (seen < 0 && o->interrupt_after &&
                (strstr(out.s, o->interrupt_after) || strstr(err.s, o->interrupt_after)))
                seen = t;
            if (seen < 0 && o->when && o->when(o->when_ctx))
                seen = t;
            if (seen >= 0 && t - seen >= o->delay_ms / 1000.0) {
                kill(pid, o->signo ? o->signo : SIGINT);
                r->interrupted = 1;
            }
        }
        if (!killed && t - t0 > limit) {
            kill(pid, SIGKILL);
            killed = 1;
        }
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    r->signaled = WIFSIGNALED(st);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = out.s;
    r->err = err.s;
}

void cli_run_args(cli_run *r, const char *stdin_text, const char *const *args)
{
    cli_opts o = {.stdin_text = stdin_text};
    cli_run_opts(r, &o, args);
}

char *cli_write_script(const char *text, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/csreg_cli_scriptXXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len)
        abort();
    close(fd);
    return path;
}
