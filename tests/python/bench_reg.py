"""bench_reg.py — csreg's rows and torch module against the same regularizer
written as a torch one-liner (autograd), one thread each, on a 512×784
float32 matrix (issue 34 item 4: each within 1.5×).

    PYTHONPATH=python CSREG_LIB=build/rel/libcsreg.so.0 /usr/bin/python3 tests/python/bench_reg.py

Times are the minimum over repeats (the least disturbed run on a shared machine)."""
import sys
import time

import torch

import csreg
import csreg.torch as cst

ROWS, COLS = 512, 784
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 30


def bin_torch(W):
    n = W.shape[1]
    return (n * (W**4).sum(1) - ((W**2).sum(1)) ** 2).sum()


def ter_torch(W):
    s2, s4, s6 = (W**2).sum(1), (W**4).sum(1), (W**6).sum(1)
    return (s2 * s6 - s4**2).sum()


def best(fn, repeats=REPEATS):
    fn()  # warm: first-call allocations, page faults
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def fwd_bwd(f, W):
    def run():
        W.grad = None
        f(W).backward()
    return run


def main():
    torch.set_num_threads(1)
    csreg.set_threads(1)
    torch.manual_seed(0)
    W0 = torch.randn(ROWS, COLS) * 0.05
    Wn = W0.numpy()
    worst = 0.0
    print("%-4s %-28s %10s %10s %7s" % ("reg", "what", "csreg ms", "torch ms", "ratio"))
    for name, one_liner in (("bin", bin_torch), ("ter", ter_torch)):
        r = csreg.Reg(name)
        # the engine agrees with the one-liner (float32 kernels, sums in double)
        v, _ = r.rows(Wn)
        ref = one_liner(W0.double()).item()
        assert abs(v.sum() - ref) <= 1e-4 * abs(ref), (name, v.sum(), ref)
        t_rows = best(lambda: r.rows(Wn))
        t_torch_fwd = best(lambda: one_liner(W0))
        W = W0.clone().requires_grad_(True)
        mod = cst.CSRegularizer(r, 1.0)
        t_mod = best(fwd_bwd(mod, W))
        t_torch = best(fwd_bwd(one_liner, W))
        for what, a, b in (("rows(W) value+grad vs fwd", t_rows, t_torch_fwd),
                           ("rows(W) vs fwd+bwd", t_rows, t_torch),
                           ("module fwd+bwd vs fwd+bwd", t_mod, t_torch)):
            print("%-4s %-28s %10.3f %10.3f %7.2f" % (name, what, a * 1e3, b * 1e3, a / b))
        worst = max(worst, t_rows / t_torch, t_mod / t_torch)
    print("worst ratio (rows or module, against torch forward+backward): %.2f (goal <= 1.5)"
          % worst)
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
