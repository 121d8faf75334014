/* cli_util.h — run the csreg program as users do ($CSREG_BIN, else
 * ./csreg): arguments, stdin, the exit status, stdout and stderr; and
 * optionally a SIGINT sent while it runs, once a text has appeared. */
#ifndef CS_CLI_UTIL_H
#define CS_CLI_UTIL_H

#include <stddef.h>

typedef struct cli_run {
    int status;      /* exit status; 128 + N when killed by signal N */
    int signaled;    /* killed by a signal */
    int interrupted; /* the SIGINT was sent */
    char *out, *err; /* what it wrote, NUL-terminated (malloc'd) */
} cli_run;

typedef struct cli_opts {
    const char *stdin_text;  /* NULL: empty */
    const char *cwd;         /* NULL: the test's own */
    /* SIGINT once this text is in stdout or stderr (NULL: never), after
     * delay_ms more; or once when(when_ctx) says so (polled every 20 ms) */
    const char *interrupt_after;
    int delay_ms;
    int (*when)(void *ctx);
    void *when_ctx;
    int signo;               /* the signal sent (0: SIGINT) */
    int timeout_s;           /* then SIGKILL (0: 300) */
} cli_opts;

/* The program under test. */
const char *cli_binary(void);
/* Run it with args (NULL-terminated, without argv[0]). Frees what r held. */
void cli_run_opts(cli_run *r, const cli_opts *o, const char *const *args);
void cli_run_args(cli_run *r, const char *stdin_text, const char *const *args);
/* The same for another program (a path, e.g. /usr/bin/mpirun), not csreg. */
void cli_run_program(cli_run *r, const cli_opts *o, const char *prog, const char *const *args);
void cli_run_free(cli_run *r);

/* Seconds on the monotonic clock. */
double cli_now(void);

/* A file in /tmp holding text; its name (static storage, one at a time). */
char *cli_write_script(const char *text, size_t len);

#endif
