"""csreg.watch — write a run folder (docs/runfolder.md) from any training loop,
for `csreg watch DIR`: the live weight histograms, the regularizer's levels,
the share of weights near them and the weights that flipped.

    log = csreg.watch.Logger("runs/r20", reg="bin", params={"lambda": 1e-4})
    for step, (x, y) in enumerate(loader):
        ...
        log.log(step, model, loss=loss.item(), every=50)   # a snapshot every 50 steps
    log.close()

Each snapshot is one float32 .npy per weight (parameters of two or more
dimensions; rows = output units), written under a temporary name and renamed,
then one line of metrics.jsonl naming them; every log() call adds a line with
its numbers. The weights leave the GPU by an asynchronous copy into pinned
buffers, and a background thread writes them: the training loop only starts
the copies. When the writer is still busy with the previous snapshots the new
one is dropped (counted in cost()), so the loop never waits for the disk.
Needs numpy; torch only for torch models and tensors.
"""
import json
import os
import queue
import threading
import time

import numpy as np

__all__ = ["Logger"]

FORMAT = "csreg-run 1"


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def _file_name(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _replace_write(path, write):
    """write(f) into a temporary file beside path, renamed over it when whole."""
    tmp = "%s.tmp-%d-%d" % (path, os.getpid(), threading.get_ident())
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _number(v):
    """A metric as a JSON number (a tensor's item, a numpy scalar), or None."""
    if v is None:
        return None
    if _is_torch(v) or isinstance(v, (np.generic, np.ndarray)):
        try:
            v = v.item()
        except (ValueError, RuntimeError):   # more than one number
            return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    return None


class _Snapshot:
    """Host buffers for one snapshot of every watched weight (pinned for CUDA)."""

    def __init__(self, shapes, pinned):
        if pinned:
            import torch
            self.bufs = [torch.empty(s, dtype=torch.float32, pin_memory=True) for s in shapes]
            self.arrays = [b.numpy() for b in self.bufs]
        else:
            self.bufs = None
            self.arrays = [np.empty(s, dtype=np.float32) for s in shapes]
        self.event = None


class Logger:
    """A run folder at `dir` (made when missing; a new metrics.jsonl replaces an
    old one, so a viewer following it starts over).

    reg: the regularizer's name ("bin", "ter", "none", ...) and params its
    parameters ({"lambda": 1e-4}), for the viewer's levels (ternary names:
    {-a, 0, a}; else ±a) and its header; levels=2 or 3 overrides. name: the
    run's name (default: the folder's). every: snapshot every N steps (log()'s
    every= overrides). regularized: the names of the regularized weights (the
    others are shown, but not in the readiness table), default all. device,
    steps, epochs: for the header only. buffers: snapshots in flight at most.
    """

    def __init__(self, dir, reg="bin", params=None, name=None, every=100, levels=None,
                 regularized=None, device=None, steps=None, epochs=None, buffers=2):
        self.dir = str(dir)
        self.reg = str(reg)
        self.params = dict(params or {})
        self.name = name or os.path.basename(os.path.normpath(self.dir))
        self.every = int(every)
        self.levels = levels
        self.regularized = None if regularized is None else set(regularized)
        self.device = device
        self.steps = steps
        self.epochs = epochs
        self._nbuf = max(1, int(buffers))
        self._layers = None          # [(name, shape)]
        self._free = queue.Queue()   # snapshot buffers not in use
        self._work = queue.Queue()   # lines and snapshots, in order
        self._error = None
        self._closed = False
        self._lock = threading.Lock()
        self._cost = {"calls": 0, "snapshots": 0, "dropped": 0, "main_seconds": 0.0,
                      "writer_seconds": 0.0, "bytes": 0}
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, "metrics.jsonl")
        _replace_write(path, lambda f: None)   # a new file: followers start over
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._thread = threading.Thread(target=self._writer, name="csreg.watch", daemon=True)
        self._thread.start()

    # ---- the caller's side ---------------------------------------------------

    def _weights(self, model_or_dict):
        """(name, tensor or array) of the watched weights, in a fixed order."""
        if hasattr(model_or_dict, "named_parameters"):
            items = [(n[:-len(".weight")] if n.endswith(".weight") else n, p)
                     for n, p in model_or_dict.named_parameters() if p.dim() >= 2]
        else:
            items = list(model_or_dict.items())
        if not items:
            raise ValueError("csreg.watch: no weights to watch (parameters of 2+ dimensions, "
                             "or a dict name -> array)")
        return items

    def _start(self, items):
        self._layers = []
        pinned = False
        for n, w in items:
            shape = tuple(w.shape) if len(w.shape) else (1,)
            self._layers.append((str(n), shape))
            if _is_torch(w) and w.device.type == "cuda":
                pinned = True
        if self.device is None:
            dev = [w.device for _, w in items if _is_torch(w)]
            self.device = str(dev[0]) if dev else "cpu"
        for _ in range(self._nbuf):
            self._free.put(_Snapshot([s for _, s in self._layers], pinned))
        self._pinned = pinned
        self._write_run_json(done=False)

    def _copy(self, items, snap):
        """Start the copies of the weights into snap's buffers (asynchronous from a GPU)."""
        cuda = None
        for (n, w), (name, shape), k in zip(items, self._layers, range(len(items))):
            if tuple(w.shape) != shape and not (shape == (1,) and len(w.shape) == 0):
                raise ValueError("csreg.watch: %s changed shape from %s to %s"
                                 % (name, shape, tuple(w.shape)))
            if _is_torch(w):
                src = w.detach()
                if snap.bufs is not None:
                    snap.bufs[k].copy_(src, non_blocking=src.device.type == "cuda")
                    if src.device.type == "cuda":
                        cuda = src.device
                else:
                    snap.arrays[k][...] = src.float().cpu().numpy()
            else:
                snap.arrays[k][...] = np.asarray(w, dtype=np.float32)
        if cuda is not None:
            import torch
            snap.event = torch.cuda.Event()
            snap.event.record(torch.cuda.current_stream(cuda))
        else:
            snap.event = None

    def log(self, step, model_or_dict=None, loss=None, every=None, epoch=None, **metrics):
        """A line of metrics.jsonl for `step` (loss, epoch, any other numbers); with
        the weights of model_or_dict (a torch module: its parameters of two or more
        dimensions, ".weight" dropped from their names; or a dict name -> tensor or
        array) a snapshot when step is a multiple of `every`. Returns True when a
        snapshot was taken."""
        t0 = time.perf_counter()
        if self._closed:
            raise RuntimeError("csreg.watch: the logger is closed")
        if self._error is not None:
            raise RuntimeError("csreg.watch: the writer failed: %s" % self._error)
        step = int(step)
        line = {"step": step}
        # numbers as they come: a tensor's .item() would wait for the GPU here,
        # the writer thread takes it (_numbers)
        for k, v in (("epoch", epoch), ("loss", loss)) + tuple(metrics.items()):
            if v is not None:
                line[k] = v.detach() if _is_torch(v) else v
        every = self.every if every is None else int(every)
        taken = False
        if model_or_dict is not None and every > 0 and step % every == 0:
            items = self._weights(model_or_dict)
            if self._layers is None:
                self._start(items)
            try:
                snap = self._free.get_nowait()
            except queue.Empty:
                snap = None
            if snap is None:
                with self._lock:
                    self._cost["dropped"] += 1
            else:
                self._copy(items, snap)
                self._work.put((line, snap))
                taken = True
        if not taken:
            self._work.put((line, None))
        with self._lock:
            self._cost["calls"] += 1
            self._cost["main_seconds"] += time.perf_counter() - t0
        return taken

    def cost(self):
        """What logging cost: calls, snapshots written, dropped (writer busy),
        main_seconds (in log(), the training thread), writer_seconds (the
        background thread), bytes written."""
        with self._lock:
            return dict(self._cost)

    def flush(self):
        """Wait until everything logged so far is on disk."""
        self._work.join()
        if self._error is not None:
            raise RuntimeError("csreg.watch: the writer failed: %s" % self._error)

    def close(self, done=True):
        """Write what is queued, then run.json marked done (and the cost)."""
        if self._closed:
            return
        self._work.join()
        self._closed = True
        self._work.put(None)
        self._thread.join()
        os.close(self._fd)
        if self._layers is not None or done:
            self._write_run_json(done=done)
        if self._error is not None:
            raise RuntimeError("csreg.watch: the writer failed: %s" % self._error)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if not self._closed:
                self.close(done=False)
        except Exception:
            pass

    # ---- the writer thread ---------------------------------------------------

    def _write_run_json(self, done):
        head = {"format": FORMAT, "name": self.name, "writer": "csreg.watch", "reg": self.reg,
                "params": {k: _number(v) if _number(v) is not None else str(v)
                           for k, v in self.params.items()},
                "done": bool(done)}
        if self.levels:
            head["levels"] = int(self.levels)
        for k in ("device", "steps", "epochs"):
            if getattr(self, k) is not None:
                head[k] = getattr(self, k) if k == "device" else _number(getattr(self, k))
        head["layers"] = [{"name": n, "shape": list(s),
                           "regularized": self.regularized is None or n in self.regularized}
                          for n, s in (self._layers or [])]
        head["cost"] = self.cost()
        text = (json.dumps(head) + "\n").encode()
        _replace_write(os.path.join(self.dir, "run.json"), lambda f: f.write(text))

    def _write_snapshot(self, line, snap):
        if snap.event is not None:
            snap.event.synchronize()    # the copies from the GPU are done
        step = line["step"]
        sub = "snap-%08d" % step
        os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        files = {}
        nbytes = 0
        for (name, _), a in zip(self._layers, snap.arrays):
            rel = "%s/%s.npy" % (sub, _file_name(name))
            _replace_write(os.path.join(self.dir, rel),
                           lambda f, a=a: np.lib.format.write_array(f, a, allow_pickle=False))
            files[name] = rel
            nbytes += a.nbytes
        line = dict(line, files=files)
        return line, nbytes

    @staticmethod
    def _numbers(line):
        out = {}
        for k, v in line.items():
            v = v if k == "files" else _number(v)
            if v is not None:
                out[k] = v
        return out

    def _writer(self):
        while True:
            item = self._work.get()
            try:
                if item is None:
                    return
                line, snap = item
                t0 = time.perf_counter()
                nbytes = 0
                if self._error is None:
                    try:
                        if snap is not None:
                            line, nbytes = self._write_snapshot(line, snap)
                        data = (json.dumps(self._numbers(line)) + "\n").encode()
                        os.write(self._fd, data)   # one write: a reader sees the whole line
                        nbytes += len(data)
                    except Exception as e:   # said by the next log() call
                        self._error = "%s: %s" % (type(e).__name__, e)
                if snap is not None:
                    self._free.put(snap)
                with self._lock:
                    self._cost["writer_seconds"] += time.perf_counter() - t0
                    self._cost["bytes"] += nbytes
                    self._cost["snapshots"] += snap is not None and self._error is None
            finally:
                self._work.task_done()
