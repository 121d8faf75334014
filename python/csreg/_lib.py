"""_lib.py — finds libcsreg.so.0 and declares the C API of include/csreg.h.

Search order: $CSREG_LIB (a path); a copy beside the package; the installed
tree (the package in PREFIX/lib/python3/dist-packages, the library in
PREFIX/lib); the source tree after `make` (build/rel); the loader's own
search (ldconfig, LD_LIBRARY_PATH)."""
import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libcsreg.so.0"


def _candidates():
    env = os.environ.get("CSREG_LIB")
    if env:
        yield env
        return  # an explicit choice: no fallback that would hide a typo
    yield os.path.join(_HERE, _SONAME)
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "..", _SONAME))
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "build", "rel", _SONAME))
    yield _SONAME
    found = ctypes.util.find_library("csreg")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("csreg: libcsreg.so.0 not found; set CSREG_LIB to its path "
                      "or build it with `make`. Tried: " + "; ".join(tried))


lib = _load()

_c = ctypes
P = _c.c_void_p
SZ = _c.c_size_t
_PP = _c.POINTER(_c.c_void_p)


class Report(_c.Structure):
    _fields_ = [("found", _c.c_int), ("scale_free", _c.c_int), ("nlevels", SZ),
                ("levels", _c.c_double * 16), ("target", _c.c_char * 160),
                ("power", _c.c_double), ("nstationary", SZ),
                ("stationary", (_c.c_double * 2) * 64),
                ("stationary_value", _c.c_double * 64),
                ("stationary_kind", _c.c_int * 64)]


class Result(_c.Structure):
    _fields_ = [("success", _c.c_int), ("done", _c.c_int), ("iterations", _c.c_long),
                ("starts", _c.c_int), ("rel_err", _c.c_double), ("objective", _c.c_double)]


def _decl(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)


_i, _u64, _cp = _c.c_int, _c.c_uint64, _c.c_char_p
_decl("cs_version", _cp)
_decl("cs_version_commit", _cp)
_decl("cs_last_error", _cp)
_decl("cs_set_threads", None, _i)
_decl("cs_free", None, P)
_decl("cs_reg_open", _i, _PP, _cp, _u64)
_decl("cs_reg_open_gh", _i, _PP, _cp, _cp, _cp)
_decl("cs_reg_close", None, P)
_decl("cs_reg_text", _cp, P)
# arrays go as plain addresses (ndarray.ctypes.data, tensor.data_ptr()):
# the cheapest way through ctypes, and no copy
_decl("cs_reg_value_grad", _i, P, P, SZ, P, P)
_decl("cs_reg_rows_f32", _i, P, P, SZ, SZ, P, P)
_decl("cs_reg_rows_f64", _i, P, P, SZ, SZ, P, P)
_decl("cs_reg_analyze_report", _i, P, SZ, _c.POINTER(Report))
_decl("cs_problem_draw", _i, _PP, _cp, SZ, SZ, _u64)
_decl("cs_problem_from_arrays", _i, _PP, _cp, P, SZ, SZ, P, P, P)
_decl("cs_problem_load", _i, _PP, _cp, _cp, _cp, _cp, _cp)
_decl("cs_problem_close", None, P)
_decl("cs_problem_shape", None, P, _c.POINTER(SZ), _c.POINTER(SZ))
_decl("cs_problem_matrix", _c.POINTER(_c.c_double), P)
_decl("cs_problem_rhs", _c.POINTER(_c.c_double), P)
_decl("cs_problem_solution", _c.POINTER(_c.c_double), P)
_decl("cs_solver_open", _i, _PP, P, _cp, _u64)
_decl("cs_solver_close", None, P)
_decl("cs_solver_advance", _i, P, _c.c_long, _c.POINTER(Result))
_decl("cs_solver_finish", _i, P, _c.POINTER(Result))
_decl("cs_solver_point", _c.POINTER(_c.c_double), P, _c.POINTER(SZ))
_decl("cs_session_open", _i, _PP, _u64)
_decl("cs_session_close", None, P)
_decl("cs_session_run", _i, P, _cp, _c.POINTER(_c.c_void_p))
