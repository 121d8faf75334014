/* progress.c — a progress bar with ETA on stderr (see cs_progress.h). */
#include "cs_progress.h"
#include "cs_clock.h"
#include "cs_dist.h"
#include "cs_train_view.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static struct {
    double t0, last_draw, last_done;
    char what[96];
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

/* "[######........]" for frac of the work done */
static void bar_cells(double frac, char *cells, int width)
{
    int full = (int)(frac * width);
    for (int i = 0; i < width; i++)
        cells[i] = i < full ? '#' : '.';
    cells[width] = '\0';
}

void cs_progress_draw(void *ctx, double done, double total, const char *what)
{
    (void)ctx;
    if (!isatty(STDERR_FILENO) || !(total > 0))
        return;
    what = what ? what : "working";
    double t = cs_now();
    /* "sweep  gamma=0.46 (9/31)": the task, then after two spaces what it is
     * on; only a new task (or done going back) restarts the clock */
    const char *sub = strstr(what, "  ");
    size_t tl = sub ? (size_t)(sub - what) : strlen(what);
    const char *osub = strstr(bar.what, "  ");
    size_t otl = osub ? (size_t)(osub - bar.what) : strlen(bar.what);
    if (!bar.shown || tl != otl || strncmp(bar.what, what, tl) != 0 || done < bar.last_done) {
        bar.t0 = t;
        bar.last_draw = 0;
    }
    snprintf(bar.what, sizeof bar.what, "%s", what);
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
    char eta[32] = "--", spent[32], tail[160];
    double el = t - bar.t0;
    if (done > 0 && el > 0.5)
        cs_progress_fmt_time(el * (total - done) / done, eta, sizeof eta);
    cs_progress_fmt_time(el, spent, sizeof spent);
    snprintf(tail, sizeof tail, "%3d%%  %.0f/%.0f  %s elapsed  ETA %s", (int)(100 * frac), done,
             total, spent, eta);
    /* one line of the terminal: the hint, then the bar give way */
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    static const char hint[] = "  (Ctrl-C stops)";
    int room = cols - 1 - (int)strlen(bar.what) - (int)strlen(tail) - 4;
    int show_hint = room - (int)strlen(hint) >= 10;
    if (show_hint)
        room -= (int)strlen(hint);
    enum { WIDTH = 30 };
    int width = room > WIDTH ? WIDTH : room;
    char cells[WIDTH + 1] = "";
    if (width >= 5)
        bar_cells(frac, cells, width);
    fprintf(stderr, "\r%s%s%s%s %s%s\033[K", bar.what, width >= 5 ? " [" : "",
            width >= 5 ? cells : "", width >= 5 ? "]" : "", tail, show_hint ? hint : "");
    fflush(stderr);
}

/* train and finetune (frames without histograms, ten a second at most):
 * "train epoch 1/2 [######......]  45%  ETA 12s  loss 0.4123  31000 img/s",
 * and when Ctrl-C stopped the run, a line saying what the network keeps. */
static void draw_train(void *ctx, const cs_train_frame *f, cs_train_want *want)
{
    (void)ctx;
    (void)want;
    if (!isatty(STDERR_FILENO))
        return;
    if (f->final) {
        cs_progress_end();
        if (f->stopped)
            fprintf(stderr, "%s stopped at step %zu (epoch %d/%d, %zu of %zu steps): the network "
                            "keeps the weights of that step, its last completed one\n",
                    f->what, f->step, f->epoch, f->epochs, f->run_step, f->run_steps);
        fflush(stderr);
        return;
    }
    if (f->run_steps == 0)
        return;
    char eta[32] = "--", head[64], tail[160], cells[32];
    double frac = (double)f->run_step / (double)f->run_steps;
    if (f->seconds > 0.5)
        cs_progress_fmt_time(f->eta, eta, sizeof eta);
    snprintf(head, sizeof head, "%s epoch %d/%d", f->what, f->epoch, f->epochs);
    snprintf(tail, sizeof tail, "%3d%%  ETA %s  loss %.4f  %.0f img/s", (int)(100 * frac), eta,
             f->loss, f->images_per_s);
    /* one line of the terminal: the bar and the hint give way first */
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    static const char hint[] = "  (Ctrl-C stops)";
    int room = cols - 1 - (int)strlen(head) - (int)strlen(tail) - 4;
    int show_hint = room - (int)strlen(hint) >= 10;
    if (show_hint)
        room -= (int)strlen(hint);
    int width = room > 20 ? 20 : room;
    if (width >= 5)
        bar_cells(frac, cells, width);
    bar.shown = 1;
    fprintf(stderr, "\r%s%s%s%s %s%s\033[K", head, width >= 5 ? " [" : "",
            width >= 5 ? cells : "", width >= 5 ? "]" : "", tail, show_hint ? hint : "");
    fflush(stderr);
}

static void on_sigint(int sig)
{
    (void)sig;
    if (cancel_flag)
        atomic_store(cancel_flag, 1);
}

void cs_progress_install(cs_interp *in, int json)
{
    cs_interp_set_progress(in, cs_progress_draw, NULL);
    if (!json)
        cs_interp_set_watch(in, draw_train, NULL, 0);
    cancel_flag = cs_interp_cancel_flag(in);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the program */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    /* Ctrl-C to mpirun reaches the ranks as SIGTERM (then SIGKILL a few
     * seconds later): stop as from Ctrl-C, so that rank 0 still writes
     * what finished and says so */
    if (cs_dist_size() > 1)
        sigaction(SIGTERM, &sa, NULL);
}
