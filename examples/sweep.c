/* sweep.c — a small success-rate sweep through a session (any csreg
 * command runs the same way):
 *   cc sweep.c $(pkg-config --cflags --libs csreg);  ./sweep [OUT.csv] */
#include <csreg.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "sweep.csv";
    char cmd[512], *json = NULL;
    snprintf(cmd, sizeof cmd,
             "sweep kind=bin methods=bin,linf N=20 gamma=0.4:0.2:0.8 trials=8 threads=1 "
             "out=%s",
             out);
    cs_session *s;
    if (cs_session_open(&s, 1) || cs_session_run(s, cmd, &json)) {
        fprintf(stderr, "error: %s\n", cs_last_error());
        return 1;
    }
    printf("%s\n", json);
    cs_free(json);
    cs_session_close(s);
    return 0;
}
