/* repl.c — the interactive line loop: GNU readline with history kept across
 * runs and tab completion from the command table; plain lines when stdin is
 * not a terminal. Ctrl-C cancels the running command or the line being
 * typed; Ctrl-D leaves. While a `for` loop is typed the prompt is "...> "
 * (cs_interp_prompt) until its `end`, which runs it; Ctrl-C drops it. */
#include "cs_frontend.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cs_complete.h"
#include "cs_text.h"

static cs_cancel *cancel_flag;
static cs_interp *repl_in;   /* for on_signal_event: a loop being typed */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    if (cs_cancelled(cancel_flag)) {
        /* a second Ctrl-C while a command ignores the first: give up */
        static const char msg[] = "\ninterrupted twice, leaving\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(130);
    }
    interrupted = 1;
    if (cancel_flag)
        atomic_store(cancel_flag, 1);
}

/* Called by readline when a signal arrives while it reads: drop the line
 * being typed and start a fresh prompt, as a shell does. */
static int on_signal_event(void)
{
    if (interrupted) {
        interrupted = 0;
        if (cancel_flag)
            atomic_store(cancel_flag, 0);
        rl_crlf();
        rl_replace_line("", 0);
        int col;
        cs_err err;
        if (repl_in && cs_interp_finish(repl_in, &col, &err) < 0) {
            /* a for loop being typed is dropped with the line */
            char prompt[256];
            cs_interp_prompt(repl_in, prompt, sizeof prompt);
            rl_set_prompt(prompt);
        }
        rl_on_new_line();
        rl_redisplay();
    }
    return 0;
}

/* readline's key reader, without its race: a Ctrl-C that lands while
 * readline is busy between two reads (redisplaying what was typed) would
 * not interrupt the next read, and the fresh prompt would wait for the next
 * key. SIGINT stays blocked from the check of the flag until pselect, which
 * unblocks it atomically while it waits. */
static int repl_getc(FILE *stream)
{
    int fd = fileno(stream);
    sigset_t intr, wait_mask;
    sigemptyset(&intr);
    sigaddset(&intr, SIGINT);
    sigprocmask(SIG_BLOCK, &intr, &wait_mask);
    sigdelset(&wait_mask, SIGINT);
    int c = EOF;
    for (;;) {
        rl_check_signals();   /* readline's own (a resize) */
        if (interrupted) {
            on_signal_event();
            continue;
        }
        fd_set r;
        FD_ZERO(&r);
        FD_SET(fd, &r);
        int n = pselect(fd + 1, &r, NULL, NULL, NULL, &wait_mask);
        if (n < 0 && errno == EINTR)
            continue;
        unsigned char ch;
        ssize_t k = n < 0 ? -1 : read(fd, &ch, 1);
        if (k < 0 && errno == EINTR)
            continue;
        c = k == 1 ? ch : EOF;
        break;
    }
    sigprocmask(SIG_UNBLOCK, &intr, NULL);
    return c;
}

static void install_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* $XDG_STATE_HOME/csreg/history, else ~/.local/state/csreg/history. */
static int history_path(char *buf, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4096];
    if (state && *state)
        snprintf(dir, sizeof dir, "%s/csreg", state);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.local/state/csreg", home);
    else
        return -1;
    /* mkdir -p */
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    if ((size_t)snprintf(buf, len, "%s/history", dir) >= len)
        return -1;
    return 0;
}

static char **matches;
static size_t match_next;

static char *match_generator(const char *text, int state)
{
    (void)text;
    if (state == 0)
        match_next = 0;
    if (!matches || !matches[match_next])
        return NULL;
    return strdup(matches[match_next++]);
}

static char **attempt_completion(const char *text, int start, int end)
{
    (void)text;
    rl_attempted_completion_over = 1;
    cs_complete_free(matches);
    matches = cs_complete(rl_line_buffer, (size_t)start, (size_t)end);
    if (!matches)
        return NULL;
    /* keys (kind=) and folders (dir/) expect more: no space after them */
    size_t n = 0;
    while (matches[n])
        n++;
    const char *last = matches[0];
    char tail = last[strlen(last) - 1];
    rl_completion_append_character = (n == 1 && (tail == '=' || tail == '/')) ? '\0' : ' ';
    return rl_completion_matches(text, match_generator);
}

