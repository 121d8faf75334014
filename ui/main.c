/* main.c — csreg's command line: scripts, -e commands, the REPL. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_dist.h"
#include "cs_docgen.h"
#include "cs_file.h"
#include "cs_frontend.h"
#include "cs_interp.h"
#include "cs_limits.h"
#include "cs_parse.h"
#include "cs_project.h"
#include "tui.h"
#include "cs_progress.h"

static const char usage_text[] =
            "usage: csreg [options]                 the workbench (TUI on a terminal, else\n"
            "                                         the REPL on stdin)\n"
            "       csreg [options] run FILE.csr ...  run scripts\n"
            "       csreg [options] -e 'COMMAND' ...  run commands given here\n"
            "       csreg [options] watch DIR [DIR2]  a run folder's weight histograms, live\n"
            "                                         (DIR2: compared); without a terminal or\n"
            "                                         with --json, its summary (help watch)\n"
            "options:\n"
            "  --json          one JSON object per command on stdout\n"
            "  --seed N        seed for every random draw (default 1)\n"
            "  --threads N     sweep workers (default 0: all cores) and the network ops' threads\n"
            "                  of the network commands (0: one)\n"
            "  --device D      cpu, cuda or auto (cuda when a GPU answers, else cpu)\n"
            "  --repl          the line REPL\n"
            "  --keep-going    scripts and -e: run on after an error and report every\n"
            "                  one (exit status 1 when any failed)\n"
            "  -D NAME=VALUE   set the script variable $NAME (repeatable); it wins over the\n"
            "                  script's own `let NAME = ...` (help let, help for)\n"
            "  --demo          start on the built-in demo (the TUI on a terminal)\n"
            "  --tour          a guided tour of the paper (sessions/tour.csr) in the TUI\n"
            "  --play FILE     play a script in the TUI a line at a time (stops at pause)\n"
            "  --man           the manual page (troff); --completion bash: the bash completion\n"
            "  --help, --version\n"
            "Inside csreg, `help` lists the commands.\n";

static void usage(FILE *out) { fputs(usage_text, out); }

typedef struct cli {
    cs_interp_opts opts;
    const char **lines;  /* -e */
    size_t nlines;
    const char **files;  /* run */
    size_t nfiles;
    const char **defines;  /* -D NAME=VALUE */
    int repl, demo, tour, keep_going;
    const char *play;    /* --play FILE: the TUI plays this script */
    int watch;           /* watch DIR [DIR2] */
    const char *watch_dir[2];
} cli;

static int want_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "error: %s needs a value\n", argv[i]);
        return 0;
    }
    return 1;
}

