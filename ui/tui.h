/* tui.h — the full-screen workbench (ncurses). */
#ifndef CS_TUI_H
#define CS_TUI_H

#include "cs_interp.h"

/* Run the workbench until the user quits. opts.out is replaced by the
 * TUI's own message capture. demo: start on the built-in demo; script
 * (may be NULL): play this script (the tour), a line at a time, stopping at
 * each `pause`. Returns the process exit status (0, or 1 when the terminal
 * or the script could not be set up). */
int cs_tui_main(const cs_interp_opts *opts, int demo, const char *script);
/* The workbench on a run folder (`csreg watch DIR [DIR2]`): the training
 * view follows it (vs: a second folder to compare, may be NULL). 1 when a
 * folder is not there (said on stderr, before the screen is taken). */
int cs_tui_watch(const cs_interp_opts *opts, const char *dir, const char *vs);

#endif
