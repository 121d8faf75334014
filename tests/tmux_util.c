#include "tmux_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Run tmux with args; capture stdout into out (may be NULL). */
static int tmux_run(tmux_session *t, const char *const *args, char *out, size_t len)
{
    const char *argv[40];
    size_t n = 0;
    argv[n++] = "tmux";
    argv[n++] = "-L";
    argv[n++] = t->socket;
    for (size_t i = 0; args[i] && n < 38; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    /* Only capture when asked: a tmux server started by new-session would
     * inherit the pipe and keep it open forever. */
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out)
        posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "tmux", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return -1;
    }
    size_t used = 0;
    char sink[4096];
    ssize_t got;
    while ((got = read(fds[0], out ? out + used : sink,
                       out ? len - 1 - used : sizeof sink)) > 0)
        if (out)
            used += (size_t)got;
    if (out)
        out[used] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int tmux_available(void)
{
    tmux_session t = {.socket = "csreg_probe"};
    return tmux_run(&t, (const char *[]){"-V", NULL}, NULL, 0) == 0;
}

int tmux_start(tmux_session *t, int w, int h, const char *cmd)
{
    /* a fresh server per session: pid and a counter, never reused */
    static int serial;
    snprintf(t->socket, sizeof t->socket, "csreg_test_%d_%d", (int)getpid(), ++serial);
    snprintf(t->name, sizeof t->name, "t");
    char ws[16], hs[16];
    snprintf(ws, sizeof ws, "%d", w);
    snprintf(hs, sizeof hs, "%d", h);
    return tmux_run(t, (const char *[]){"-f", "/dev/null", "new-session", "-d", "-s", t->name, "-x",
                                        ws, "-y", hs, cmd, NULL},
                    NULL, 0);
}

int tmux_start_retry(tmux_session *t, int w, int h, const char *cmd)
{
    for (int tries = 0; tries < 8; tries++) {
        if (tmux_start(t, w, h, cmd) == 0)
            return 0;
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

int tmux_keys(tmux_session *t, const char *const *keys)
{
    const char *args[32] = {"send-keys", "-t", t->name};
    size_t n = 3;
    for (size_t i = 0; keys[i] && n < 31; i++)
        args[n++] = keys[i];
    args[n] = NULL;
    return tmux_run(t, args, NULL, 0);
}

int tmux_literal(tmux_session *t, const char *text)
{
    return tmux_run(t, (const char *[]){"send-keys", "-t", t->name, "-l", text, NULL}, NULL, 0);
}

int tmux_screen(tmux_session *t, char *buf, size_t len)
{
    return tmux_run(t, (const char *[]){"capture-pane", "-p", "-t", t->name, NULL}, buf, len);
}

int tmux_screen_colours(tmux_session *t, char *buf, size_t len)
{
    return tmux_run(t, (const char *[]){"capture-pane", "-p", "-e", "-t", t->name, NULL}, buf,
                    len);
}

int tmux_wait_for(tmux_session *t, const char *needle, int ms, char *buf, size_t len)
{
    for (int waited = 0; waited <= ms; waited += 50) {
        if (tmux_screen(t, buf, len) == 0 && strstr(buf, needle))
            return 0;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

int tmux_pane_alive(tmux_session *t)
{
    char out[64];
    if (tmux_run(t, (const char *[]){"display-message", "-p", "-t", t->name, "#{pane_dead}", NULL},
                 out, sizeof out) != 0)
        return 0;
    return out[0] == '0';
}

void tmux_stop(tmux_session *t)
{
    tmux_run(t, (const char *[]){"kill-server", NULL}, NULL, 0);
}

/* ---- the workbench ---------------------------------------------------------- */

const char *tmux_csreg_bin(void)
{
    const char *b = getenv("CSREG_BIN");
    return b ? b : "./csreg";
}

int tmux_start_workbench(tmux_session *t, int w, int h, const char *state_dir,
                         const char *extra_env, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "env LC_ALL=C.UTF-8 XDG_STATE_HOME=%s %s %s %s; echo CSREG_EXITED rc=$?; sleep 60",
             state_dir, extra_env, tmux_csreg_bin(), args);
    for (int tries = 0; tries < 8; tries++) {
        if (tmux_start(t, w, h, cmd) == 0)
            return 0;
        usleep(300000);
    }
    return -1;
}

int tmux_command(tmux_session *t, const char *line)
{
    if (tmux_keys(t, (const char *[]){":", NULL}) || tmux_literal(t, line))
        return -1;
    return tmux_keys(t, (const char *[]){"Enter", NULL});
}

int tmux_state_dir(char *dir, size_t len, const char *prefix)
{
    snprintf(dir, len, "/tmp/%sXXXXXX", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

void tmux_state_dir_remove(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/csreg/history", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/csreg", dir);
    rmdir(p);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}
