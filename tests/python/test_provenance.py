"""Every table csreg writes says how it was made (cs_provenance.h): '#' lines
after the header, which numpy and pandas read past with one option each;
every JSON result carries the seed."""
import numpy as np
import pytest

import csreg


def comment_lines(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.startswith("#")]


def test_landscape_csv_with_numpy(tmp_path):
    out = tmp_path / "l.csv"
    with csreg.Session(seed=5) as s:
        r = s.run("landscape res=3 out=%s" % out)
    assert r["seed"] == 5
    with open(out) as f:
        assert f.readline() == "x,y,value\n"
    notes = comment_lines(out)
    assert notes[0].startswith("# csreg: %s (commit " % csreg.__version__)
    assert notes[1:] == ["# seed: 5", "# command: landscape res=3 out=%s" % out, "# reg: bin"]
    # the documented reading: genfromtxt's defaults skip the '#' lines
    a = np.genfromtxt(out, delimiter=",", names=True)
    assert a.dtype.names == ("x", "y", "value")
    assert len(a) == 9
    # bin on the plane: (x^2 - y^2)^2 over {-2, 0, 2}^2
    assert a["x"].tolist() == [-2, 0, 2] * 3
    assert a["y"].tolist() == [-2] * 3 + [0] * 3 + [2] * 3
    assert a["value"].tolist() == [(x * x - y * y) ** 2 for x, y in zip(a["x"], a["y"])]


def test_sweep_csv_text_columns(tmp_path):
    out = tmp_path / "s.csv"
    with csreg.Session(seed=3) as s:
        r = s.run("sweep kind=bin methods=bin,linf N=20 gamma=0.5,0.7 trials=4 maxit=200 "
                  "out=%s" % out)
    assert r["seed"] == 3
    a = np.genfromtxt(out, delimiter=",", names=True, dtype=None, encoding="utf-8")
    assert a.dtype.names[:3] == ("method", "kind", "N")
    assert a["method"].tolist() == ["bin", "bin", "linf", "linf"]
    assert a["gamma"].tolist() == [0.5, 0.7, 0.5, 0.7]
    assert a["trials"].tolist() == [4] * 4
    assert all(0 <= v <= 1 for v in a["success"])
    assert "# seed: 3" in comment_lines(out)


def test_pandas_reads_past_the_lines(tmp_path):
    pd = pytest.importorskip("pandas")
    out = tmp_path / "l.csv"
    with csreg.Session(seed=5) as s:
        s.run("landscape res=3 out=%s" % out)
    df = pd.read_csv(out, comment="#")
    assert list(df.columns) == ["x", "y", "value"]
    assert len(df) == 9
    assert df["value"].tolist() == np.genfromtxt(out, delimiter=",", names=True)["value"].tolist()


def test_every_json_result_has_the_seed_once():
    with csreg.Session(seed=9) as s:
        assert s.run("eval 1,2,3")["seed"] == 9
        assert s.run("seed 4") == {"cmd": "seed", "seed": 4}
        assert s.run("reg ter")["seed"] == 4
