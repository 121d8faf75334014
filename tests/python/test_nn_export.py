"""Weights out of csreg (issue #36): `save model F.npz` read with NumPy alone
into a PyTorch module of the same network (a few lines each) gives csreg's
logits (`predict out=`) on test images; `export onnx F.onnx` passes
onnx.checker and, run by a NumPy evaluation of its nodes (and by
onnx.reference where this onnx has it), gives the same logits. The same
for a cnn of 3-channel 20×24 images and 5 classes (an .npz data set written
here), whose module also gives csreg's test accuracy."""
import csv
import gzip
import json
import os
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist"
N = 24


def images(n):
    path = os.path.join(DATA, "t10k-images-idx3-ubyte.gz")
    if not os.path.exists(path):
        pytest.skip("no Fashion-MNIST package (" + path + ")")
    with gzip.open(path, "rb") as f:
        x = np.frombuffer(f.read(), dtype=np.uint8, offset=16)[: n * 784]
    return x.reshape(n, 1, 28, 28)


def normalized(x, meta):
    """(x/255 − mean[c])/std[c] in float32 for x N×C×H×W, as csreg's lookup
    tables have it; meta: csreg.input, the C means, the C stds, pad"""
    c = (len(meta) - 1) // 2
    mean = np.asarray(meta[:c], np.float32).reshape(1, c, 1, 1)
    std = np.asarray(meta[c:2 * c], np.float32).reshape(1, c, 1, 1)
    return (x.astype(np.float32) / np.float32(255) - mean) / std


def padded(xn, pad, meta):
    """xn with a border of pad pixels of each channel's normalized 0"""
    n, c, h, w = xn.shape
    bg = normalized(np.zeros((1, c, 1, 1), np.uint8), meta)
    t = np.broadcast_to(bg, (n, c, h + 2 * pad, w + 2 * pad)).copy()
    t[:, :, pad:pad + h, pad:pad + w] = xn
    return torch.from_numpy(t)


# ---------------------------------------------------------------- the networks in PyTorch

class CNN(nn.Module):
    def __init__(self, conv, k, hidden, h, w, c=1, classes=10):
        super().__init__()
        self.plan, n = [], 0
        for e in conv:
            if e == 0:   # a 2×2 pool, odd sides rounded down
                self.plan.append(0)
                h, w = h // 2, w // 2
                continue
            n += 1
            setattr(self, f"conv{n}", nn.Conv2d(c, e, k, padding=k // 2, bias=False))
            setattr(self, f"bn{n}", nn.BatchNorm2d(e))
            self.plan.append(n)
            c = e
        self.fc1, self.fc2 = nn.Linear(c * h * w, hidden), nn.Linear(hidden, classes)

    def forward(self, x):
        for n in self.plan:
            x = F.max_pool2d(x, 2) if n == 0 else F.relu(getattr(self, f"bn{n}")(getattr(self, f"conv{n}")(x)))
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class Block(nn.Module):
    def __init__(self, i, o, s):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o)
        self.conv2, self.bn2 = nn.Conv2d(o, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o)
        self.s, self.p = s, (o - i) // 2

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        sc = x if self.p == 0 else F.pad(x[:, :, ::self.s, ::self.s], (0, 0, 0, 0, self.p, self.p))
        return F.relu(y + sc)   # option A: every other pixel, the channels zero-padded


class ResNet20(nn.Module):
    def __init__(self, c=1, classes=10):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16)
        w = [16, 16, 32, 64]
        for s in range(1, 4):
            setattr(self, f"layer{s}", nn.Sequential(*[Block(w[s - 1] if b == 0 else w[s], w[s], 2 if s > 1 and b == 0 else 1) for b in range(3)]))
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(x.mean((2, 3)))


def torch_logits(npz_path, x):
    z = np.load(npz_path)   # NumPy alone reads the weights
    cfg, meta = z["csreg.config"], z["csreg.input"]
    kind, pad, kernel, nh = int(cfg[1]), int(cfg[2]), int(cfg[3]), int(cfg[4])
    # channels, height, width (before pad), classes; absent: Fashion-MNIST's
    c, h, w, classes = (int(v) for v in z["csreg.shape"]) if "csreg.shape" in z else (1, 28, 28, 10)
    if kind == 2:
        m = ResNet20(c, classes)
    else:
        conv = [int(v) for v in cfg[14:14 + int(cfg[13])]]
        m = CNN(conv, kernel, int(cfg[5]), h + 2 * pad, w + 2 * pad, c, classes)
    state = {k: torch.from_numpy(np.array(v)) for k, v in z.items() if not k.startswith("csreg.")}
    m.load_state_dict(state)   # strict: every name is PyTorch's
    m.eval()
    with torch.no_grad():
        return m(padded(normalized(x, meta), pad, meta)).numpy(), z