static void repl_init(cs_interp *in, int tty, char *hist, size_t len)
{
    cancel_flag = cs_interp_cancel_flag(in);
    repl_in = in;
    install_sigint();
    hist[0] = '\0';
    if (!tty)
        return;
    rl_readline_name = "csreg";
    rl_basic_word_break_characters = " \t";
    rl_completer_word_break_characters = " \t";
    rl_attempted_completion_function = attempt_completion;
    rl_signal_event_hook = on_signal_event;
    rl_getc_function = repl_getc;
    rl_catch_signals = 0;
    if (history_path(hist, len) == 0)
        read_history(hist);
    else
        hist[0] = '\0';
}

/* lua.c's shape: read, save, free a line, with or without readline.
 * Piped input is read as a script is: a NUL byte or a runaway line is
 * reported (in err, *bad set) and the line dropped. */
static char *repl_readline(int tty, const char *prompt, int *bad, cs_err *err)
{
    static long lineno;
    *bad = 0;
    if (tty)
        return readline(prompt);
    char *line = NULL;
    size_t cap = 0, len;
    int col;
    cs_err sub;
    int got = cs_text_line(stdin, &line, &cap, &len, &col, &sub);
    lineno++;
    if (got == 0) {
        free(line);
        return NULL;
    }
    if (got < 0) {
        cs_fail(err, got, "input line %ld: %s", lineno, sub.msg);
        *bad = 1;
        if (got == CS_EINVAL && col == 0)   /* the rest of a runaway line */
            for (int c = getchar(); c != EOF && c != '\n'; c = getchar())
                ;
        free(line);
        line = strdup("");
    }
    return line;
}

static void repl_saveline(int tty, const char *line, const char *hist)
{
    if (!tty || !line[strspn(line, " \t")])
        return;
    HIST_ENTRY *prev = history_length ? history_get(history_base + history_length - 1) : NULL;
    if (prev && !strcmp(prev->line, line))
        return;
    add_history(line);
    if (hist[0]) {
        /* appended at once, so a crash or a kill loses nothing */
        if (access(hist, F_OK) != 0)
            write_history(hist);
        else
            append_history(1, hist);
        history_truncate_file(hist, 2000);
    }
}

int cs_repl(cs_interp *in, int json)
{
    int tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    char hist[4096];
    repl_init(in, tty, hist, sizeof hist);
    int status = 0, lineno = 0;
    for (;;) {
        char prompt[256];
        cs_interp_prompt(in, prompt, sizeof prompt);
        interrupted = 0;
        int bad;
        cs_err rerr;
        char *line = repl_readline(tty, prompt, &bad, &rerr);
        if (!line) {
            if (interrupted && !tty)
                continue;
            break;
        }
        if (bad) {
            if (json)
                cs_interp_print_error(in, "", &rerr, stdout);
            else
                fprintf(stderr, "error: %s\n", rerr.msg);
            status = 1;
            free(line);
            continue;
        }
        repl_saveline(tty, line, hist);
        lineno++;
        /* piped input is a script: its errors name the line (a loop's too) */
        cs_interp_set_line(in, lineno);
        int rc = cs_run_line(in, line, tty ? NULL : "<stdin>", lineno, json);
        free(line);
        if (interrupted) {
            interrupted = 0;
            fprintf(stderr, "(interrupted)\n");
        }
        if (rc == 2)
            break;
        if (rc == 1 && !tty)
            status = 1; /* piped input: report failure at exit, keep going */
    }
    if (tty)
        putchar('\n');
    int col;
    cs_err ferr;
    if (cs_interp_finish(in, &col, &ferr) < 0) {   /* a for without its end */
        const char *head;
        int at = cs_interp_where(in, &head);
        if (json)
            cs_interp_print_error(in, head ? head : "", &ferr, stdout);
        else if (tty)
            fprintf(stderr, "error: %s\n", ferr.msg);
        else
            fprintf(stderr, "<stdin>:%d:%d: error: %s\n", at, col, ferr.msg);
        status = 1;
    }
    cs_complete_free(matches);
    matches = NULL;
    return status;
}
