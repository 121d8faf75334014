#!/usr/bin/env python3
"""torch_epoch.py DATA MODEL DEVICE [LIMIT] [--threads T] [--epochs E]
[--hidden H1,H2] [--seconds] — PyTorch's peer of a csreg epoch: the same
network (mlp 784-H1-H2-10, default 512,512, or the cnn of engine/nn:
Conv(1,16)+BN+ReLU, Conv(16,16)+BN+ReLU, MaxPool 2, Conv(16,32)+BN+ReLU,
Conv(32,32)+BN+ReLU, MaxPool 2, Linear(1568,256)+ReLU, Linear(256,10); 3×3
convolutions, padding 1, no bias; or resnet20: He et al.'s CIFAR ResNet-20
with option-A shortcuts on the images padded to 32×32, as csreg's
model=resnet20), batch 128, Adam lr 1e-3, on the first
LIMIT training images of Fashion-MNIST in DATA (0: all), the data already
on the device as csreg has it. E epochs (default 2); the first pays
PyTorch's first-call costs, so the fastest of the others is reported:
  model device train-accuracy seconds images/s (first epoch S s)
or with --seconds only the seconds. Used by tests/gpu/run.sh (cuda and cpu)
and by `make bench` (bench_nn: one and two threads).
"""
import argparse, gzip, time
import numpy as np
import torch
import torch.nn as nn


def idx(path, header):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


class Block(nn.Module):
    def __init__(self, i, o, s):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o)
        self.conv2, self.bn2 = nn.Conv2d(o, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o)
        self.s, self.p = s, (o - i) // 2

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        sc = x if self.p == 0 else nn.functional.pad(x[:, :, ::self.s, ::self.s],
                                                     (0, 0, 0, 0, self.p, self.p))
        return torch.relu(y + sc)


class ResNet20(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16)
        w = [16, 16, 32, 64]
        self.layers = nn.Sequential(*[Block(w[s - 1] if b == 0 else w[s], w[s],
                                            2 if s > 1 and b == 0 else 1)
                                      for s in range(1, 4) for b in range(3)])
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.layers(torch.relu(self.bn1(self.conv1(x))))
        return self.fc(x.mean((2, 3)))


def net(model, hidden):
    if model == "resnet20":
        return ResNet20()
    if model == "mlp":
        h1, h2 = hidden
        return nn.Sequential(nn.Flatten(), nn.Linear(784, h1), nn.ReLU(),
                             nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, 10))
    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
    return nn.Sequential(*block(1, 16), *block(16, 16), nn.MaxPool2d(2),
                         *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(1568, 256), nn.ReLU(), nn.Linear(256, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("model", choices=["mlp", "cnn", "resnet20"])
    ap.add_argument("device")
    ap.add_argument("limit", nargs="?", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--hidden", default="512,512")
    ap.add_argument("--seconds", action="store_true")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    x = idx(f"{a.data}/train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    y = idx(f"{a.data}/train-labels-idx1-ubyte.gz", 8)
    if a.limit:
        x, y = x[:a.limit], y[:a.limit]
    torch.manual_seed(1)
    dev = torch.device(a.device)
    X = torch.tensor(x, dtype=torch.float32, device=dev) / 255.0
    if a.model == "resnet20":   # padded to 32×32, as csreg's pad=2
        X = nn.functional.pad(X, (2, 2, 2, 2))
    Y = torch.tensor(y, dtype=torch.int64, device=dev)
    m = net(a.model, [int(v) for v in a.hidden.split(",")]).to(dev)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    n = X.shape[0]
    secs = []
    for epoch in range(max(a.epochs, 2)):
        perm = torch.randperm(n, device=dev)
        correct = torch.zeros((), device=dev, dtype=torch.int64)
        if a.device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        for s in range(0, n, 128):
            i = perm[s:s + 128]
            out = m(X[i])
            loss = lossf(out, Y[i])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            correct += (out.argmax(1) == Y[i]).sum()
        if a.device == "cuda":
            torch.cuda.synchronize()
        secs.append(time.perf_counter() - t0)
    sec = min(secs[1:])
    if a.seconds:
        print(f"{sec:.4f}")
    else:
        print(f"{a.model:<5} {'torch-' + a.device:<10} {correct.item() / n:8.4f} {'':>9} "
              f"{sec:9.2f} {n / sec:10.0f}   (first epoch {secs[0]:.2f} s)")


if __name__ == "__main__":
    main()
