/* eval_reg.c — a regularizer's value and gradient, and what it makes of
 * its g and h:  cc eval_reg.c $(pkg-config --cflags --libs csreg)
 *   ./eval_reg [SPEC] [x1,x2,...]    e.g. ./eval_reg "holder p=2 q=2" 1,2,3 */
#include <csreg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "bin";
    char buf[256];
    snprintf(buf, sizeof buf, "%s", argc > 2 ? argv[2] : "1,2,3");
    double x[64], g[64], v;
    size_t n = 0;
    for (char *t = strtok(buf, ","); t && n < 64; t = strtok(NULL, ","))
        x[n++] = strtod(t, NULL);
    cs_reg *r;
    if (cs_reg_open(&r, spec, 1) || cs_reg_value_grad(r, x, n, &v, g)) {
        fprintf(stderr, "error: %s\n", cs_last_error());
        return 1;
    }
    printf("csreg %s, %s\nvalue: %.17g\ngrad:", cs_version(), cs_reg_text(r), v);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", g[i]);
    cs_reg_report rep;
    if (cs_reg_analyze_report(r, 41, &rep) == 0)
        printf("\ntarget: %s\nspurious stationary points on the plane: %zu\n", rep.target,
               rep.nstationary);
    cs_reg_close(r);
    return 0;
}
