#!/usr/bin/python3
"""watch_writer.py DIR — a synthetic training run written as a run folder
(docs/runfolder.md) by hand, with numpy and json only (the format is for any
program): two layers whose weights move from a Gaussian draw to ±1 over the
snapshots (w = (1 - a) w0 + a sign(w0), a from 0 to 1), so the share near the
levels rises to 1, and a loss that falls. For the tests of `csreg watch`
(tests/test_watch_tui.c) and by hand:

    /usr/bin/python3 tests/tools/watch_writer.py /tmp/run --snapshots 200 --interval 0.05 &
    ./csreg watch /tmp/run

Faults, to see the viewer skip them and go on:
  --truncate-at K   snapshot K's first file written in place and cut short
  --bad-line-at K   a line that is not JSON before snapshot K's
  --die-at K        the files of snapshot K half written, then the process
                    ends without its line (as a killed writer); --resume
                    appends to the folder from snapshot K on
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def save(path, a):
    """a as float32 .npy under a temporary name, renamed when whole."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        np.lib.format.write_array(f, np.ascontiguousarray(a, dtype=np.float32))
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--snapshots", type=int, default=200)
    ap.add_argument("--interval", type=float, default=0.05, help="seconds between snapshots")
    ap.add_argument("--every", type=int, default=10, help="steps between snapshots")
    ap.add_argument("--reg", default="bin")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truncate-at", type=int, default=-1)
    ap.add_argument("--bad-line-at", type=int, default=-1)
    ap.add_argument("--die-at", type=int, default=-1)
    ap.add_argument("--resume", type=int, default=0, help="append from this snapshot on")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    layers = {"conv1": rng.standard_normal((16, 3, 3, 3)) * 0.3,
              "fc": rng.standard_normal((10, 64)) * 0.1}
    os.makedirs(a.dir, exist_ok=True)
    head = {"format": "csreg-run 1", "name": "synthetic", "reg": a.reg,
            "params": {"lambda": 1e-4}, "device": "cpu",
            "steps": a.every * (a.snapshots - 1), "done": False,
            "layers": [{"name": n, "shape": list(w.shape)} for n, w in layers.items()]}
    metrics = os.path.join(a.dir, "metrics.jsonl")
    if not a.resume:
        with open(metrics + ".tmp", "w"):
            pass
        os.replace(metrics + ".tmp", metrics)
    with open(os.path.join(a.dir, "run.json.tmp"), "w") as f:
        json.dump(head, f)
    os.replace(os.path.join(a.dir, "run.json.tmp"), os.path.join(a.dir, "run.json"))
    fd = os.open(metrics, os.O_WRONLY | os.O_APPEND)
    for k in range(a.resume, a.snapshots):
        t = k / max(1, a.snapshots - 1)
        step = k * a.every
        sub = "snap-%08d" % step
        os.makedirs(os.path.join(a.dir, sub), exist_ok=True)
        files = {}
        for i, (name, w0) in enumerate(layers.items()):
            w = (1 - t) * w0 + t * np.sign(w0)
            rel = "%s/%s.npy" % (sub, name)
            path = os.path.join(a.dir, rel)
            if k == a.die_at and i == 1:   # killed with one file written, another half
                with open(path + ".tmp", "wb") as f:
                    f.write(b"\x93NUMPY\x01\x00")
                os._exit(9)
            if k == a.truncate_at and i == 0:   # a writer that does not rename
                with open(path, "wb") as f:
                    np.lib.format.write_array(f, w.astype(np.float32))
                    f.truncate(200)
            else:
                save(path, w)
            files[name] = rel
        if k == a.bad_line_at:
            os.write(fd, b'{"step": oops\n')
        line = {"step": step, "epoch": step / 100.0, "loss": 2.3 * (1 - t) + 0.1,
                "files": files}
        os.write(fd, (json.dumps(line) + "\n").encode())
        if a.interval > 0:
            time.sleep(a.interval)
    head["done"] = True
    with open(os.path.join(a.dir, "run.json.tmp"), "w") as f:
        json.dump(head, f)
    os.replace(os.path.join(a.dir, "run.json.tmp"), os.path.join(a.dir, "run.json"))
    os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
