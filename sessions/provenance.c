/* provenance.c — the comment lines an output CSV begins with
 * (cs_provenance.h). */
#include "cs_provenance.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

typedef struct text {
    char *buf;
    size_t cap, len;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->cap == 0)
        return;
    size_t room = t->cap - 1 - t->len;
    if (n > room)
        n = room;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* A value as the command line parser reads it back: quoted when it holds
 * a blank, a quote or a '#'. */
static void put_value(text *t, const char *v, int quoted)
{
    if (!quoted && *v && !strpbrk(v, " \t\"'#")) {
        puts_(t, v);
        return;
    }
    const char *q = strchr(v, '"') ? "'" : "\"";
    puts_(t, q);
    puts_(t, v);
    puts_(t, q);
}

/* One comment line; a line cut by the end of buf still ends in '\n'. */
static void end_line(text *t)
{
    if (t->cap == 0)
        return;
    if (t->len + 1 >= t->cap)
        t->len = t->cap - 2;
    t->buf[t->len++] = '\n';
    t->buf[t->len] = '\0';
}

size_t cs_provenance(const cs_interp *in, const cs_cmdline *cl, int flags, char *buf,
                     size_t cap)
{
    return cs_provenance_with(in, cl, NULL, flags, buf, cap);
}

size_t cs_provenance_with(const cs_interp *in, const cs_cmdline *cl, const char *extra,
                          int flags, char *buf, size_t cap)
{
    text t = {buf, cap, 0};
    if (cap < 2)
        return cap ? (buf[0] = '\0', 0) : 0;
    buf[0] = '\0';
    char line[128];
    snprintf(line, sizeof line, "# csreg: %s (commit %s)", CSREG_VERSION, CSREG_COMMIT);
    puts_(&t, line);
    end_line(&t);
    snprintf(line, sizeof line, "# seed: %" PRIu64, in->seed);
    puts_(&t, line);
    end_line(&t);
    puts_(&t, "# command: ");
    puts_(&t, cl->name ? cl->name : "");
    for (size_t i = 0; i < cl->nargs; i++) {
        const cs_arg *a = &cl->args[i];
        puts_(&t, " ");
        if (a->key) {
            puts_(&t, a->key);
            puts_(&t, "=");
        }
        put_value(&t, a->value, a->quoted);
    }
    if (extra) {
        puts_(&t, " ");
        puts_(&t, extra);
    }
    end_line(&t);
    if (flags & CS_PROV_REG) {
        puts_(&t, "# reg: ");
        puts_(&t, in->reg_line);
        end_line(&t);
    }
    return t.len;
}
