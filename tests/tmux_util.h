/* tmux_util.h — drive a program inside a private tmux server and read its
 * screen, for end-to-end tests of the REPL and the TUI. */
#ifndef CS_TMUX_UTIL_H
#define CS_TMUX_UTIL_H

#include <stddef.h>

typedef struct tmux_session {
    char socket[64];
    char name[16];
} tmux_session;

int tmux_available(void);
/* Start `cmd` (run by tmux's shell) in a w×h window; env is "K=V" strings, NULL-terminated. */
int tmux_start(tmux_session *t, int w, int h, const char *cmd);
/* tmux_start, retried: the socket name is made of the pid and a counter, so
 * a test starting while the previous one's server is going away can meet
 * it; a few tries 0.3 s apart. */
int tmux_start_retry(tmux_session *t, int w, int h, const char *cmd);
/* send-keys arguments (tmux key names or literal text), NULL-terminated */
int tmux_keys(tmux_session *t, const char *const *keys);
int tmux_literal(tmux_session *t, const char *text);
/* capture-pane into buf (the visible screen), returns 0 on success */
int tmux_screen(tmux_session *t, char *buf, size_t len);
/* the same with the colours and attributes as escape sequences (-e) */
int tmux_screen_colours(tmux_session *t, char *buf, size_t len);
/* wait until the screen contains `needle` (up to ms milliseconds) */
int tmux_wait_for(tmux_session *t, const char *needle, int ms, char *buf, size_t len);
/* is the program in the pane still running? */
int tmux_pane_alive(tmux_session *t);
void tmux_stop(tmux_session *t);
/* A private folder /tmp/PREFIXxxxxxx for the program's state
 * (XDG_STATE_HOME: its REPL history) and files; and its removal with the
 * history and the files in it. */
int tmux_state_dir(char *dir, size_t len, const char *prefix);
void tmux_state_dir_remove(const char *dir);

/* ---- the workbench (the TUI tests) ---- */
/* The program under test: $CSREG_BIN, else ./csreg. */
const char *tmux_csreg_bin(void);
/* The workbench (with args, e.g. "--demo" or "") in a w×h window, with
 * LC_ALL=C.UTF-8, XDG_STATE_HOME=state_dir and extra_env ("K=V" or ""),
 * under a shell that prints "CSREG_EXITED rc=N" when it leaves (so the
 * screen after quitting shows whether the terminal came back). Retried: a
 * previous test's server going away can meet the start. */
int tmux_start_workbench(tmux_session *t, int w, int h, const char *state_dir,
                         const char *extra_env, const char *args);
/* A command typed at the workbench's command line: ':', the line, Enter. */
int tmux_command(tmux_session *t, const char *line);

#endif
