"""csreg.Reg, solve, Session and errors against the C engine."""
import os
import subprocess
import sys

import math

import numpy as np
import pytest

import csreg


def test_version():
    assert csreg.__version__.count(".") == 2
    assert all(p.isdigit() for p in csreg.__version__.split("."))


def test_bin_exact():
    v, g = csreg.Reg("bin").value_grad([1, 2, 3])
    # N Σx⁴ − (Σx²)² = 3·98 − 14²
    assert v == 98.0
    assert g.dtype == np.float64
    assert g.tolist() == [-44.0, -16.0, 156.0]
    assert csreg.Reg("bin")([1, 2, 3]) == 98.0


@pytest.mark.parametrize("spec,x", [
    ("ter", [1, 2, 3]),
    ("bin", [0.3, -1.25, 0.7, 2.0]),
    ("bbin", [0.3, -1.1, 0.7, 2.0]),
    ("holder p=3 q=1.5", [0.5, -1.2, 2.0]),
    ("holder p=3 q=1.5 base=ter", [0.5, -1.2, 2.0, 0.1]),
    ("osb", [0.1, 0.9, 1.3, -0.2]),
])
def test_same_digits_as_cli(cli_eval, spec, x):
    name, *params = spec.split()
    r = csreg.Reg(name, **dict(p.split("=") for p in params))
    assert r.text.startswith(name)
    v, g = r.value_grad(np.array(x))
    cv, cg = cli_eval(spec, x)
    assert v == cv
    assert g.tolist() == cg


def test_spec_from_kwargs():
    assert csreg.Reg("holder", p=3, q=1.5).text == csreg.Reg("holder p=3 q=1.5").text
    assert "p=3 q=1.5" in str(csreg.Reg("holder", p=3, q=1.5, base="ter"))
    assert "base=ter" in repr(csreg.Reg("holder", p=3, q=1.5, base="ter"))


def test_defined_equals_ter():
    # ter is ‖x‖²‖x³‖² − ⟨x, x³⟩²: g = x, h = x³ defines it again
    d, t = csreg.Reg(g="x", h="x^3"), csreg.Reg("ter")
    v, g = d.value_grad([1, 2, 3])
    assert v == 1512.0 and g.tolist() == [888.0, -408.0, 4008.0]
    x = np.random.default_rng(3).normal(size=9)
    (dv, dg), (tv, tg) = d.value_grad(x), t.value_grad(x)
    assert dv == pytest.approx(tv, rel=1e-12)
    np.testing.assert_allclose(dg, tg, rtol=1e-11, atol=1e-13)
    assert "x^3" in repr(d)
    assert csreg.Reg(g="x", h="x^3", form="holder").value_grad([1, 2, 3])[0] >= 0


def test_rows_match_value_grad():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(7, 11))
    for spec in ("bin", "ter", "bbin", "holder p=3 q=1.5"):
        r = csreg.Reg(spec)
        v, G = r.rows(W)
        assert v.dtype == np.float64 and G.dtype == np.float64 and G.shape == W.shape
        for i in range(W.shape[0]):
            vi, gi = r.value_grad(W[i])
            assert v[i] == vi
            assert G[i].tolist() == gi.tolist()
        v2, none = r.rows(W, grad=False)
        assert none is None and v2.tolist() == v.tolist()


def test_rows_f32_near_f64():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(64, 50)).astype(np.float32)
    for spec in ("bin", "ter", "bbin"):
        r = csreg.Reg(spec)
        v32, G32 = r.rows(W)
        v64, G64 = r.rows(W.astype(np.float64))
        assert v32.dtype == np.float64 and G32.dtype == np.float32
        np.testing.assert_allclose(v32, v64, rtol=1e-5)
        np.testing.assert_allclose(G32, G64, rtol=1e-5, atol=1e-5 * np.abs(G64).max())


def test_rows_dtypes_and_layout():
    r = csreg.Reg("bin")
    Wi = np.array([[1, 2, 3], [0, 1, -1]])
    v, G = r.rows(Wi)                                   # ints become float64
    assert G.dtype == np.float64 and v.tolist() == [98.0, 2 * 3 - 4]
    Wt = np.asfortranarray(np.array([[1.0, 2, 3], [3, 2, 1]]))
    assert r.rows(Wt)[0].tolist() == [98.0, 98.0]       # non-contiguous: copied
    assert r.rows([[1.0, 2.0, 3.0]])[0].tolist() == [98.0]
    with pytest.raises(ValueError):
        r.rows(np.ones(3))
    with pytest.raises(ValueError):
        r.value_grad(np.ones((2, 2)))


def test_rows_no_copy(monkeypatch):
    r = csreg.Reg("bin")
    seen = []
    orig = csreg.Reg.rows_into

    def spy(self, W_addr, *a):
        seen.append(W_addr)
        return orig(self, W_addr, *a)
    monkeypatch.setattr(csreg.Reg, "rows_into", spy)
    for dt in (np.float32, np.float64):
        W = np.ones((4, 6), dtype=dt)
        r.rows(W)
        assert seen[-1] == W.ctypes.data