# ---------------------------------------------------------------- csreg

def run_csreg(csreg_bin, tmp, lines):
    """the JSON result of each line"""
    args = [csreg_bin, "--json"]
    for line in lines:
        args += ["-e", line]
    p = subprocess.run(args, check=True, cwd=tmp, capture_output=True, text=True, timeout=600)
    return [json.loads(t) for t in p.stdout.splitlines() if t.startswith("{")]


def read_pred(path):
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    head, body = rows[0], rows[1:]
    assert head[:3] == ["index", "label", "pred"]
    return np.array([[float(v) for v in r[3:]] for r in body], np.float32), np.array([int(r[2]) for r in body])


def close(a, b):
    return np.max(np.abs(a - b)) <= 1e-4 * max(1.0, np.max(np.abs(b)))


NETS = {
    "cnn": "train model=cnn channels=8,p,12,12,p kernel=5 pad=2 hidden=32 limit=512 epochs=1",
    "resnet20": "train model=resnet20 limit=256 epochs=1 batch=64",
}


@pytest.fixture(scope="module", params=sorted(NETS))
def exported(request, csreg_bin, tmp_path_factory):
    """the network trained briefly, quantized to binary (the scales of each
    row then stand in the weights), saved, predicted and exported"""
    tmp = tmp_path_factory.mktemp(request.param)
    run_csreg(csreg_bin, tmp, [NETS[request.param], "save model fp.npz", f"predict limit={N} out=fp.csv",
                               "quantize bin evaluate=off", "save model q.npz",
                               f"predict limit={N} out=q.csv", "export onnx q.onnx"])
    return tmp


@pytest.mark.parametrize("which", ["fp", "q"])
def test_npz_in_pytorch(exported, which):
    x = images(N)
    want, pred = read_pred(exported / f"{which}.csv")
    got, z = torch_logits(str(exported / f"{which}.npz"), x)
    assert close(got, want), np.max(np.abs(got - want))
    assert (got.argmax(1) == pred).all()
    if which == "q":   # the weights are the levels times the row's scale
        for k in z.files:
            if k.endswith(".levels"):
                name = k[len("csreg."):-len(".levels")]
                w, lv, a = z[name + ".weight"], z[k], z["csreg." + name + ".scale"]
                assert set(np.unique(lv)) <= {-1, 0, 1}
                assert np.array_equal(w, (lv * a.reshape((-1,) + (1,) * (lv.ndim - 1))).astype(np.float32))


# ---------------------------------------------------------------- ONNX

