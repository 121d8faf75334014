#!/usr/bin/python3
"""torch_resnet20_watch.py — the paper's ResNet-20 in PyTorch with a CS
regularizer (csreg.torch.CSRegularizer) on its convolutions, trained on
Fashion-MNIST padded to 32×32, logging its weights to a run folder that
`csreg watch` follows live (docs/runfolder.md):

    PYTHONPATH=python /usr/bin/python3 examples/torch_resnet20_watch.py --log runs/r20 &
    ./csreg watch runs/r20

ResNet-20 is He et al. 2016's CIFAR network: a 3×3 convolution (16
channels), three stages of three basic blocks (two 3×3 convolutions with
batch norm each; 16, 32, 64 channels; the first block of stages 2 and 3
halves the image), option-A shortcuts (identity, subsampled and padded
with zero channels: no parameters), global average pooling and a linear
layer: 20 weight layers, 0.27 M parameters. As in the paper the first
convolution and the last layer stay full precision (not regularized).

The data: the IDX files csreg's own `train` reads (Debian's
dataset-fashion-mnist, /usr/share/datasets/fashion-mnist), or --data DIR;
without them --smoke trains on random images. --device auto takes the GPU
when there is one. Prints the step time and what logging cost.
"""
import argparse
import gzip
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import csreg.torch as cst  # noqa: E402
import csreg.watch  # noqa: E402

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"   # CS_NN_DEFAULT_DATA, as `train` reads
MEAN, STD = 0.2860, 0.3530                           # Fashion-MNIST's pixels (x/255)


# ---- the network ------------------------------------------------------------------

class Block(nn.Module):
    """A basic block: 3×3 conv, BN, ReLU, 3×3 conv, BN, + the shortcut, ReLU.
    Option A: when the shape changes the shortcut subsamples and pads zero
    channels."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.stride, self.pad = stride, cout - cin

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = x
        if self.stride != 1 or self.pad:
            s = F.pad(x[:, :, ::self.stride, ::self.stride],
                      (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))
        return F.relu(y + s)


class ResNet20(nn.Module):
    def __init__(self, in_channels=1, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        stages, cin = [], 16
        for i, c in enumerate((16, 32, 64)):
            blocks = []
            for b in range(3):
                blocks.append(Block(cin, c, 2 if i > 0 and b == 0 else 1))
                cin = c
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3 = stages
        self.fc = nn.Linear(64, classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


# ---- the data ---------------------------------------------------------------------

def idx(path, header):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


def find(dirname, stem):
    for name in (stem + ".gz", stem):
        p = os.path.join(dirname, name)
        if os.path.exists(p):
            return p
    return None


def load(data, smoke, limit):
    """(images N×1×32×32 float32 normalized, labels), or random ones for --smoke."""
    imgs = find(data, "train-images-idx3-ubyte")
    labs = find(data, "train-labels-idx1-ubyte")
    if imgs and labs:
        x = idx(imgs, 16).reshape(-1, 28, 28)
        y = idx(labs, 8).astype(np.int64)
        source = data
    elif smoke:
        rng = np.random.default_rng(0)
        x = rng.integers(0, 256, (512, 28, 28), dtype=np.uint8)
        y = rng.integers(0, 10, 512).astype(np.int64)
        source = "random images (no Fashion-MNIST in %s)" % data
    else:
        sys.exit("no Fashion-MNIST in %s (train-images-idx3-ubyte[.gz]): give --data DIR, "
                 "install dataset-fashion-mnist, or --smoke" % data)
    if limit:
        x, y = x[:limit], y[:limit]
    x = np.pad(x, ((0, 0), (2, 2), (2, 2)))             # 28×28 -> 32×32, as CIFAR's size
    x = (x.astype(np.float32) / 255 - MEAN) / STD
    return torch.from_numpy(x[:, None]), torch.from_numpy(y), source


# ---- training ---------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of Fashion-MNIST IDX files")
    ap.add_argument("--log", default="runs/resnet20", help="the run folder (csreg watch DIR)")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.1, help="SGD, momentum 0.9, cosine to 0")
    ap.add_argument("--reg", default="bin", help="the CS regularizer (bin, ter, ...; none)")
    ap.add_argument("--lam", type=float, default=1.0,
                    help="its weight: lam · Σ_rows ℓ(row)/row length, per layer")
    ap.add_argument("--every", type=int, default=50, help="steps between snapshots")
    ap.add_argument("--device", default="auto", help="auto (cuda when there is one), cpu, cuda")
    ap.add_argument("--threads", type=int, default=0, help="torch's CPU threads (0: its own)")
    ap.add_argument("--limit", type=int, default=0, help="the first N training images (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="random images when there is no data")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    if a.threads:
        torch.set_num_threads(a.threads)
    device = torch.device("cuda" if a.device == "auto" and torch.cuda.is_available()
                          else "cpu" if a.device == "auto" else a.device)
    x, y, source = load(a.data, a.smoke, a.limit)
    x, y = x.to(device), y.to(device)
    model = ResNet20().to(device)
    convs = [(n[:-len(".weight")], p) for n, p in model.named_parameters()
             if p.dim() == 4 and n != "conv1.weight"]   # the first conv and fc stay full
    regs = [] if a.reg == "none" else [
        (p, cst.CSRegularizer(a.reg, lam=a.lam / p[0].numel())) for _, p in convs]
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9, weight_decay=0 if regs
                          else 1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, a.steps) / a.steps)))
    log = csreg.watch.Logger(a.log, reg=a.reg, params={"lambda": a.lam}, name="resnet20-" + a.reg,
                             every=a.every, regularized={n for n, _ in convs},
                             device=str(device), steps=a.steps)
    print("ResNet-20 (%d parameters) on %s, %s, %d steps of %d; logging to %s"
          % (sum(p.numel() for p in model.parameters()), device, source, a.steps, a.batch,
             a.log), flush=True)
    gen = torch.Generator(device="cpu").manual_seed(a.seed)
    model.train()
    t0 = time.perf_counter()
    for step in range(a.steps + 1):
        if step == a.steps:   # the final weights
            log.log(step, model, every=1)
            break
        i = torch.randint(0, x.shape[0], (a.batch,), generator=gen).to(device)
        out = model(x[i])
        ce = F.cross_entropy(out, y[i])
        r = sum(reg(p) for p, reg in regs) if regs else torch.zeros((), device=device)
        opt.zero_grad(set_to_none=True)
        (ce + r).backward()
        opt.step()
        sched.step()
        acc = (out.argmax(1) == y[i]).float().mean()
        log.log(step, model, loss=ce.detach(), reg=r.detach(), train_acc=acc,
                lr=sched.get_last_lr()[0], epoch=step * a.batch / x.shape[0])
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    log.close()
    c = log.cost()
    print("%.1f ms a step; logging: %d snapshots (%d dropped), %.3f s in log() = %.2f%% of the "
          "run, %.3f s in the writer thread, %.1f MB"
          % (1e3 * seconds / max(1, a.steps), c["snapshots"], c["dropped"], c["main_seconds"],
             100 * c["main_seconds"] / seconds, c["writer_seconds"], c["bytes"] / 1e6))
    print("watch it: ./csreg watch %s   (summary: ./csreg --json watch %s)" % (a.log, a.log))


if __name__ == "__main__":
    main()
