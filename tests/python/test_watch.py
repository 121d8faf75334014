"""csreg.watch.Logger writes a run folder (docs/runfolder.md) that `csreg watch`
reads: from arrays and from a torch model, snapshots every N steps and a line a
call, its cost recorded, snapshots dropped rather than waited for when the
writer is busy; and the ResNet-20 example's smoke run (3 steps on the CPU)."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import csreg.watch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def watch_json(csreg_bin, folder, *extra):
    out = subprocess.run([csreg_bin, "--json", "watch", str(folder)] + list(extra), check=True,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    return json.loads(out.splitlines()[-1])


def lines(folder):
    with open(os.path.join(folder, "metrics.jsonl")) as f:
        return [json.loads(x) for x in f]


def test_arrays_to_folder(tmp_path, csreg_bin):
    rng = np.random.default_rng(3)
    w0 = {"conv": rng.standard_normal((8, 2, 3, 3)).astype(np.float32),
          "fc": rng.standard_normal((10, 16))}
    log = csreg.watch.Logger(tmp_path / "run", reg="bin", params={"lambda": 0.5}, every=5)
    for step in range(11):
        t = step / 10
        w = {k: (1 - t) * v + t * np.sign(v) for k, v in w0.items()}
        assert log.log(step, w, loss=2.0 - t, epoch=t, lr=np.float32(0.1)) == (step % 5 == 0)
        log.flush()   # on disk before the next: none dropped however fast the loop
    log.close()
    ls = lines(tmp_path / "run")
    assert [x["step"] for x in ls] == list(range(11))
    assert [x["step"] for x in ls if "files" in x] == [0, 5, 10]
    assert ls[5]["files"] == {"conv": "snap-00000005/conv.npy", "fc": "snap-00000005/fc.npy"}
    assert ls[3]["loss"] == pytest.approx(1.7) and ls[3]["lr"] == pytest.approx(0.1)
    a = np.load(tmp_path / "run" / "snap-00000010" / "conv.npy")
    assert a.dtype == np.float32 and a.shape == (8, 2, 3, 3)
    assert np.array_equal(a, np.sign(w0["conv"]))
    head = json.load(open(tmp_path / "run" / "run.json"))
    assert head["done"] is True and head["reg"] == "bin" and head["params"] == {"lambda": 0.5}
    assert head["layers"] == [{"name": "conv", "shape": [8, 2, 3, 3], "regularized": True},
                              {"name": "fc", "shape": [10, 16], "regularized": True}]
    c = log.cost()
    assert c["calls"] == 11 and c["snapshots"] == 3 and c["dropped"] == 0
    assert c["main_seconds"] > 0 and c["writer_seconds"] > 0 and c["bytes"] > 3 * 4 * 304
    assert head["cost"]["snapshots"] == 3
    # csreg reads it: three snapshots, all on ±1 at the end
    r = watch_json(csreg_bin, tmp_path / "run")
    assert r["snapshots"] == 3 and r["points"] == 11 and r["layers"] == ["conv", "fc"]
    assert r["skipped"] == [] and r["levels"] == 2
    last = [x for x in r["summary"] if x["step"] == 10]
    assert [x["near"] for x in last] == [1.0, 1.0]
    assert [x["alpha"] for x in last] == [1.0, 1.0]
    assert r["summary"][0]["flips"] is None and r["summary"][0]["loss"] == 2.0


def test_torch_model(tmp_path, csreg_bin):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, bias=False), torch.nn.BatchNorm2d(4),
                                torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # buffers: room for every snapshot, so that none is dropped however slow the disk
    with csreg.watch.Logger(tmp_path / "t", reg="ter", regularized={"0"}, buffers=4) as log:
        for step in range(5):
            x = torch.randn(8, 1, 8, 8)
            loss = model(x).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            log.log(step, model, loss=loss.detach(), every=2)   # a tensor: read by the writer
    ls = lines(tmp_path / "t")
    assert [x["step"] for x in ls if "files" in x] == [0, 2, 4]
    assert set(ls[0]["files"]) == {"0", "3"}          # the conv and the linear, not BN
    assert all(isinstance(x["loss"], float) for x in ls)
    w = np.load(tmp_path / "t" / ls[4]["files"]["0"])
    assert np.array_equal(w, model[0].weight.detach().numpy())
    r = watch_json(csreg_bin, tmp_path / "t")
    assert r["levels"] == 3                            # ter: {-a, 0, a}, with tau
    assert all(x["tau"] is not None for x in r["summary"])
    head = json.load(open(tmp_path / "t" / "run.json"))
    assert [x["regularized"] for x in head["layers"]] == [True, False]
    assert head["device"] == "cpu"


def test_busy_writer_drops(tmp_path):
    log = csreg.watch.Logger(tmp_path / "d", buffers=1, every=1)
    slow = log._write_snapshot

    def slower(line, snap):
        time.sleep(0.2)
        return slow(line, snap)
    log._write_snapshot = slower
    w = {"w": np.ones((2, 3))}
    t0 = time.perf_counter()
    taken = [log.log(s, w) for s in range(4)]
    assert time.perf_counter() - t0 < 0.15           # the loop did not wait
    log.close()
    assert taken[0] and not all(taken)
    c = log.cost()
    assert c["dropped"] == taken.count(False) and c["snapshots"] == taken.count(True)
    assert len(lines(tmp_path / "d")) == 4           # every step has its line


def test_resnet20_smoke(tmp_path, csreg_bin):
    pytest.importorskip("torch")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "torch_resnet20_watch.py"),
                          "--steps", "3", "--smoke", "--limit", "256", "--batch", "16",
                          "--every", "1", "--device", "cpu", "--threads", "1",
                          "--log", str(tmp_path / "r20")],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ResNet-20 (269434 parameters) on cpu" in run.stdout
    assert "logging: 4 snapshots (0 dropped)" in run.stdout
    r = watch_json(csreg_bin, tmp_path / "r20")
    assert r["snapshots"] == 4 and len(r["layers"]) == 20
    assert r["layers"][0] == "conv1" and r["layers"][-1] == "fc"
    assert "layer3.2.conv2" in r["layers"]
    head = json.load(open(tmp_path / "r20" / "run.json"))
    reg = [x["name"] for x in head["layers"] if x["regularized"]]
    assert len(reg) == 18 and "conv1" not in reg and "fc" not in reg
    shapes = {x["name"]: x["shape"] for x in head["layers"]}
    assert shapes["layer2.0.conv1"] == [32, 16, 3, 3] and shapes["fc"] == [10, 64]
