/* cmd_spec.c — what a command's spec says, read without the table:
 * its keys, its usage line, the "did you mean" of names. A leaf the
 * command modules call (commands.c, the table above them, lists them). */
#include "cs_cmd_spec.h"

#include <stdio.h>
#include <string.h>

#include "cs_parse.h"

const cs_key_spec *cs_command_key(const cs_cmd_spec *cmd, const char *key)
{
    for (const cs_key_spec *k = cmd->keys; k && k->key; k++)
        if (strcmp(k->key, key) == 0)
            return k;
    return NULL;
}

const char cs_key_required[] = "(required)";

int cs_key_def_plain(const cs_key_spec *k)
{
    const char *d = k->def;
    if (!d || !*d || d == cs_key_required)
        return 0;
    if (k->choices) {
        size_t n = strlen(d);
        for (const char *c = k->choices; c; c = strchr(c, '|'), c = c ? c + 1 : NULL)
            if (!strncmp(c, d, n) && (c[n] == '|' || c[n] == '\0'))
                return 1;
        return 0;
    }
    if (k->kind == CS_KEY_NUM || k->kind == CS_KEY_INT) {
        double v;
        cs_err sub;
        return cs_parse_double(d, &v, &sub) == 0;
    }
    if (k->kind == CS_KEY_RANGE || k->kind == CS_KEY_LIST)
        return strspn(d, "0123456789.,:-+e") == strlen(d) && strpbrk(d, "0123456789");
    return 0;
}

const char *cs_command_usage(const cs_cmd_spec *cmd, char *buf, size_t len)
{
    size_t used = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    for (const char *p = cmd->usage; *p && used + 1 < len;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (close) {
            char key[32];
            size_t kl = (size_t)(close - p - 1);
            snprintf(key, sizeof key, "%.*s", (int)(kl < sizeof key ? kl : sizeof key - 1), p + 1);
            const cs_key_spec *k = cs_command_key(cmd, key);
            int w = snprintf(buf + used, len - used, "%s=%s", key,
                             k && cs_key_def_plain(k) ? k->def : "..");
            used += w > 0 ? (size_t)w : 0;
            p = close + 1;
        } else {
            buf[used++] = *p++;
            buf[used] = '\0';
        }
    }
    if (used >= len)
        buf[len - 1] = '\0';
    return buf;
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of two neighbours (tre -> ter) each cost 1. */
int cs_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 1 << 20;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The closest name by edit distance, if close enough to be a likely typo. */
const char *cs_closest_name(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    int bestd = 1 << 30;
    for (size_t i = 0; i < n; i++) {
        int d = cs_edit_distance(word, names[i]);
        if (d < bestd) {
            bestd = d;
            best = names[i];
        }
    }
    int limit = strlen(word) <= 3 ? 1 : 2;
    return bestd <= limit ? best : NULL;
}
