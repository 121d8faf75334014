/* tui_term.c — the terminal, set up and put back on every way out: normal
 * exit (atexit), errors, and signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT and
 * the fatal ones), where an async-signal-safe handler restores termios and
 * writes the strings endwin would send, then re-raises. Also keeps stderr
 * off the screen while the workbench runs (captured, shown as messages,
 * given back with its content if the program dies). */
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "tui_internal.h"

static volatile sig_atomic_t curses_on;
static struct termios saved_tio;
static int tio_saved;
static char restore_seq[256];
static size_t restore_len;
static int saved_stderr = -1;
static int capture_err_fd = -1;

static void append_cap(const char *name)
{
    char *s = tigetstr(name);
    if (!s || s == (char *)-1)
        return;
    size_t n = strlen(s);
    if (restore_len + n < sizeof restore_seq) {
        memcpy(restore_seq + restore_len, s, n);
        restore_len += n;
    }
}

/* Async-signal-safe: put the terminal back (termios and the escape strings
 * endwin would send), give stderr back with what was captured, re-raise. */
static void on_fatal(int sig)
{
    if (curses_on) {
        if (tio_saved)
            tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
        ssize_t r = write(STDOUT_FILENO, restore_seq, restore_len);
        (void)r;
        curses_on = 0;
    }
    if (saved_stderr >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        if (capture_err_fd >= 0) {
            char buf[4096];
            ssize_t got;
            off_t at = 0;
            while ((got = pread(capture_err_fd, buf, sizeof buf, at)) > 0) {
                ssize_t r = write(STDERR_FILENO, buf, (size_t)got);
                (void)r;
                at += got;
            }
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void tui_term_restore(void)
{
    if (curses_on) {
        curses_on = 0;
        endwin();
    }
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        saved_stderr = -1;
        capture_err_fd = -1;
    }
}

int tui_term_capture_stderr(int fd)
{
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    if (saved_stderr < 0)
        return -1;
    if (dup2(fd, STDERR_FILENO) < 0) {
        close(saved_stderr);
        saved_stderr = -1;
        return -1;
    }
    capture_err_fd = fd;
    return 0;
}

void tui_term_guard(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
                               SIGBUS, SIGFPE,  SIGILL, SIGABRT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
    atexit(tui_term_restore);
}

int tui_term_start(void)
{
    if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
        tio_saved = 1;
    const char *cs = nl_langinfo(CODESET);
    tui_cap.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8")) &&
                   !getenv("CSREG_TUI_ASCII");
    if (!initscr())
        return -1;
    curses_on = 1;
    append_cap("sgr0");
    append_cap("cnorm");
    append_cap("rmkx");
    append_cap("rmcup");
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    /* a click on the map sets the start; the other buttons stay the
     * terminal's (selecting text works with Shift held) */
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
    mouseinterval(0);
    tui_colors_init();
    return 0;
}

