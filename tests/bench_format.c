/* bench_format.c — `make bench`: writing numbers.
 *
 *   ns per number  cs_format_double (libdouble-conversion's shortest digits,
 *                  laid out as %g) against the former search (the first of
 *                  %.1g .. %.17g that reads back, kept here), on the values
 *                  of a landscape, of random bit patterns and of decimals
 *   landscape      `landscape res=1001 out=F.csv` (1,002,001 rows) through
 *                  the interpreter: its wall time, and the same CSV written
 *                  with each formatter side by side; the former command's
 *                  time is this run's less the new writing plus the former
 *                  writing (the values are the same, the bytes too). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_interp.h"
#include "cs_parse.h"
#include "format_util.h"

typedef void (*format_fn)(char *buf, size_t len, double v);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ns per number, the fastest of 3 rounds */
static double ns_per(format_fn f, const double *v, size_t n)
{
    double best = INFINITY;
    unsigned sink = 0;
    for (int r = 0; r < 3; r++) {
        char buf[40];
        double t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            f(buf, sizeof buf, v[i]);
            sink += (unsigned char)buf[0];
        }
        double t = (now_s() - t0) / (double)n * 1e9;
        if (t < best)
            best = t;
    }
    if (sink == 1)
        printf(" ");
    return best;
}

/* The landscape's CSV writing loop (engine/reg/landscape.c: the nx x and
 * ny y texts once, then a value a row) with f, to /dev/null: seconds. */
static double write_csv(format_fn f, const double *x, const double *y, const double *z,
                        size_t nx, size_t ny)
{
    FILE *out = fopen("/dev/null", "w");
    char (*xt)[40] = malloc(nx * sizeof *xt), (*yt)[40] = malloc(ny * sizeof *yt);
    if (!out || !xt || !yt) {
        if (out)
            fclose(out);
        free(xt);
        free(yt);
        return NAN;
    }
    double t0 = now_s();
    for (size_t i = 0; i < nx; i++)
        f(xt[i], sizeof xt[i], x[i]);
    for (size_t j = 0; j < ny; j++)
        f(yt[j], sizeof yt[j], y[j * nx]);
    char num[40];
    fputs("x,y,value\n", out);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            f(num, sizeof num, z[j * nx + i]);
            fprintf(out, "%s,%s,%s\n", xt[i], yt[j], num);
        }
    double t = now_s() - t0;
    fclose(out);
    free(xt);
    free(yt);
    return t;
}

/* The rows of the CSV at path: x, y, value (malloc'd); the row count. */
static size_t read_csv(const char *path, double **x, double **y, double **z)
{
    FILE *f = fopen(path, "r");
    size_t cap = 1100000, n = 0;
    *x = malloc(cap * sizeof **x);
    *y = malloc(cap * sizeof **y);
    *z = malloc(cap * sizeof **z);
    if (!f || !*x || !*y || !*z) {
        if (f)
            fclose(f);
        return 0;
    }
    char line[256];
    while (fgets(line, sizeof line, f) && n < cap) {
        char *p = line, *e;
        double a = strtod(p, &e);
        if (e == p || *e != ',')
            continue;  /* the header */
        double b = strtod(e + 1, &p);
        (*x)[n] = a;
        (*y)[n] = b;
        (*z)[n] = strtod(p + 1, NULL);
        n++;
    }
    fclose(f);
    return n;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    char dir[] = "/tmp/csreg-bench-format-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/landscape.csv", dir);
    FILE *sink = fopen("/dev/null", "w");
    cs_interp *in;
    cs_err err;
    cs_interp_opts o = {.seed = 1, .out = sink};
    if (!sink || cs_interp_new(&in, &o, &err)) {
        fprintf(stderr, "bench_format: %s\n", sink ? err.msg : "no /dev/null");
        return 1;
    }
    char line[300];
    snprintf(line, sizeof line, "landscape res=1001 out=%s", path);
    int col;
    double t0 = now_s();
    int rc = cs_interp_exec(in, line, &col, &err);
    double t_cmd = now_s() - t0;
    cs_interp_free(in);
    fclose(sink);
    if (rc) {
        fprintf(stderr, "bench_format: %s: %s\n", line, err.msg);
        return 1;
    }
    double *x, *y, *z;
    size_t n = read_csv(path, &x, &y, &z);
    unlink(path);
    rmdir(dir);
    if (n != 1002001) {
        fprintf(stderr, "bench_format: %zu rows read back, expected 1002001\n", n);
        return 1;
    }

    printf("cs_format_double: ns per number, the fastest of 3 rounds\n");
    printf("  %-28s %10s %10s %8s\n", "values", "former", "now", "ratio");
    size_t m = 1000000;
    double *v = malloc(m * sizeof *v);
    if (!v)
        return 1;
    for (int set = 0; set < 3; set++) {
        const char *name = set == 0 ? "a landscape's values" : set == 1 ? "random bit patterns"
                                                                          : "decimals (3 digits)";
        for (size_t i = 0; i < m; i++) {
            if (set == 0) {
                v[i] = z[i];
            } else if (set == 1) {
                uint64_t b = xorshift();
                memcpy(&v[i], &b, sizeof b);
            } else {
                v[i] = (double)(xorshift() % 1000) * pow(10.0, (double)(xorshift() % 20) - 10);
            }
        }
        double a = ns_per(format_former, v, m), b = ns_per(cs_format_double, v, m);
        printf("  %-28s %10.1f %10.1f %7.1fx\n", name, a, b, a / b);
    }
    free(v);

    double w_former = write_csv(format_former, x, y, z, 1001, 1001);
    double w_now = write_csv(cs_format_double, x, y, z, 1001, 1001);
    double t_former = t_cmd - w_now + w_former;
    printf("\nlandscape res=1001 out=F.csv (%zu rows), seconds of wall time:\n", n);
    printf("  writing the CSV   former %.2f  now %.2f  (%.1fx)\n", w_former, w_now,
           w_former / w_now);
    printf("  the command       former %.2f  now %.2f  (%.1fx; at least 4x expected)\n", t_former,
           t_cmd, t_former / t_cmd);
    free(x);
    free(y);
    free(z);
    if (t_former / t_cmd < 4) {
        printf("✗ the landscape command is less than 4x faster than with the former formatter\n");
        return 1;
    }
    printf("✓ the landscape command is %.1fx faster than with the former formatter\n",
           t_former / t_cmd);
    return 0;
}