def test_threads_do_not_change_results():
    W = np.random.default_rng(4).normal(size=(33, 17))
    r = csreg.Reg("ter")
    csreg.set_threads(1)
    a = r.rows(W)
    a32 = r.rows(W.astype(np.float32))
    csreg.set_threads(2)
    b = r.rows(W)
    b32 = r.rows(W.astype(np.float32))
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
    assert a32[0].tolist() == b32[0].tolist() and a32[1].tolist() == b32[1].tolist()


def test_analyze_ter():
    a = csreg.Reg("ter").analyze()
    assert a["found"] and a["scale_free"]
    assert a["levels"] == [-1.0, 0.0, 1.0]
    assert a["power"] == pytest.approx(8.0)
    assert a["stationary"] == []
    assert "{-a,0,+a}" in a["target"]


def test_analyze_stationary_points():
    a = csreg.Reg(g="sin(pi*x)", h="x").analyze(res=41)
    assert a["power"] is None and not a["scale_free"]
    assert a["stationary"], a
    for s in a["stationary"]:
        assert s["kind"] in ("minimum", "maximum", "saddle", "flat")
        assert -2 <= s["x"] <= 2 and -2 <= s["y"] <= 2
        assert s["value"] == pytest.approx(csreg.Reg(g="sin(pi*x)", h="x")([s["x"], s["y"]]))


def test_errors_carry_engine_message():
    with pytest.raises(csreg.Error, match="unknown regularizer 'tre'"):
        csreg.Reg("tre")
    with pytest.raises(csreg.Error) as e:
        csreg.Reg(g="x", h="x^")
    assert str(e.value)
    with pytest.raises(csreg.Error, match="form must be"):
        csreg.Reg(g="x", h="x^3", form="nope")
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(TypeError):
        csreg.Reg("bin", g="x", h="x")
    r = csreg.Reg("bin")
    r.close()
    with pytest.raises(csreg.Error, match="closed"):
        r.value_grad([1.0])


def test_solve():
    x, res = csreg.solve(kind="bin", N=20, M=12, reg="bin", seed=1)
    assert set(res) >= {"success", "iterations", "starts", "rel_err", "objective"}
    assert x.shape == (20,) and x.dtype == np.float64
    assert res["success"] and res["rel_err"] < 0.05 and res["iterations"] > 0
    p = csreg.Problem("bin", N=20, M=12, seed=1)
    assert p.A.shape == (12, 20) and p.b.shape == (12,)
    assert np.linalg.norm(x - p.x_star) / np.linalg.norm(p.x_star) == pytest.approx(res["rel_err"])
    with pytest.raises(csreg.Error):
        csreg.solve(kind="nope", N=10)


def test_solve_own_arrays():
    # the drawn problem's arrays, given back as the user's own: the same run
    p = csreg.Problem("bin", N=30, M=20, seed=3)
    x0, r0 = p.solve("bin", seed=1)
    x1, r1 = csreg.solve(p.A, p.b, reg="bin", seed=1, x_star=p.x_star)
    assert np.array_equal(x0, x1) and r0["iterations"] == r1["iterations"]
    # without x*: success from the residual and the target set
    x2, r2 = csreg.solve(p.A, p.b, reg="bin", seed=1)
    assert r2["success"] and math.isnan(r2["rel_err"])
    assert np.linalg.norm(p.A @ x2 - p.b) <= 1e-8 * np.linalg.norm(p.b)
    assert np.allclose(np.abs(x2), np.abs(x2).mean(), rtol=1e-6)
    # b outside the range of a rank-deficient A is refused with the rank
    A = np.vstack([p.A[:19], p.A[18]])
    with pytest.raises(csreg.Error, match="rank 19 < M = 20"):
        csreg.solve(A, p.b)
    with pytest.raises(csreg.Error, match="b has 3 entries"):
        csreg.solve(p.A, p.b[:3])


def test_session():
    with csreg.Session(seed=1) as s:
        o = s.run("sweep kind=bin methods=bin N=20 M=10 trials=2")
        assert o["cmd"] == "sweep" and o["rows"][0]["method"] == "bin"
        assert s.run("reg ter")["target"] == "{-a,0,+a}^N for any a"
        with pytest.raises(csreg.Error, match="unknown regularizer 'tre'"):
            s.run("reg tre")


def test_bad_csreg_lib():
    env = dict(os.environ, CSREG_LIB="/nonexistent/libcsreg.so.0")
    p = subprocess.run([sys.executable, "-c", "import csreg"], env=env,
                       capture_output=True, text=True)
    assert p.returncode != 0 and "CSREG_LIB" in p.stderr
