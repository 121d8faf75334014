/* docgen.c — csreg.1 and the bash completion from the tables (cs_docgen.h). */
#include "cs_docgen.h"

#include <string.h>

#include "cs_commands.h"
#include "cs_reg.h"

/* text with troff's special characters escaped: a leading . or ', and \ */
static void roff(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
        if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
            fputs("\\&", out);
    }
}

static void commands(FILE *out)
{
    char usage[1024];
    size_t n = cs_command_count();
    for (size_t t = 0; t < n; t++) {
        if (!cs_command_topic_first(t))
            continue;
        const char *topic = cs_command_at(t)->topic;
        fputs(".SS ", out);
        roff(out, topic);
        fputc('\n', out);
        for (size_t i = t; i < n; i++) {
            const cs_cmd_spec *c = cs_command_at(i);
            if (strcmp(c->topic, topic) != 0)
                continue;
            fputs(".TP\n.B ", out);
            roff(out, cs_command_usage(c, usage, sizeof usage));
            fputc('\n', out);
            roff(out, c->summary);
            fputs(".\n", out);
            for (const cs_key_spec *k = c->keys; k && k->key; k++) {
                fputs(".br\n\\fI", out);
                roff(out, k->key);
                fputs("\\fP", out);
                if (k->def && *k->def) {
                    fputs(" (", out);
                    roff(out, k->def == CS_REQUIRED ? "required" : k->def);
                    fputc(')', out);
                }
                fputs(": ", out);
                roff(out, k->help ? k->help : "");
                fputc('\n', out);
            }
            if (c->example && *c->example) {
                fputs(".br\nExample: \\fB", out);
                roff(out, c->example);
                fputs("\\fP\n", out);
            }
        }
    }
}

static void regularizers(FILE *out)
{
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *r = cs_reg_info_at(i);
        fputs(".TP\n.B ", out);
        roff(out, r->name);
        fputc('\n', out);
        roff(out, r->title);
        fputs(": ", out);
        roff(out, r->formula);
        fputs(".\n.br\nZero on ", out);
        roff(out, r->target);
        fputs(".\n", out);
    }
}

void cs_doc_man(FILE *out, const char *version, const char *options)
{
    fputs(".TH CSREG 1 \"\" \"csreg ", out);
    roff(out, version);
    fputs("\" \"User Commands\"\n", out);
    fputs(".SH NAME\ncsreg \\- a terminal workbench for Cauchy\\-Schwarz regularizers\n", out);
    fputs(".SH SYNOPSIS\n.B csreg\n[\\fIoptions\\fP]\n.br\n.B csreg\n[\\fIoptions\\fP] "
          "\\fBrun\\fP \\fIFILE.csr\\fP ...\n.br\n.B csreg\n[\\fIoptions\\fP] \\fB\\-e\\fP "
          "\\fICOMMAND\\fP ...\n",
          out);
    fputs(".SH DESCRIPTION\ncsreg implements the regularizers of \"Cauchy\\-Schwarz "
          "Regularizers\" (Taner, Wang, Studer, ICLR 2025), zero exactly on a chosen set "
          "(binary, ternary, one\\-sided binary, 2^B levels, eigenvectors, orthogonal "
          "matrices), recovers discrete vectors from underdetermined linear systems, runs "
          "MAX\\-CUT and trains binary and ternary networks. Every action is a command of the "
          "language below; scripts replay a session byte for byte.\n",
          out);
    fputs(".SH OPTIONS\n.nf\n", out);
    roff(out, options);
    fputs(".fi\n.SH COMMANDS\n", out);
    commands(out);
    fputs(".SH REGULARIZERS\n", out);
    regularizers(out);
    fputs(".SH ENVIRONMENT\n"
          ".TP\n.B CSREG_DATADIR\nwhere the session scripts, the tour and the G\\-set graphs "
          "are (default: the source tree, or the installed share/csreg)\n"
          ".TP\n.B CSREG_GSET_DIR\nmore G\\-set graphs for maxcut\n"
          ".TP\n.B CSREG_GNUPLOT\nthe gnuplot program\n"
          ".TP\n.B CSREG_CUDA_DEVICE\nthe GPU of device=cuda\n"
          ".TP\n.B CSREG_CUDA_MODULE\nanother CUDA module than libcsreg_cuda.so next to csreg\n"
          ".TP\n.B CSREG_CUDA_SYNC\n1: synchronize and check after every GPU op (debugging)\n"
          ".TP\n.B CSREG_CUDA_PROFILE\na file: at exit, each GPU op's calls, GPU and host "
          "milliseconds\n"
          ".TP\n.B CSREG_CUDA_GRAPH\noff: training steps launched op by op, not replayed "
          "as one CUDA graph\n"
          ".TP\n.B CSREG_CUDNN\nthe cuDNN 9 to load (a file or a folder), or off\n"
          ".TP\n.B CSREG_CUDNN_BN\noff: batch norms on the module's own kernels, the "
          "convolutions still on cuDNN\n",
          out);
    fputs(".SH SEE ALSO\n\\fBgnuplot\\fP(1); the documentation in docs/ of the source "
          "tree; the C library: csreg.h, pkg\\-config csreg\n",
          out);
}

void cs_doc_bash_completion(FILE *out)
{
    fputs("# bash completion for csreg, generated by `csreg --completion bash`\n"
          "_csreg()\n{\n"
          "    local cur prev words cword\n"
          "    _init_completion 2>/dev/null || {\n"
          "        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    }\n"
          "    case $prev in\n"
          "        run|--play) COMPREPLY=($(compgen -f -X '!*.csr' -- \"$cur\") "
          "$(compgen -d -- \"$cur\")); return ;;\n"
          "        --device) COMPREPLY=($(compgen -W 'cpu cuda auto' -- \"$cur\")); return ;;\n"
          "        --seed|--threads) return ;;\n"
          "        --completion) COMPREPLY=($(compgen -W 'bash' -- \"$cur\")); return ;;\n"
          "        -e) COMPREPLY=($(compgen -W '",
          out);
    for (size_t i = 0; i < cs_command_count(); i++)
        fprintf(out, "%s%s", i ? " " : "", cs_command_at(i)->name);
    fputs("' -- \"$cur\")); return ;;\n"
          "    esac\n"
          "    COMPREPLY=($(compgen -W '--json --seed --threads --device --repl --keep-going "
          "--demo --tour --play --help --version --man --completion -e run' -- \"$cur\"))\n"
          "}\n"
          "complete -F _csreg csreg\n",
          out);
}
