/* tui_sweep_state.c — the live state of a sweep in the TUI: what the
 * worker thread fills from the engine's callbacks and the sweep view copies
 * to draw. A leaf: the worker and the view both call down to it. */
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "tui_internal.h"

/* ---- the state ------------------------------------------------------------- */

void tui_sweep_state_free(tui_sweep_state *s)
{
    free(s->values);
    free(s->method);
    free(s->done);
    free(s->succ);
    s->values = NULL;
    s->method = NULL;
    s->done = s->succ = NULL;
    s->np = s->nm = 0;
    s->run = 0;
}

/* Arrays for np points and nm methods (kept when the sizes match). */
static int state_size(tui_sweep_state *s, size_t np, size_t nm)
{
    if (s->values && s->np == np && s->nm == nm)
        return 0;
    tui_sweep_state_free(s);
    s->values = calloc(np ? np : 1, sizeof *s->values);
    s->method = calloc(nm ? nm : 1, sizeof *s->method);
    s->done = calloc(np ? np : 1, sizeof *s->done);
    s->succ = calloc(np * nm > 0 ? np * nm : 1, sizeof *s->succ);
    if (!s->values || !s->method || !s->done || !s->succ) {
        tui_sweep_state_free(s);
        return -1;
    }
    s->np = np;
    s->nm = nm;
    return 0;
}

int tui_sweep_state_start(tui_sweep_state *s, const cs_sweep_live *l)
{
    if (state_size(s, l->npoints, l->nmethods))
        return -1;
    s->run = l->run;
    snprintf(s->kind, sizeof s->kind, "%s", l->kind ? l->kind : "?");
    snprintf(s->axis, sizeof s->axis, "%s", l->axis ? l->axis : "?");
    s->N = l->N;
    s->trials = l->trials;
    for (size_t i = 0; i < s->np; i++)
        s->values[i] = l->values[i];
    for (size_t m = 0; m < s->nm; m++)
        snprintf(s->method[m], sizeof s->method[m], "%s", l->methods[m]);
    memset(s->done, 0, s->np * sizeof *s->done);
    memset(s->succ, 0, s->np * s->nm * sizeof *s->succ);
    s->total_done = s->preloaded = 0;
    s->started = cs_now();
    s->ended = 0;
    s->end = TUI_SWEEP_RUNNING;
    return 0;
}

void tui_sweep_state_trial(tui_sweep_state *s, size_t point, const unsigned char *success,
                           int preloaded)
{
    if (!s->run || point >= s->np)
        return;
    s->done[point]++;
    for (size_t m = 0; m < s->nm; m++)
        s->succ[point * s->nm + m] += success[m] != 0;
    s->total_done++;
    s->preloaded += preloaded != 0;
}

int tui_sweep_state_copy(tui_sweep_state *dst, const tui_sweep_state *src)
{
    if (state_size(dst, src->np, src->nm))
        return -1;
    tui_sweep_state keep = *dst;   /* dst's arrays, filled below */
    *dst = *src;
    dst->values = keep.values;
    dst->method = keep.method;
    dst->done = keep.done;
    dst->succ = keep.succ;
    memcpy(dst->values, src->values, src->np * sizeof *src->values);
    memcpy(dst->method, src->method, src->nm * sizeof *src->method);
    memcpy(dst->done, src->done, src->np * sizeof *src->done);
    memcpy(dst->succ, src->succ, src->np * src->nm * sizeof *src->succ);
    return 0;
}
