"""csreg.torch — a Cauchy–Schwarz regularizer as a PyTorch module.

    reg = csreg.torch.CSRegularizer("bin", lam=1e-4)
    loss = criterion(model(x), y) + reg(model.fc1.weight)

The value and the gradient are the engine's (cs_reg_rows_f32/f64: one pass
computes both, spread over csreg.set_threads()'s workers); the backward
multiplies the saved gradient by grad_output·λ.
"""
import torch as _torch

from . import Reg

__all__ = ["CSRegularizer", "cs_rows_sum"]


def _as_rows(weight):
    # rows = output units: a conv weight (out, in, kh, kw) is (out, in·kh·kw)
    if weight.dim() == 0:
        raise ValueError("CSRegularizer: the weight needs at least one dimension")
    if weight.dim() == 1:
        return weight.reshape(1, -1)
    return weight.reshape(weight.shape[0], -1)


class _RowsSum(_torch.autograd.Function):
    """Σ_rows ℓ(row) of a 2-D CPU tensor, the gradient from the engine."""

    @staticmethod
    def forward(ctx, W, reg, lam):
        rows, cols = W.shape
        f32 = W.dtype == _torch.float32
        values = _torch.empty(rows, dtype=_torch.float64)
        need = ctx.needs_input_grad[0]
        G = _torch.empty_like(W, memory_format=_torch.contiguous_format) if need else None
        reg.rows_into(W.data_ptr(), rows, cols, f32, values.data_ptr(),
                      G.data_ptr() if need else None)
        ctx.lam = lam
        if need:
            ctx.save_for_backward(G)
        # the sum in double (as the engine's values), returned in W's dtype
        return (values.sum() * lam).to(W.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (G,) = ctx.saved_tensors
        return G * (grad_out * ctx.lam), None, None


def _reg_of(name_or_reg):
    return name_or_reg if isinstance(name_or_reg, Reg) else Reg(str(name_or_reg))


def cs_rows_sum(weight, reg, lam=1.0):
    """λ·Σ over rows of ℓ(row) as a 0-dim tensor of weight's dtype (autograd-aware);
    reg a csreg.Reg or a spec string. See CSRegularizer for devices and dtypes."""
    reg = _reg_of(reg)
    if weight.dtype not in (_torch.float32, _torch.float64):
        raise TypeError("CSRegularizer: float32 or float64 weights only, not %s" % weight.dtype)
    device = weight.device
    W = _as_rows(weight)
    if device.type != "cpu":
        W = W.cpu()   # autograd moves the gradient back to the device
    W = W.contiguous()
    out = _RowsSum.apply(W, reg, float(lam))
    return out.to(device) if device.type != "cpu" else out


class CSRegularizer(_torch.nn.Module):
    """λ·Σ over rows of ℓ(row) of a weight tensor (a 0-dim tensor of its dtype).

    name_or_reg: a regularizer's spec ("bin", "ter", "holder p=3 q=1.5") or a
    csreg.Reg (e.g. one defined from g and h). Rows are the output units: a
    weight of more than two dimensions is viewed as (shape[0], -1), a vector as
    one row. float32 and float64 are supported and kept.

    The engine runs on the CPU: a CUDA weight is copied to the CPU for the
    forward, and its gradient is copied back to the weight's device by autograd
    (correct, but it costs a device-host round trip per call)."""

    def __init__(self, name_or_reg, lam=1.0):
        super().__init__()
        self.reg = _reg_of(name_or_reg)
        self.lam = float(lam)

    def forward(self, weight):
        return cs_rows_sum(weight, self.reg, self.lam)

    def extra_repr(self):
        return "reg=%r, lam=%g" % (self.reg.text, self.lam)
