/* cmd_tour.c — narration for guided scripts (sessions/tour.csr): `say`,
 * `pause` and `chapter`. They are commands like any other, journaled, so a
 * tour replays in batch mode to the same output files. What they mean on a
 * screen is the front end's business: the TUI's script player shows `say`
 * in a narration box and waits for a key at `pause`; a batch run prints
 * the text and goes on. */
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "interp_internal.h"

/* The positional words, joined by single spaces (a quoted string is one). */
static int join_words(const cs_cmdline *cl, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cs_cmdline_npos(cl); i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "",
                         cs_cmdline_pos(cl, i)->value);
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

static int cmd_say(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    char text[2048];
    if (join_words(cl, text, sizeof text)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "say: the text is longer than %zu characters",
                       sizeof text - 1);
    }
    cs_result_text(res, "%s\n", text);   /* JSON: the field "text" */
    return CS_OK;
}

static int cmd_pause(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    (void)in, (void)cl, (void)res, (void)err;
    return CS_OK;   /* the TUI's player waits for a key; scripts go on */
}

static int cmd_chapter(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    char name[256];
    if (join_words(cl, name, sizeof name)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "chapter: the name is longer than %zu characters",
                       sizeof name - 1);
    }
    in->chapter++;
    cs_result_int(res, "_chapter", in->chapter);   /* '_': JSON only, the text says it */
    cs_result_str(res, "_name", name);
    cs_result_text(res, "== Chapter %d: %s ==\n", in->chapter, name);
    return CS_OK;
}

static const cs_key_spec no_keys[] = {{0}};

static const cs_cmd_spec tour_commands[] = {
    {.name = "say", .topic = "sessions", .usage = "say \"TEXT\"",
     .summary = "narration: a box in the workbench, a printed line in scripts",
     .example = "say \"The cyan lines are the zero set of bin.\"", .min_pos = 1,
     .max_pos = 64, .keys = no_keys, .run = cmd_say, .journal = 1},
    {.name = "pause", .topic = "sessions", .usage = "pause",
     .summary = "wait for a key in the workbench's script player (nothing in batch runs)",
     .example = "pause", .keys = no_keys, .run = cmd_pause, .journal = 1},
    {.name = "chapter", .topic = "sessions", .usage = "chapter NAME",
     .summary = "start the next chapter of a guided script (numbered from 1)",
     .example = "chapter \"Where a CS regularizer is zero\"", .min_pos = 1, .max_pos = 16,
     .keys = no_keys, .run = cmd_chapter, .journal = 1},
};

CS_CMD_GROUP(cs_group_tour, tour_commands);
