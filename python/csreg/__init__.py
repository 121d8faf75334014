"""csreg — the Cauchy–Schwarz regularizers of the csreg engine from Python.

    import csreg
    r = csreg.Reg("bin")                 # or Reg("holder", p=3, q=1.5), Reg(g="x", h="x^3")
    v, g = r.value_grad([1, 2, 3])       # 98.0, [-44, -16, 156]
    v, G = r.rows(W)                     # one value per row of W, gradient in W's dtype

A thin ctypes layer over libcsreg.so.0 (include/csreg.h): arrays pass by
address, without copies when they are C-contiguous in the right dtype, and the
C calls release the GIL. Errors raise csreg.Error with the engine's message.
csreg.torch holds the PyTorch module (imported on demand: torch is optional).
"""
import ctypes as _c
import json as _json
import math as _math

import numpy as _np

from . import _lib
from ._lib import lib as _L

__all__ = ["Error", "Reg", "Problem", "Session", "solve", "set_threads", "__version__"]

__version__ = _L.cs_version().decode()
version_commit = _L.cs_version_commit().decode()


class Error(RuntimeError):
    """A failed call of the engine; the message is the engine's (cs_last_error)."""


def _check(rc):
    if rc < 0:
        raise Error(_L.cs_last_error().decode("utf-8", "replace") or "csreg error %d" % rc)


def set_threads(n):
    """Worker threads of Reg.rows and sessions (n <= 0: every core). Results do not depend on it."""
    _L.cs_set_threads(int(n))


