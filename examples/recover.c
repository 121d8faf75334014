/* recover.c — recover x from Ax = b with files of your own, or with a
 * problem drawn as the paper's and written to files first:
 *   cc recover.c $(pkg-config --cflags --libs csreg)
 *   ./recover A.npy b.npy [xstar.npy]     (.csv .npy .mtx .mat)
 *   ./recover                            (draws bin N=100 M=60, writes problem/A.npy ...)
 * ℓbin by projected FISTA with restarts, stepped as the workbench does. */
#include <csreg.h>
#include <stdio.h>
#include <sys/stat.h>

static int fail(void)
{
    fprintf(stderr, "error: %s\n", cs_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    cs_problem *p;
    if (argc >= 3) {
        if (cs_problem_load(&p, "bin", argv[1], argv[2], argc > 3 ? argv[3] : NULL, NULL))
            return fail();
    } else {
        cs_problem *drawn;
        mkdir("problem", 0755);
        if (cs_problem_draw(&drawn, "bin", 100, 60, 1) ||
            cs_problem_save(drawn, "problem", "npy"))
            return fail();
        cs_problem_close(drawn);
        if (cs_problem_load(&p, "bin", "problem/A.npy", "problem/b.npy", "problem/xstar.npy",
                            NULL))
            return fail();
    }
    size_t m, n;
    cs_problem_shape(p, &m, &n);
    cs_solver *s;
    cs_result res;
    if (cs_solver_open(&s, p, "bin", 1))
        return fail();
    printf("A is %zux%zu%s\n", m, n, cs_problem_solution(p) ? ", x* known" : "");
    if (cs_solver_advance(s, 10, &res) == 0)
        printf("after 10 iterations: rel_err %.3g\n", res.rel_err);
    if (cs_solver_finish(s, &res))
        return fail();
    size_t len;
    const double *x = cs_solver_point(s, &len);
    printf("%s after %ld iterations, %d starts: rel_err %.3g, x[0..3] = %g %g %g %g\n",
           res.success ? "recovered" : "not recovered", res.iterations, res.starts, res.rel_err,
           x[0], x[1], x[2], x[3]);
    cs_solver_close(s);
    cs_problem_close(p);
    return res.success ? 0 : 2;
}
