#!/usr/bin/env python3
"""torch_epoch.py DATA MODEL DEVICE [LIMIT] — PyTorch's peer of one csreg
epoch: the same network (mlp 784-512-512-10, or the cnn of engine/nn), batch
128, Adam lr 1e-3, on the first LIMIT training images of Fashion-MNIST in
DATA. Prints one line: model, device, train accuracy of the epoch, seconds
of the loop over the mini-batches (the data already on the device, as csreg
has it), images/s. Two epochs run; the second is timed, so that CUDA's and
cuDNN's first-call costs are not counted (csreg's first epoch counts them).
"""
import gzip, sys, time
import numpy as np
import torch
import torch.nn as nn


def idx(path, header):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


def net(model):
    if model == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(),
                             nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
    return nn.Sequential(*block(1, 16), *block(16, 16), nn.MaxPool2d(2),
                         *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(1568, 256), nn.ReLU(), nn.Linear(256, 10))


def main():
    data, model, device = sys.argv[1], sys.argv[2], sys.argv[3]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    x = idx(f"{data}/train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    y = idx(f"{data}/train-labels-idx1-ubyte.gz", 8)
    if limit:
        x, y = x[:limit], y[:limit]
    torch.manual_seed(1)
    dev = torch.device(device)
    X = torch.tensor(x, dtype=torch.float32, device=dev) / 255.0
    Y = torch.tensor(y, dtype=torch.int64, device=dev)
    m = net(model).to(dev)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    n = X.shape[0]
    secs = []
    for epoch in range(2):
        perm = torch.randperm(n, device=dev)
        correct = torch.zeros((), device=dev, dtype=torch.int64)
        if device == "cuda":
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
        if device == "cuda":
            torch.cuda.synchronize()
        secs.append(time.perf_counter() - t0)
    sec = secs[1]
    print(f"{model:<5} {'torch-' + device:<10} {correct.item() / n:8.4f} {'':>9} {sec:9.2f} {n / sec:10.0f}"
          f"   (first epoch {secs[0]:.2f} s)")


if __name__ == "__main__":
    main()