def onnx_numpy(model, x):
    """the graph's nodes run with NumPy (the ops csreg writes)"""
    from onnx import numpy_helper
    v = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    v["input"] = x
    for nd in model.graph.node:
        a = {at.name: (list(at.ints) if at.ints else at.i if at.type == 2 else at.f) for at in nd.attribute}
        i = [v[n] for n in nd.input]
        if nd.op_type == "Conv":
            W, k, p, s = i[1], a["kernel_shape"][0], a["pads"][0], a["strides"][0]
            xp = np.pad(i[0], ((0, 0), (0, 0), (p, p), (p, p)))
            oh = (i[0].shape[2] + 2 * p - k) // s + 1
            ow = (i[0].shape[3] + 2 * p - k) // s + 1
            y = sum(np.einsum("oc,nchw->nohw", W[:, :, ky, kx], xp[:, :, ky:ky + s * oh:s, kx:kx + s * ow:s])
                    for ky in range(k) for kx in range(k))
        elif nd.op_type == "BatchNormalization":
            sh = (1, -1, 1, 1)
            y = (i[0] - i[3].reshape(sh)) / np.sqrt(i[4].reshape(sh) + a["epsilon"]) * i[1].reshape(sh) + i[2].reshape(sh)
        elif nd.op_type == "Relu":
            y = np.maximum(i[0], 0)
        elif nd.op_type == "MaxPool":
            n_, c, h, w = i[0].shape
            y = i[0][:, :, :h // 2 * 2, :w // 2 * 2].reshape(n_, c, h // 2, 2, w // 2, 2).max((3, 5))
        elif nd.op_type == "Add":
            y = i[0] + i[1]
        elif nd.op_type == "Pad":
            p = i[1].reshape(2, -1).T
            y = np.pad(i[0], p, constant_values=i[2].item() if len(i) > 2 else 0)
        elif nd.op_type == "Slice":
            sl = [slice(None)] * i[0].ndim
            for ax, st in zip(i[3], i[4]):
                sl[ax] = slice(None, None, int(st))
            y = i[0][tuple(sl)]
        elif nd.op_type == "GlobalAveragePool":
            y = i[0].mean((2, 3), keepdims=True)
        elif nd.op_type == "Flatten":
            y = i[0].reshape(i[0].shape[0], -1)
        elif nd.op_type == "Gemm":
            y = i[0] @ i[1].T + i[2]
        else:
            raise AssertionError("an op csreg does not write: " + nd.op_type)
        v[nd.output[0]] = y.astype(np.float32)
    return v["logits"]


def test_onnx(exported):
    onnx = pytest.importorskip("onnx")
    model = onnx.load(str(exported / "q.onnx"))
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 13
    x = images(N)
    z = np.load(exported / "q.npz")
    xn = normalized(x, z["csreg.input"])
    want, pred = read_pred(exported / "q.csv")
    got = onnx_numpy(model, xn)
    assert close(got, want), np.max(np.abs(got - want))
    assert (got.argmax(1) == pred).all()
    try:
        from onnx.reference import ReferenceEvaluator
    except ImportError:   # onnx before 1.13 has none
        return
    ref = ReferenceEvaluator(model).run(None, {"input": xn})[0]
    assert close(ref, want)
    assert (ref.argmax(1) == pred).all()


# ---------------------------------------------------------------- any shape

C, H, W, K = 3, 20, 24, 5


def shape_set(path, n_train=300, n_test=60, seed=3):
    """a separable set of C×H×W images, K classes (a bright band of rows in
    channel y % C), as an .npz, NHWC; returns the test images NCHW and labels"""
    r = np.random.default_rng(seed)
    out = {}
    for part, n in (("train", n_train), ("test", n_test)):
        y = np.arange(n) % K
        x = r.integers(0, 70, (n, C, H, W))
        for i in range(n):
            x[i, y[i] % C, y[i] * H // K:(y[i] + 1) * H // K] += 150
        out["x_" + part] = x.astype(np.uint8).transpose(0, 2, 3, 1)
        out["y_" + part] = y.astype(np.uint8)
    np.savez(path, **out)
    return out["x_test"].transpose(0, 3, 1, 2), out["y_test"]


SHAPE_NETS = {   # the line, the model it makes, the accuracy it reaches at least
    "cnn": ("train model=cnn data=d.npz channels=8,p,12,p pad=1 hidden=16 epochs=3 batch=30 "
            "normalize=data", "cnn conv8,pool,12,pool 3x22x26 fc360-16-5", 0.9),
    "resnet20": ("train model=resnet20 data=d.npz epochs=1 batch=30",
                 "resnet20 3x24x28 16,32,64 option-A gap fc64-5", 0.0),
}


@pytest.mark.parametrize("kind", sorted(SHAPE_NETS))
def test_shape_nets(csreg_bin, tmp_path, kind):
    """3 channels, 20×24, 5 classes, a pad (each channel its own background),
    the cnn's pools on odd sides: the .npz in PyTorch gives csreg's logits
    and test accuracy; the ONNX export passes the checker and gives csreg's
    predictions"""
    line, model, least = SHAPE_NETS[kind]
    x, y = shape_set(tmp_path / "d.npz")
    res = run_csreg(csreg_bin, tmp_path, [
        line, "evaluate", "save model s.npz", f"predict limit={len(y)} out=s.csv", "export onnx s.onnx"])
    assert res[0]["model"] == model
    acc = res[1]["accuracy"]
    assert acc >= least   # the cnn learns the bands
    want, pred = read_pred(tmp_path / "s.csv")
    assert want.shape == (len(y), K)
    got, z = torch_logits(str(tmp_path / "s.npz"), x)
    assert list(z["csreg.shape"]) == [C, H, W, K] and len(z["csreg.input"]) == 2 * C + 1
    assert np.allclose(z["csreg.input"][:C], res[0]["input_mean"])
    assert close(got, want), np.max(np.abs(got - want))
    assert (got.argmax(1) == pred).all()
    assert (got.argmax(1) == y).mean() == acc
    onnx = pytest.importorskip("onnx")
    model = onnx.load(str(tmp_path / "s.onnx"))
    onnx.checker.check_model(model, full_check=True)
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:]]
    assert dims == [C, H, W]
    assert model.graph.output[0].type.tensor_type.shape.dim[1].dim_value == K
    xn = normalized(x, z["csreg.input"])
    got = onnx_numpy(model, xn)
    assert close(got, want), np.max(np.abs(got - want))
    assert (got.argmax(1) == pred).all()
