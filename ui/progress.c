/* progress.c — a progress bar with ETA on stderr (see cs_progress.h). */
#include "cs_progress.h"
#include "cs_clock.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    double t0, last_draw, last_done;
    char what[32];
    int shown;
} bar;

static cs_cancel *cancel_flag;

void cs_progress_fmt_time(double s, char *buf, size_t len)
{
    if (!(s >= 0) || !isfinite(s)) {
        snprintf(buf, len, "--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

void cs_progress_end(void)
{
    if (bar.shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        bar.shown = 0;
    }
}

void cs_progress_draw(void *ctx, double done, double total, const char *what)
{
    (void)ctx;
    if (!isatty(STDERR_FILENO) || !(total > 0))
        return;
    what = what ? what : "working";
    double t = cs_now();
    if (!bar.shown || strcmp(bar.what, what) != 0 || done < bar.last_done) {
        bar.t0 = t;
        bar.last_draw = 0;
        snprintf(bar.what, sizeof bar.what, "%s", what);
    }
    bar.last_done = done;
    if (done >= total) {
        if (bar.shown)
            fprintf(stderr, "\r\033[K");
        fflush(stderr);
        bar.shown = 0;
        return;
    }
    if (bar.shown && t - bar.last_draw < 0.1)
        return;
    bar.last_draw = t;
    bar.shown = 1;
    double frac = done / total;
    enum { WIDTH = 30 };
    char cells[WIDTH + 1];
    int full = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        cells[i] = i < full ? '#' : '.';
    cells[WIDTH] = '\0';
    char eta[32] = "--", spent[32];
    double el = t - bar.t0;
    if (done > 0 && el > 0.5)
        cs_progress_fmt_time(el * (total - done) / done, eta, sizeof eta);
    cs_progress_fmt_time(el, spent, sizeof spent);
    fprintf(stderr, "\r%s [%s] %3d%%  %.0f/%.0f  %s elapsed  ETA %s  (Ctrl-C stops)\033[K",
            bar.what, cells, (int)(100 * frac), done, total, spent, eta);
    fflush(stderr);
}

static void on_sigint(int sig)
{
    (void)sig;
    if (cancel_flag)
        atomic_store(cancel_flag, 1);
}

void cs_progress_install(cs_interp *in)
{
    cs_interp_set_progress(in, cs_progress_draw, NULL);
    cancel_flag = cs_interp_cancel_flag(in);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the program */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}
