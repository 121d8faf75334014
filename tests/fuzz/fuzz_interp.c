/* fuzz_interp.c — libFuzzer harness over the interpreter entry point.
 * Each input is a script: up to 64 lines run through cs_interp_exec in
 * JSON mode. Every file a command reads or writes is confined to a scratch
 * folder (sandbox_dir); gnuplot is made unavailable so no child processes
 * are spawned; commands whose cost grows with their arguments (solve,
 * sweep, training) are capped by skipping them when they ask for big work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_interp.h"

static char scratch[64];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(scratch, sizeof scratch, "/tmp/csreg_fuzzXXXXXX");
    if (!mkdtemp(scratch))
        abort();
    sink = fopen("/dev/null", "w");
    setenv("CSREG_GNUPLOT", "/nonexistent/gnuplot", 1);
    return 0;
}

/* Work-heavy commands: their cost is the user's choice, not a bug. */
static int too_costly(const char *line)
{
    static const char *heavy[] = {"sweep", "solve", "maxcut", "train", "finetune",
                                  "evaluate", "step", "problem", "basins", NULL};
    while (*line == ' ' || *line == '\t')
        line++;
    for (size_t i = 0; heavy[i]; i++) {
        size_t n = strlen(heavy[i]);
        if (!strncmp(line, heavy[i], n) && (line[n] == ' ' || line[n] == '\0'))
            return 1;
    }
    /* big landscapes and big random matrices are slow, not wrong */
    return strstr(line, "res=") != NULL || strstr(line, "random") != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cs_interp_opts o = {.json = 1, .seed = 1, .out = sink, .sandbox_dir = scratch,
                        .loop_limit = 256};   /* for loops: a few lines each */
    cs_interp *in;
    cs_err err;
    if (cs_interp_new(&in, &o, &err) == 0) {
        char *save = NULL;
        int lines = 0;
        for (char *line = strtok_r(text, "\n", &save); line && lines < 64;
             line = strtok_r(NULL, "\n", &save), lines++) {
            int col;
            if (too_costly(line))
                continue;
            if (cs_interp_exec(in, line, &col, &err) == 1)
                break;
        }
        cs_interp_free(in);
    }
    free(text);
    return 0;
}