/* Returns -1 to exit 0 (help/version), 1 on error, 0 to go on. */
static int parse_cli(int argc, char **argv, cli *c)
{
    c->lines = calloc((size_t)argc, sizeof *c->lines);
    c->files = calloc((size_t)argc, sizeof *c->files);
    c->defines = calloc((size_t)argc, sizeof *c->defines);
    if (!c->lines || !c->files || !c->defines)
        return 1;
    c->opts.defines = c->defines;
    int run_mode = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        cs_err err;
        long v;
        if (run_mode && a[0] != '-') {
            c->files[c->nfiles++] = a;
        } else if (c->watch && a[0] != '-') {
            if (c->watch == 3) {
                fprintf(stderr, "error: watch takes one or two run folders\n");
                return 1;
            }
            c->watch_dir[c->watch++ - 1] = a;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--man")) {
            cs_doc_man(stdout, CSREG_VERSION, usage_text);
            return -1;
        } else if (!strcmp(a, "--completion")) {
            if (!want_value(argc, argv, i))
                return 1;
            if (strcmp(argv[++i], "bash")) {
                fprintf(stderr, "error: --completion %s: only bash\n", argv[i]);
                return 1;
            }
            cs_doc_bash_completion(stdout);
            return -1;
        } else if (!strcmp(a, "--version")) {
            printf("csreg %s (commit %s)\n", CSREG_VERSION, CSREG_COMMIT);
            return -1;
        } else if (!strcmp(a, "--json")) {
            c->opts.json = 1;
        } else if (!strcmp(a, "--repl")) {
            c->repl = 1;
        } else if (!strcmp(a, "--keep-going")) {
            c->keep_going = 1;
        } else if (!strcmp(a, "--demo")) {
            c->demo = 1;
        } else if (!strcmp(a, "--tour")) {
            c->tour = 1;
        } else if (!strcmp(a, "--play")) {
            if (!want_value(argc, argv, i))
                return 1;
            c->play = argv[++i];
        } else if (!strncmp(a, "-D", 2)) {   /* -D NAME=VALUE or -DNAME=VALUE */
            if (!a[2] && !want_value(argc, argv, i))
                return 1;
            c->defines[c->opts.ndefines++] = a[2] ? a + 2 : argv[++i];
        } else if (!strcmp(a, "-e")) {
            if (!want_value(argc, argv, i))
                return 1;
            c->lines[c->nlines++] = argv[++i];
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--threads")) {
            if (!want_value(argc, argv, i))
                return 1;
            int seed = !strcmp(a, "--seed");
            if (cs_parse_long(argv[++i], 0, seed ? 4294967295L : CS_MAX_THREADS, &v, &err)) {
                fprintf(stderr, "error: %s: %s\n", a, err.msg);
                return 1;
            }
            if (seed)
                c->opts.seed = (uint64_t)v;
            else
                c->opts.threads = (int)v;
        } else if (!strcmp(a, "--device")) {
            if (!want_value(argc, argv, i))
                return 1;
            c->opts.device = argv[++i];
            if (strcmp(c->opts.device, "cpu") && strcmp(c->opts.device, "cuda") &&
                strcmp(c->opts.device, "auto")) {
                fprintf(stderr, "error: --device %s: expected cpu, cuda or auto\n",
                        c->opts.device);
                return 1;
            }
        } else if (!strcmp(a, "run") && !run_mode && c->nlines == 0) {
            run_mode = 1;
        } else if (!strcmp(a, "watch") && !run_mode && !c->watch && c->nlines == 0) {
            c->watch = 1;
        } else if (a[0] != '-' && (access(a, F_OK) == 0 || strstr(a, ".csr"))) {
            fprintf(stderr, "error: unknown argument '%s' (to run a script: csreg run %s)\n",
                    a, a);
            return 1;
        } else {
            fprintf(stderr, "error: unknown argument '%s' (csreg --help)\n", a);
            return 1;
        }
    }
    if (c->watch == 1) {
        fprintf(stderr, "error: watch needs a run folder (csreg watch DIR)\n");
        return 1;
    }
    if (run_mode && c->nfiles == 0) {
        fprintf(stderr, "error: run needs a script file (csreg run FILE.csr)\n");
        return 1;
    }
    return 0;
}

static const char *demo_lines[] = {
    "regs",
    "reg bin",
    "eval 1,-1,1,-1",
    "eval 1,2,3",
};

static int run_demo(cs_interp *in, int json)
{
    printf("csreg demo: the symmetric binary CS regularizer is zero exactly on {-a,+a}^N.\n");
    for (size_t i = 0; i < sizeof demo_lines / sizeof *demo_lines; i++) {
        printf("\ncsreg> %s\n", demo_lines[i]);
        if (cs_run_line(in, demo_lines[i], "demo", (int)i + 1, json))
            return 1;
    }
    printf("\nTry: reg ter, eval 0,1,-1, help. Ctrl-D leaves.\n");
    return 0;
}

static int csreg_main(int argc, char **argv);

/* `watch dir="DIR" [vs="DIR2"]`, the command of csreg watch in batch (the
 * folders quoted as the command line reads them); -1 when too long. */
static int watch_line(const cli *c, char *buf, size_t len)
{
    size_t n = 0;
    n += (size_t)snprintf(buf, len, "watch");
    for (int k = 0; k < 2 && c->watch_dir[k]; k++) {
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " %s=\"", k ? "vs" : "dir");
        for (const char *p = c->watch_dir[k]; *p && n + 3 < len; p++) {
            if (*p == '"' || *p == '\\')
                buf[n++] = '\\';
            buf[n++] = *p;
        }
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "\"");
    }
    return n + 1 < len ? 0 : -1;
}

/* csreg-mpi under mpirun: every rank runs the same commands (cs_dist.h);
 * rank 0 alone prints and writes files. This is the one place that makes
 * the other ranks quiet: stdout and stderr to /dev/null, and every file
 * output (cs_afile, plots) discarded. */
