/* recover.c — recover x* ∈ {±1}^N from Ax = b with ℓbin (projected FISTA
 * with restarts), stepping the solver as the workbench does:
 *   cc recover.c $(pkg-config --cflags --libs csreg);  ./recover [N] [M] [method] */
#include <csreg.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t N = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    size_t M = argc > 2 ? strtoul(argv[2], NULL, 10) : 60;
    const char *method = argc > 3 ? argv[3] : "bin";
    cs_problem *p;
    cs_solver *s;
    cs_result res;
    if (cs_problem_draw(&p, "bin", N, M, 1) || cs_solver_open(&s, p, method, 1)) {
        fprintf(stderr, "error: %s\n", cs_last_error());
        return 1;
    }
    size_t m, n;
    cs_problem_shape(p, &m, &n);
    printf("A is %zux%zu, method %s\n", m, n, method);
    if (cs_solver_advance(s, 10, &res) == 0)
        printf("after 10 iterations: rel_err %.3g\n", res.rel_err);
    if (cs_solver_finish(s, &res)) {
        fprintf(stderr, "error: %s\n", cs_last_error());
        return 1;
    }
    size_t len;
    const double *x = cs_solver_point(s, &len);
    printf("%s after %ld iterations, %d starts: rel_err %.3g, x[0..3] = %g %g %g %g\n",
           res.success ? "recovered" : "not recovered", res.iterations, res.starts, res.rel_err,
           x[0], x[1], x[2], x[3]);
    cs_solver_close(s);
    cs_problem_close(p);
    return res.success ? 0 : 2;
}