def _param(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return ",".join(_param(e) for e in v)
    return str(v)


def _ptr(a):
    return a.ctypes.data


_KINDS = ("minimum", "maximum", "saddle", "flat")


class Reg:
    """A regularizer ℓ: a built-in by name (Reg("bin"), Reg("holder", p=3, q=1.5),
    Reg("holder p=3 q=1.5")) or defined from elementwise g and h (Reg(g="x", h="x^3"),
    form="cs" (default), "holder" or "si"). seed draws C=random (eig, ns, mu).

    One Reg is not for two threads at once (open one per thread)."""

    def __init__(self, name=None, *, g=None, h=None, form=None, seed=0, **params):
        self._h = None
        self._gh = None
        handle = _c.c_void_p()
        if g is not None or h is not None:
            if name is not None or params:
                raise TypeError("Reg: give a name (and parameters) or g and h, not both")
            if g is None or h is None:
                raise TypeError("Reg: a defined regularizer needs both g and h")
            _check(_L.cs_reg_open_gh(_c.byref(handle), str(g).encode(), str(h).encode(),
                                     None if form is None else str(form).encode()))
            self._gh = (str(g), str(h), "cs" if form is None else str(form))
        else:
            if name is None:
                raise TypeError("Reg: give a regularizer's name, or g and h")
            if form is not None:
                raise TypeError("Reg: form= goes with g and h")
            spec = " ".join([str(name)] + ["%s=%s" % (k, _param(v)) for k, v in params.items()])
            _check(_L.cs_reg_open(_c.byref(handle), spec.encode(), int(seed) & (2**64 - 1)))
        self._h = handle.value

    def _handle(self):
        if not self._h:
            raise Error("the regularizer is closed")
        return self._h

    def close(self):
        """Release the engine's regularizer (also done when the object goes)."""
        h, self._h = self._h, None
        if h and _L is not None:
            _L.cs_reg_close(h)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def text(self):
        """The canonical spec: "holder p=3 q=1.5 r=1 base=ter"."""
        return _L.cs_reg_text(self._handle()).decode()

    def __str__(self):
        return self.text

    def __repr__(self):
        if not self._h:
            return "csreg.Reg(<closed>)"
        if self._gh:
            return "csreg.Reg(g=%r, h=%r, form=%r) [%s]" % (self._gh + (self.text,))
        return "csreg.Reg(%r)" % self.text

    def value_grad(self, x, grad=True):
        """ℓ(x) and ∇ℓ(x) of a 1-D array (float64; the engine's exact digits).
        grad=False: the value only (and None)."""
        x = _np.ascontiguousarray(x, dtype=_np.float64)
        if x.ndim != 1:
            raise ValueError("value_grad takes a 1-D array (rows() takes a matrix)")
        v = _c.c_double()
        g = _np.empty_like(x) if grad else None
        _check(_L.cs_reg_value_grad(self._handle(), _ptr(x), x.size, _c.byref(v),
                                    _ptr(g) if grad else None))
        return v.value, g

    def __call__(self, x):
        """ℓ(x) of a 1-D array."""
        return self.value_grad(x, grad=False)[0]

    def rows(self, W, grad=True, threads=None):
        """ℓ of each row of a 2-D array: (values (float64, one per row), gradient
        (W's shape and dtype: float32 or float64; other dtypes become float64),
        or None with grad=False). Rows spread over set_threads()'s workers."""
        W = _np.asarray(W)
        dt = _np.float32 if W.dtype == _np.float32 else _np.float64
        W = _np.ascontiguousarray(W, dtype=dt)
        if W.ndim != 2:
            raise ValueError("rows takes a 2-D array (value_grad takes a vector)")
        rows, cols = W.shape
        values = _np.empty(rows, dtype=_np.float64)
        G = _np.empty_like(W) if grad else None
        self.rows_into(_ptr(W), rows, cols, dt == _np.float32, _ptr(values),
                       _ptr(G) if grad else None)
        return values, G

    def rows_into(self, W_addr, rows, cols, f32, values_addr, grad_addr=None):
        """rows() on raw addresses (C-contiguous rows×cols float32 or float64 at
        W_addr, rows doubles at values_addr, the gradient at grad_addr or None):
        for callers with their own buffers (the torch module)."""
        if rows == 0:
            return
        fn = _L.cs_reg_rows_f32 if f32 else _L.cs_reg_rows_f64
        _check(fn(self._handle(), W_addr, rows, cols, values_addr, grad_addr))

    def analyze(self, res=101):
        """What g and h make of ℓ (`reg analyze`): a dict with found, levels,
        scale_free, target, power (ℓ(αx) = α^power ℓ(x); None when not
        homogeneous) and stationary: the spurious stationary points on the
        plane x1, x2 in [-2, 2]² (res × res grid), each {x, y, value, kind}."""
        rep = _lib.Report()
        _check(_L.cs_reg_analyze_report(self._handle(), int(res), _c.byref(rep)))
        n = rep.nstationary
        return {
            "found": bool(rep.found),
            "scale_free": bool(rep.scale_free),
            "levels": [rep.levels[i] for i in range(rep.nlevels)],
            "target": rep.target.decode("utf-8", "replace"),
            "power": None if _math.isnan(rep.power) else rep.power,
            "stationary": [{"x": rep.stationary[i][0], "y": rep.stationary[i][1],
                            "value": rep.stationary_value[i],
                            "kind": _KINDS[rep.stationary_kind[i]]
                            if 0 <= rep.stationary_kind[i] < 4 else str(rep.stationary_kind[i])}
                           for i in range(n)],
        }


def _copy(ptr, n):
    if not ptr:
        return None
    if n == 0:
        return _np.empty(0)
    return _np.ctypeslib.as_array(ptr, shape=(n,)).copy()


class Problem:
    """A problem of the paper drawn by the engine (`problem KIND N= M=`):
    kind bin, osb, ter, 2bit, eig, orth; M=0: the kind's default. A (M×N), b and
    x_star are copies (x_star None when unknown)."""

    def __init__(self, kind="bin", N=100, M=0, seed=1, _handle=None):
        h = _c.c_void_p(_handle)
        if _handle is None:
            _check(_L.cs_problem_draw(_c.byref(h), str(kind).encode(), int(N), int(M),
                                      int(seed) & (2**64 - 1)))
        self._h = h.value
        m, n = _c.c_size_t(), _c.c_size_t()
        _L.cs_problem_shape(self._h, _c.byref(m), _c.byref(n))
        self.kind, self.M, self.N = str(kind), m.value, n.value
        self.A = _copy(_L.cs_problem_matrix(self._h), self.M * self.N).reshape(self.M, self.N)
        self.b = _copy(_L.cs_problem_rhs(self._h), self.M)
        self.x_star = _copy(_L.cs_problem_solution(self._h), self.N)

    @classmethod
    def from_arrays(cls, A, b, x_star=None, C=None, kind="bin"):
        """Your own problem: A (M×N), b (M), x_star (N, or None: success is then
        judged by the residual and the distance to the target set), C (eig).
        The arrays are copied by the engine; a b outside A's range is refused."""
        A = _np.ascontiguousarray(A, dtype=_np.float64)
        if A.ndim != 2:
            raise Error("A must be a 2-D array (M×N)")
        b = _np.ascontiguousarray(b, dtype=_np.float64).ravel()
        xs = None if x_star is None else _np.ascontiguousarray(x_star, dtype=_np.float64).ravel()
        Cm = None if C is None else _np.ascontiguousarray(C, dtype=_np.float64)
        M, N = A.shape
        if b.size != M:
            raise Error("A is %dx%d, b has %d entries" % (M, N, b.size))
        if xs is not None and xs.size != N:
            raise Error("x* has %d entries, A has N = %d columns" % (xs.size, N))
        if Cm is not None and Cm.shape != (N, N):
            raise Error("C must be N×N = %dx%d" % (N, N))
        h = _c.c_void_p()
        _check(_L.cs_problem_from_arrays(_c.byref(h), str(kind).encode(), A.ctypes.data, M, N,
                                         b.ctypes.data, None if xs is None else xs.ctypes.data,
                                         None if Cm is None else Cm.ctypes.data))
        return cls(kind, _handle=h.value)

    def close(self):
        h, self._h = self._h, None
        if h and _L is not None:
            _L.cs_problem_close(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def solve(self, reg=None, seed=1, iterations=None):
        """Recover x with a method (a regularizer's spec, "linf" or "l1"; None:
        the kind's default): (x, result dict). iterations=None runs to the end,
        otherwise at most that many iterations."""
        if not self._h:
            raise Error("the problem is closed")
        s = _c.c_void_p()
        _check(_L.cs_solver_open(_c.byref(s), self._h,
                                 None if reg is None else str(reg).encode(),
                                 int(seed) & (2**64 - 1)))
        try:
            res = _lib.Result()
            if iterations is None:
                _check(_L.cs_solver_finish(s, _c.byref(res)))
            else:
                _check(_L.cs_solver_advance(s, int(iterations), _c.byref(res)))
            n = _c.c_size_t()
            x = _copy(_L.cs_solver_point(s, _c.byref(n)), n.value)
        finally:
            _L.cs_solver_close(s)
        return x, {"success": bool(res.success), "done": bool(res.done),
                   "iterations": res.iterations, "starts": res.starts,
                   "rel_err": res.rel_err, "objective": res.objective}


def solve(A=None, b=None, reg="bin", N=100, M=0, seed=1, kind="bin", iterations=None,
          x_star=None):
    """Draw a problem of the paper (kind, N, M; M=0: the kind's default) and
    recover it with reg: (x, result) where result has success, done,
    iterations, starts, rel_err (‖x − x*‖/‖x*‖) and objective.
    With A and b (and optionally x_star): your own problem instead
    (Problem.from_arrays)."""
    if (A is None) != (b is None):
        raise Error("csreg.solve: give both A and b, or neither (a drawn problem)")
    p = Problem(kind, N, M, seed) if A is None else Problem.from_arrays(A, b, x_star, kind=kind)
    try:
        return p.solve(reg, seed, iterations)
    finally:
        p.close()


def __getattr__(name):
    # csreg.torch on first use: torch stays optional for the rest
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError("module 'csreg' has no attribute %r" % name)


class Session:
    """An interpreter (as `csreg --json --seed SEED`): run("sweep kind=bin ...")
    returns the command's JSON result parsed (a dict; a list when a command
    prints several objects; None when it prints none)."""

    def __init__(self, seed=1):
        h = _c.c_void_p()
        _check(_L.cs_session_open(_c.byref(h), int(seed) & (2**64 - 1)))
        self._h = h.value

    def close(self):
        h, self._h = self._h, None
        if h and _L is not None:
            _L.cs_session_close(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, command):
        if not self._h:
            raise Error("the session is closed")
        out = _c.c_void_p()
        _check(_L.cs_session_run(self._h, str(command).encode(), _c.byref(out)))
        try:
            text = _c.string_at(out.value).decode("utf-8", "replace") if out.value else ""
        finally:
            _L.cs_free(out)
        objs = [_json.loads(line) for line in text.splitlines() if line.strip()]
        for o in objs:
            if isinstance(o, dict) and "error" in o:
                raise Error(o["error"])
        if not objs:
            return None
        return objs[0] if len(objs) == 1 else objs
