"""bench_watch.py — what csreg.watch.Logger costs a training step: the
ResNet-20 of examples/torch_resnet20_watch.py (batch 128, random 32×32
images: the data do not matter here), steps timed without logging and with a
snapshot of all 20 weight layers at every step (the worst case; `every=50`
costs a fiftieth of it), in alternating blocks, the fastest step of each
kind kept (the least disturbed on a shared machine). Prints the step times,
the difference, and the time spent inside log() on the training thread
(what the logger itself measures, cost()), each as a share of the step.

    PYTHONPATH=python CSREG_LIB=build/rel/libcsreg.so.0 /usr/bin/python3 tests/python/bench_watch.py [--device cuda]
"""
import argparse
import importlib.util
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

import csreg.watch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def resnet20():
    spec = importlib.util.spec_from_file_location(
        "r20", os.path.join(ROOT, "examples", "torch_resnet20_watch.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.ResNet20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--blocks", type=int, default=3, help="blocks of each kind")
    ap.add_argument("--steps", type=int, default=2, help="steps a block")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    dev = torch.device("cuda" if a.device == "auto" and torch.cuda.is_available()
                       else "cpu" if a.device == "auto" else a.device)
    torch.manual_seed(0)
    model = resnet20()().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(a.batch, 1, 32, 32, device=dev)
    y = torch.randint(0, 10, (a.batch,), device=dev)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.detach()

    with tempfile.TemporaryDirectory() as tmp:
        log = csreg.watch.Logger(os.path.join(tmp, "run"), reg="bin", every=1)
        for _ in range(3):   # warm: first-call costs, the pinned buffers
            log.log(0, model, loss=step())
        log.flush()
        sync()
        plain, logged, n = [], [], 0
        main0 = log.cost()["main_seconds"]
        for b in range(2 * a.blocks):
            with_log = b % 2 == 1
            for _ in range(a.steps):
                sync()
                t0 = time.perf_counter()
                loss = step()
                if with_log:
                    n += 1
                    log.log(n, model, loss=loss)
                sync()
                (logged if with_log else plain).append(time.perf_counter() - t0)
            log.flush()   # the writer's disk time stays out of the blocks without logging
        c = log.cost()
        log.close()
    t_plain, t_log = min(plain), min(logged)
    in_log = (c["main_seconds"] - main0) / max(1, n)
    print("ResNet-20 step on %s, batch %d: %.2f ms without logging, %.2f ms with a snapshot "
          "of every weight each step: %+.2f%%; in log() %.3f ms a step = %.3f%% of the step "
          "(every=50: %.4f%%); %d snapshots, %d dropped, writer thread %.1f ms a snapshot"
          % (dev, a.batch, 1e3 * t_plain, 1e3 * t_log, 100 * (t_log - t_plain) / t_plain,
             1e3 * in_log, 100 * in_log / t_plain, 100 * in_log / t_plain / 50, c["snapshots"],
             c["dropped"], 1e3 * c["writer_seconds"] / max(1, c["snapshots"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
