/* complete.c — what may come next on a command line: command names, the
 * keys of the command being typed, closed sets of values, regularizer
 * names, and file names after out=, graph=, run, source. */
#include "cs_complete.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cmdline.h"
#include "cs_commands.h"
#include "cs_reg.h"

typedef struct list {
    char **v;
    size_t n, cap;
} list;

static void add(list *l, const char *prefix, const char *word, const char *suffix,
                const char *typed)
{
    size_t pl = strlen(prefix), wl = strlen(word), sl = strlen(suffix);
    char *s = malloc(pl + wl + sl + 1);
    if (!s)
        return;
    memcpy(s, prefix, pl);
    memcpy(s + pl, word, wl);
    memcpy(s + pl + wl, suffix, sl + 1);
    if (strncmp(s, typed, strlen(typed)) != 0) {
        free(s);
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s)) {
            free(s);
            return;
        }
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
}

/* Add each '|'-separated choice. */
static void add_choices(list *l, const char *prefix, const char *choices, const char *typed)
{
    char word[64];
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len < sizeof word) {
            memcpy(word, c, len);
            word[len] = '\0';
            add(l, prefix, word, "", typed);
        }
        if (!bar)
            break;
        c = bar + 1;
    }
}

static void add_files(list *l, const char *prefix, const char *typed_value, const char *typed)
{
    const char *slash = strrchr(typed_value, '/');
    char dir[4096];
    const char *base = typed_value;
    if (slash) {
        size_t dl = (size_t)(slash - typed_value) + 1;
        if (dl >= sizeof dir)
            return;
        memcpy(dir, typed_value, dl);
        dir[dl] = '\0';
        base = slash + 1;
    } else {
        dir[0] = '\0';
    }
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return;
    struct dirent *e;
    char pre[4200];
    snprintf(pre, sizeof pre, "%s%s", prefix, dir);
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (e->d_name[0] == '.' && base[0] != '.')
            continue;
        add(l, pre, e->d_name, e->d_type == DT_DIR ? "/" : "", typed);
    }
    closedir(d);
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_file_key(const char *key)
{
    return !strcmp(key, "out") || !strcmp(key, "graph") || !strcmp(key, "plot") ||
           !strcmp(key, "data") || !strcmp(key, "C");
}

/* Keys of `reg NAME`: the regularizer's own parameters. */
static void complete_reg_keys(list *l, const char *regname, const char *typed)
{
    const cs_reg_info *r = cs_reg_lookup(regname);
    if (!r)
        return;
    const char *eq = strchr(typed, '=');
    for (size_t i = 0; i < r->nparams; i++) {
        const char *k = r->params[i].key;
        if (!eq) {
            add(l, "", k, "=", typed);
        } else if (strlen(k) == (size_t)(eq - typed) && !strncmp(k, typed, strlen(k))) {
            char pre[64];
            snprintf(pre, sizeof pre, "%s=", k);
            if (!strcmp(k, "base"))
                add_choices(l, pre, "bin|osb|ter", typed);
            else if (!strcmp(k, "beta"))
                add_choices(l, pre, "learn", typed);
            else if (!strcmp(k, "C")) {
                add_choices(l, pre, "random", typed);
                add_files(l, pre, eq + 1, typed);
            }
        }
    }
}

static void complete_arg(list *l, const cs_cmd_spec *cmd, const cs_cmdline *cl, size_t npos,
                         const char *typed)
{
    const char *name = cmd->name;
    const char *eq = strchr(typed, '=');
    if (!strcmp(name, "reg")) {
        const char *first = npos >= 1 ? cs_cmdline_pos(cl, 0)->value : "";
        int sub = !strcmp(first, "define") || !strcmp(first, "analyze");
        if (npos == 0 && !eq) {
            add_choices(l, "", "define|analyze", typed);
            for (size_t i = 0; i < cs_reg_count(); i++)
                add(l, "", cs_reg_info_at(i)->name, "", typed);
        } else if (npos == 1 && sub && !eq && !strcmp(first, "analyze")) {
            for (size_t i = 0; i < cs_reg_count(); i++)
                add(l, "", cs_reg_info_at(i)->name, "", typed);
        } else if (npos >= 2 && sub && !eq) {
            static const char *const dk[] = {"g", "h", "form", "p", "q", "r", "eps", NULL};
            static const char *const ak[] = {"x", "y", "res", "at", "dims", "plot", NULL};
            for (const char *const *k = !strcmp(first, "define") ? dk : ak; *k; k++)
                add(l, "", *k, "=", typed);
        } else if (npos >= 1 && !sub) {
            complete_reg_keys(l, first, typed);
        }
        return;
    }
    if (!strcmp(name, "help")) {
        if (npos == 0) {
            for (size_t i = 0; i < cs_command_count(); i++)
                add(l, "", cs_command_at(i)->name, "", typed);
        } else if (npos == 1 && !strcmp(cs_cmdline_pos(cl, 0)->value, "reg")) {
            for (size_t i = 0; i < cs_reg_count(); i++)
                add(l, "", cs_reg_info_at(i)->name, "", typed);
        }
        return;
    }
    if (!eq) {
        if ((!strcmp(name, "source") || !strcmp(name, "run")) && npos == 0)
            add_files(l, "", typed, typed);
        if (!strcmp(name, "save")) {
            if (npos == 0)
                add_choices(l, "", "session|model", typed);
            else if (npos == 1)
                add_files(l, "", typed, typed);
        }
        for (const cs_key_spec *k = cmd->keys; k && k->key; k++)
            add(l, "", k->key, "=", typed);
        return;
    }
    char key[64];
    size_t kl = (size_t)(eq - typed);
    if (kl >= sizeof key)
        return;
    memcpy(key, typed, kl);
    key[kl] = '\0';
    const cs_key_spec *k = cs_command_key(cmd, key);
    char pre[80];
    snprintf(pre, sizeof pre, "%s=", key);
    if (k && k->choices)
        add_choices(l, pre, k->choices, typed);
    else if ((k && k->kind == CS_KEY_FILE) || is_file_key(key))
        add_files(l, pre, eq + 1, typed);
    else if (!strcmp(key, "reg") || !strcmp(key, "methods"))
        for (size_t i = 0; i < cs_reg_count(); i++)
            add(l, pre, cs_reg_info_at(i)->name, "", typed);
}

char **cs_complete(const char *line, size_t start, size_t end)
{
    list l = {0};
    char *before = strndup(line, start);
    char *typed = strndup(line + start, end - start);
    if (!before || !typed)
        goto done;
    cs_cmdline cl;
    int col;
    cs_err err;
    if (cs_cmdline_parse(before, &cl, &col, &err))
        goto done;
    if (!cl.name) {
        for (size_t i = 0; i < cs_command_count(); i++)
            add(&l, "", cs_command_at(i)->name, "", typed);
    } else {
        const cs_cmd_spec *cmd = cs_command_find(cl.name);
        if (cmd)
            complete_arg(&l, cmd, &cl, cs_cmdline_npos(&cl), typed);
    }
    cs_cmdline_free(&cl);
done:
    free(before);
    free(typed);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp);
    return l.v;
}

void cs_complete_free(char **cands)
{
    if (!cands)
        return;
    for (char **c = cands; *c; c++)
        free(*c);
    free(cands);
}
