"""Numba's on-disk cache: every compiled build of a kernel has cache files of its own.

Numba names a cached kernel by its Python function (module, qualified name, first
line) and its argument types, not by its compile options. Two builds of one
function (serial and ``parallel=True``) therefore shared cache entries: a process
could load the parallel build where it asked for the serial one, or the reverse —
measured, the serial pattern histogram ran 5–10× slower after a parallel build
had been cached under its name. ``_goldnoise_lib.threads.serial_and_parallel``
compiles the parallel build from a renamed twin; these tests hold every package to it.
"""

from __future__ import annotations

import collections
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from _goldnoise_lib.threads import PARALLEL_SUFFIX, serial_and_parallel

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("_goldnoise_lib", "agreement", "noise_models", "simulation", "goldnoise")


def _modules():
    for name in PACKAGES:
        package = importlib.import_module(name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            yield importlib.import_module(info.name)


def _dispatchers(obj):
    if isinstance(obj, Dispatcher):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _dispatchers(item)


def test_no_two_cached_builds_share_a_cache_name():
    names = collections.defaultdict(set)
    for module in _modules():
        for value in vars(module).values():
            for d in _dispatchers(value):
                if type(d._cache).__name__ == "NullCache":  # not cached
                    continue
                f = d.py_func
                names[(f.__module__, f.__qualname__, f.__code__.co_firstlineno)].add(id(d))
    assert len(names) > 50  # the scan found the kernels
    shared = sorted(k for k, v in names.items() if len(v) > 1)
    assert shared == [], f"builds sharing cache files: {shared}"


def test_serial_and_parallel_builds_are_twins():
    def kernel(x, out):
        for i in range(x.shape[0]):
            out[i] = 2 * x[i]

    serial, parallel = serial_and_parallel(kernel, error_model="numpy")
    assert serial.py_func is kernel
    assert parallel.py_func is not kernel
    assert parallel.py_func.__qualname__ == kernel.__qualname__ + PARALLEL_SUFFIX
    assert parallel.py_func.__code__ is kernel.__code__
    assert parallel.targetoptions["parallel"] and "parallel" not in serial.targetoptions
    assert type(serial._cache).__name__ != "NullCache"
    assert type(parallel._cache).__name__ != "NullCache"
    x = np.arange(5.0)
    a, b = np.empty(5), np.empty(5)
    serial.py_func(x, a)
    parallel.py_func(x, b)
    np.testing.assert_array_equal(a, b)


_PROBE = """
import json, sys
import numpy as np
from _goldnoise_lib import _pattern_kernels as K
from _goldnoise_lib import patterns as P

codes = np.random.default_rng(0).integers(-1, 4, (500, 5)).astype(np.int8)
codes.flags.writeable = False
bits, table, use_rank, n_bins = P.count_plan(5, 4, None)
out = np.zeros((1, n_bins), dtype=np.int64)
build = K.count_histogram[int(sys.argv[1])]
build(codes, bits, table, use_rank, codes.shape[0], out)
print(json.dumps({"hits": sum(build.stats.cache_hits.values()),
                  "misses": sum(build.stats.cache_misses.values()),
                  "total": int(out.sum())}))
"""


def _probe(build: int, cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", _PROBE, str(build)], env=env,
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_serial_build_never_loads_the_parallel_build_from_the_cache(tmp_path):
    # A fresh cache: the parallel build compiles and caches first; the serial build
    # in a new process must compile its own code (a miss), not load the parallel one.
    first = _probe(1, tmp_path)
    assert first["hits"] == 0 and first["misses"] == 1 and first["total"] == 500
    second = _probe(0, tmp_path)
    assert second == {"hits": 0, "misses": 1, "total": 500}
    # ... and its own cached build serves the next process.
    assert _probe(0, tmp_path)["hits"] == 1


def test_the_notice_says_first_run_or_a_new_kind_of_data(tmp_path):
    # A fresh cache: "first run". The same kernel for another argument type, in a later
    # process: "for this kind of data" (it was said "first run only" before).
    from goldnoise._cli import KIND_MESSAGE, MESSAGE

    (tmp_path / "kmod.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    code = ("import sys, io; sys.path[:0] = [{root!r}, {tmp!r}]\n"
            "from goldnoise._cli import compile_notice\n"
            "import kmod\n"
            "err = io.StringIO()\n"
            "with compile_notice(err, after=0.0):\n"
            "    kmod.twice({arg})\n"
            "print(err.getvalue().strip())\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    said = []
    for arg in ("3", "3", "2.5"):
        done = subprocess.run([sys.executable, "-c", code.format(root=str(ROOT),
                                                                 tmp=str(tmp_path), arg=arg)],
                              env=env, capture_output=True, text=True, check=True)
        said.append(done.stdout.strip())
    assert said == [MESSAGE, "", KIND_MESSAGE]


def test_read_only_and_writable_inputs_share_one_specialisation():
    # A read-only array (a pandas Index's values, a Ratings' codes) is another Numba type
    # than a writable one: the α kernels compiled twice per data set (seconds each, the
    # larger part of a first audit's compiling on 4-category data). The wrappers hand
    # every input over as a read-only view.
    from agreement import _kernels_alpha as ka

    g = np.random.default_rng(0)
    codes = g.integers(-1, 4, (50, 5)).astype(np.int8)
    frozen = codes.copy()
    frozen.flags.writeable = False
    values = np.arange(4.0)
    ro_values = values.copy()
    ro_values.flags.writeable = False
    out = []
    for c, v in ((codes, values), (frozen, ro_values), (codes, ro_values), (frozen, values)):
        out.append(ka.unit_sums(c, v, ka.KIND_INTERVAL, 4, parallel=False))
        ka.gwet_se_sum(c, v, ka.KIND_INTERVAL, np.ones(4) / 4, 2.0, 0.5, 0.3, 0.2, 1.0,
                       parallel=False)
        ka.unit_terms(c, v, ka.KIND_INTERVAL, 4, parallel=False)
    assert all(o[1] == out[0][1] for o in out)
    for kernel in (ka._sums_serial, ka._gwet_se_serial, ka._unit_terms_serial):
        int8 = [s for s in kernel.signatures if str(s[0].dtype) == "int8" and s[0].ndim == 2]
        assert len(int8) == 1, (kernel, int8)


def test_the_alpha_sums_compile_no_error_formatting(tmp_path):
    # `n_c[b, :] = local` made Numba compile its shape-mismatch error path (string
    # formatting of shapes: about half of the serial build's compile, 6.0-6.6 s of CPU
    # against 3.0-3.7 s measured). Element by element, nothing of it compiles.
    code = ("import sys; sys.path.insert(0, {root!r})\n"
            "from numba.core import event\n"
            "names = []\n"
            "class L(event.Listener):\n"
            "    def on_start(self, ev): names.append(ev.data['dispatcher'].py_func.__qualname__)\n"
            "    def on_end(self, ev): pass\n"
            "event.register('numba:compile', L())\n"
            "import numpy as np\n"
            "from agreement import _kernels_alpha as ka\n"
            "codes = np.random.default_rng(0).integers(-1, 4, (100, 5)).astype(np.int8)\n"
            "ka.unit_sums(codes, np.arange(4.0), ka.KIND_INTERVAL, 4, parallel=False)\n"
            "print([n for n in names if 'raise' in n or 'str' in n])\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", code.format(root=str(ROOT))], env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
