"""csreg.torch.CSRegularizer: values, gradcheck, dtypes, a small training run."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import csreg  # noqa: E402
from csreg.torch import CSRegularizer  # noqa: E402


def test_value_and_grad_exact():
    m = CSRegularizer("bin", 0.5)
    W = torch.tensor([[1.0, 2, 3], [0.5, -1, 2]], dtype=torch.float64, requires_grad=True)
    y = m(W)
    assert y.dim() == 0 and y.dtype == torch.float64
    # 0.5·(98 + 3·17.0625 − 5.25²)
    assert y.item() == 0.5 * (98 + 3 * 17.0625 - 5.25**2)
    (3 * y).backward()
    v, G = csreg.Reg("bin").rows(W.detach().numpy())
    assert W.grad.numpy().tolist() == (1.5 * G).tolist()


@pytest.mark.parametrize("spec", ["bin", "ter", "bbin"])
def test_gradcheck(spec):
    torch.manual_seed(0)
    W = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    m = CSRegularizer(spec, 0.7)
    assert torch.autograd.gradcheck(m, (W,), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_gradcheck_defined_reg():
    W = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    m = CSRegularizer(csreg.Reg(g="x", h="x^3"), 2.0)
    assert torch.autograd.gradcheck(m, (W,), eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_dtype_kept_and_shapes(dtype):
    m = CSRegularizer("ter", 1.0)
    W = torch.randn(4, 2, 3, 3, dtype=dtype, requires_grad=True)   # a conv weight
    y = m(W)
    assert y.dtype == dtype and y.dim() == 0
    y.backward()
    assert W.grad.dtype == dtype and W.grad.shape == W.shape
    v, G = csreg.Reg("ter").rows(W.detach().reshape(4, -1).numpy())
    assert y.item() == pytest.approx(v.sum(), rel=1e-6)
    np.testing.assert_array_equal(W.grad.reshape(4, -1).numpy(), G)
    # a vector is one row
    b = torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
    assert m(b).item() == 1512.0


def test_no_grad_and_refusals():
    m = CSRegularizer("bin", 1.0)
    with torch.no_grad():
        assert m(torch.tensor([[1.0, 2.0, 3.0]])).item() == 98.0
    assert m(torch.tensor([[1.0, 2.0, 3.0]]).t()).item() == 0.0   # 3 rows of one entry
    with pytest.raises(TypeError):
        m(torch.ones(2, 2, dtype=torch.float16))
    with pytest.raises(csreg.Error, match="unknown regularizer"):
        CSRegularizer("tre", 1.0)
    assert "bin" in repr(m)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_weight_moves_through_cpu():
    m = CSRegularizer("bin", 1.0)
    W = torch.tensor([[1.0, 2.0, 3.0]], device="cuda", requires_grad=True)
    y = m(W)
    assert y.device.type == "cuda" and y.item() == 98.0
    y.backward()
    assert W.grad.device.type == "cuda"
    assert W.grad.cpu().tolist() == [[-44.0, -16.0, 156.0]]


def test_mlp_trains_with_regularizer():
    torch.manual_seed(0)
    X = torch.randn(256, 20)
    y = (X[:, :5].sum(1) > 0).long()
    net = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(),
                              torch.nn.Linear(16, 16), torch.nn.ReLU(),
                              torch.nn.Linear(16, 2))
    reg = CSRegularizer("bin", 0.3)
    opt = torch.optim.Adam(net.parameters(), lr=2e-2)
    lossf = torch.nn.CrossEntropyLoss()
    losses, fits, regs = [], [], []
    for _ in range(20):
        opt.zero_grad()
        r = sum(reg(m.weight) for m in net if isinstance(m, torch.nn.Linear))
        fit = lossf(net(X), y)
        loss = fit + r
        loss.backward()
        opt.step()
        losses.append(loss.item())
        fits.append(fit.item())
        regs.append(r.item())
    # both terms go down: the weights head for {-a,+a} rows while fitting
    assert losses[-1] < 0.6 * losses[0], losses
    assert fits[-1] < fits[0], fits
    assert regs[-1] < 0.1 * regs[0], regs
