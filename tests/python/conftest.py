"""Shared fixtures: the csreg program beside the library under test (for the
values of `csreg --json ... eval`), CSREG_BIN overriding."""
import json
import os
import subprocess

import pytest

import csreg
from csreg import _lib


@pytest.fixture(scope="session")
def csreg_bin():
    path = os.environ.get("CSREG_BIN") or os.path.join(
        os.path.dirname(os.path.abspath(_lib.lib._name)), "csreg")
    if not os.access(path, os.X_OK):
        pytest.skip("no csreg program beside %s (set CSREG_BIN)" % _lib.lib._name)
    return path


@pytest.fixture(scope="session")
def cli_eval(csreg_bin):
    """cli_eval(reg, x) -> (value, grad) as `csreg --json -e 'reg R' -e 'eval x'` prints them."""
    def run(reg, x):
        out = subprocess.run([csreg_bin, "--json", "-e", "reg " + reg,
                              "-e", "eval " + ",".join(repr(float(v)) for v in x)],
                             check=True, capture_output=True, text=True).stdout
        objs = [json.loads(line) for line in out.splitlines() if line.strip()]
        ev = [o for o in objs if o.get("cmd") == "eval"]
        assert ev and "error" not in ev[0], out
        return ev[0]["value"], ev[0]["grad"]
    return run


@pytest.fixture(autouse=True)
def _threads():
    csreg.set_threads(2)
    yield