int main(int argc, char **argv)
{
    if (cs_dist_init(&argc, &argv) != 0) {
        fprintf(stderr, "error: MPI_Init failed\n");
        return 1;
    }
    if (cs_dist_rank() != 0) {
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        cs_file_set_discard(1);
    }
    int rc = csreg_main(argc, argv);
    fflush(stdout);
    cs_dist_finalize();
    return rc;
}

static int csreg_main(int argc, char **argv)
{
    cli c = {.opts = {.seed = 1, .out = stdout}};
    int rc = parse_cli(argc, argv, &c);
    if (rc) {
        free(c.lines);
        free(c.files);
        free(c.defines);
        return rc < 0 ? 0 : 1;
    }
    /* several ranks read no terminal: each runs the scripts and -e commands */
    if (cs_dist_size() > 1 && ((c.nlines == 0 && c.nfiles == 0) || c.repl || c.tour || c.play)) {
        fprintf(stderr, "error: under mpirun csreg runs scripts and -e commands only (csreg "
                        "run FILE.csr), not the workbench or the REPL\n");
        free(c.lines);
        free(c.files);
        free(c.defines);
        return 1;
    }
    /* watch DIR [DIR2]: live on a terminal, else the folder's summary */
    char wline[9000];
    if (c.watch && !c.opts.json && !c.repl && c.nlines == 0 && isatty(STDIN_FILENO) &&
        isatty(STDOUT_FILENO)) {
        free(c.lines);
        free(c.files);
        int trc = cs_tui_watch(&c.opts, c.watch_dir[0], c.watch_dir[1]);
        free(c.defines);
        return trc;
    }
    if (c.watch) {
        if (watch_line(&c, wline, sizeof wline)) {
            fprintf(stderr, "error: watch: a folder name too long\n");
            free(c.lines);
            free(c.files);
            free(c.defines);
            return 1;
        }
        c.lines[c.nlines++] = wline;
    }
    /* On a terminal, nothing to run and no --repl/--json: the full-screen workbench. */
    if (!c.repl && !c.opts.json && c.nlines == 0 && c.nfiles == 0 && isatty(STDIN_FILENO) &&
        isatty(STDOUT_FILENO)) {
        free(c.lines);
        free(c.files);
        char tour[4096];
        if (c.tour && cs_project_find("sessions/tour.csr", tour, sizeof tour) != 0) {
            fprintf(stderr, "error: --tour: sessions/tour.csr not found here or beside the "
                            "program\n");
            free(c.defines);
            return 1;
        }
        int trc = cs_tui_main(&c.opts, c.demo, c.tour ? tour : c.play);   /* with -D */
        free(c.defines);
        return trc;
    }
    if (c.tour || c.play) {
        fprintf(stderr, "error: --tour and --play need a terminal (batch: csreg run FILE.csr)\n");
        free(c.lines);
        free(c.files);
        free(c.defines);
        return 1;
    }
    cs_interp *in;
    cs_err err;
    if (cs_interp_new(&in, &c.opts, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    cs_progress_install(in, c.opts.json); /* progress on a terminal's stderr; Ctrl-C cancels */
    /* the first error stops the run; with --keep-going every line and file is
     * run and the exit status says whether any failed */
    int status = cs_run_commands(in, c.lines, c.nlines, c.opts.json, c.keep_going);
    int col;
    if ((status == 0 || status == 1) && cs_interp_finish(in, &col, &err) < 0) {
        /* -e 'for ...' without an -e end */
        if (c.opts.json)
            cs_interp_print_error(in, "for", &err, stdout);
        else
            fprintf(stderr, "error: %s\n", err.msg);
        status = 1;
    }
    int failed = status == 1;
    for (size_t i = 0; i < c.nfiles && (status == 0 || (status == 1 && c.keep_going)); i++) {
        status = cs_run_script(in, c.files[i], c.opts.json, c.keep_going);
        failed |= status == 1;
    }
    if (failed && status == 0)
        status = 1;
    if (status == 0 && c.demo)
        status = run_demo(in, c.opts.json);
    if (status == 0 && (c.repl || (c.nlines == 0 && c.nfiles == 0)))
        status = cs_repl(in, c.opts.json);
    cs_interp_free(in);
    free(c.lines);
    free(c.files);
    free(c.defines);
    /* an interrupted script or -e command: as a shell reports SIGINT */
    return status == 1 ? 1 : status == 3 ? 130 : 0;
}
