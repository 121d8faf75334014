"""Data sets as NumPy .npz (issue #36, item 1): the same 256 images written
by NumPy as an .npz (uint8 N×H×W, uint8 N×H×W×1, float32 N×1×H×W in 0..1
with layout=nchw) and as MNIST-format IDX files train networks with
identical weights; results name the data set and its hash; shapes the
networks do not take are refused naming the shape."""
import gzip
import json
import struct
import subprocess

import numpy as np
import pytest

N_TRAIN, N_TEST = 256, 64


def make_images(seed=5):
    r = np.random.default_rng(seed)
    out = {}
    for part, n in (("train", N_TRAIN), ("test", N_TEST)):
        y = r.integers(0, 10, n).astype(np.int64)
        x = (r.random((n, 28, 28)) * 80 + y[:, None, None] * 17).astype(np.uint8)
        out["x_" + part], out["y_" + part] = x, y
    return out


def write_idx(path, a):
    hdr = struct.pack(">BBBB", 0, 0, 8, a.ndim) + b"".join(struct.pack(">I", d) for d in a.shape)
    with gzip.open(path, "wb") as f:
        f.write(hdr + a.astype(np.uint8).tobytes())


def write_idx_dir(d, arrays):
    d.mkdir()
    for part, split in (("train", "train"), ("test", "t10k")):
        write_idx(d / ("%s-images-idx3-ubyte.gz" % split), arrays["x_" + part])
        write_idx(d / ("%s-labels-idx1-ubyte.gz" % split), arrays["y_" + part])


def csreg(csreg_bin, cwd, lines, check=True):
    args = [csreg_bin, "--json"]
    for line in lines:
        args += ["-e", line]
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return [json.loads(s) for s in p.stdout.splitlines() if s.startswith("{")], p


TRAIN = "train model=cnn channels=4,p,8,p kernel=3 hidden=16 epochs=1 batch=32"


def weights(path):
    z = np.load(path)
    return {k: np.array(v) for k, v in z.items() if not k.startswith("csreg.")}


def train_on(csreg_bin, tmp, data, extra=""):
    out, _ = csreg(csreg_bin, tmp, ["%s data=%s %s" % (TRAIN, data, extra),
                                    "evaluate", "save model w-%s.npz" % data.replace("/", "_")])
    return out, weights(tmp / ("w-%s.npz" % data.replace("/", "_")))


def test_npz_layouts_match_idx(csreg_bin, tmp_path):
    a = make_images()
    write_idx_dir(tmp_path / "idx", a)
    np.savez(tmp_path / "nhw.npz", **a)
    nhwc = dict(a, x_train=a["x_train"][..., None], x_test=a["x_test"][..., None])
    np.savez(tmp_path / "nhwc.npz", **nhwc)
    nchw = dict(a, x_train=(a["x_train"][:, None] / np.float32(255)).astype(np.float32),
                x_test=(a["x_test"][:, None] / np.float32(255)).astype(np.float32),
                y_train=a["y_train"].astype(np.uint8))
    np.savez_compressed(tmp_path / "nchw.npz", **nchw)
    ref_out, ref = train_on(csreg_bin, tmp_path, "idx")
    assert ref_out[0]["train_examples"] == N_TRAIN
    assert ref_out[1]["examples"] == N_TEST
    for name, extra in (("nhw.npz", ""), ("nhwc.npz", ""), ("nchw.npz", "layout=nchw")):
        out, w = train_on(csreg_bin, tmp_path, name, extra)
        assert out[0]["data"] == name and len(out[0]["data_hash"]) == 12
        assert out[0]["data_hash"] != ref_out[0]["data_hash"]
        assert out[1]["accuracy"] == ref_out[1]["accuracy"], name
        assert sorted(w) == sorted(ref)
        for k in ref:
            assert np.array_equal(w[k], ref[k]), (name, k)


def test_set_data_npz_and_refusals(csreg_bin, tmp_path):
    a = make_images()
    np.savez(tmp_path / "d.npz", **a)
    out, _ = csreg(csreg_bin, tmp_path, ["set data d.npz", "train model=mlp hidden=8 epochs=1",
                                         "train model=mlp hidden=8 epochs=1"])
    assert [o["train_examples"] for o in out[1:]] == [N_TRAIN, N_TRAIN]
    assert out[1]["data"] == "d.npz" and out[1]["data_hash"] == out[2]["data_hash"]
    # splits of two shapes: refused naming both, nothing trained
    rgb = dict(a, x_train=np.zeros((8, 32, 32, 3), np.uint8), y_train=np.zeros(8, np.int64))
    np.savez(tmp_path / "rgb.npz", **rgb)
    _, p = csreg(csreg_bin, tmp_path, ["train model=mlp data=rgb.npz"], check=False)
    assert p.returncode != 0
    assert "rgb.npz: the splits' images differ: x_train has shape (8, 32, 32, 3)" in p.stderr + p.stdout
    assert "x_test has shape (%d, 28, 28)" % len(a["x_test"]) in p.stderr + p.stdout
    # N×1×28×28 read as nhwc: 1×28 images with 28 channels; layout=nchw reads it
    chw = dict(a, x_train=a["x_train"][:, None])
    np.savez(tmp_path / "chw.npz", **chw)
    _, p = csreg(csreg_bin, tmp_path, ["train model=mlp data=chw.npz"], check=False)
    assert p.returncode != 0 and "layout=nhwc|nchw" in p.stderr + p.stdout
    out, _ = csreg(csreg_bin, tmp_path, ["train model=mlp hidden=8 data=chw.npz layout=nchw"])
    assert out[0]["train_examples"] == N_TRAIN
    bad = dict(a, y_train=np.full(N_TRAIN, 300, np.int64))
    np.savez(tmp_path / "bad.npz", **bad)
    _, p = csreg(csreg_bin, tmp_path, ["train model=mlp data=bad.npz"], check=False)
    assert "bad.npz: y_train[0] = 300 is not a class 0..255" in p.stderr + p.stdout
    short = dict(a, y_train=a["y_train"][:100])
    np.savez(tmp_path / "short.npz", **short)
    _, p = csreg(csreg_bin, tmp_path, ["train model=mlp data=short.npz"], check=False)
    assert "short.npz: y_train has shape (100,) but there are 256 images" in p.stderr + p.stdout
    nox = {k: v for k, v in a.items() if k != "x_test"}
    np.savez(tmp_path / "nox.npz", **nox)
    _, p = csreg(csreg_bin, tmp_path, ["train model=mlp hidden=8 data=nox.npz", "evaluate"],
                 check=False)
    assert "nox.npz: no x_test" in p.stderr + p.stdout
