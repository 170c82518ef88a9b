"""Shared fixtures: the published data in ../shared/data, hypothesis settings."""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

HERE = Path(__file__).parent
TEST_DATA = HERE / "data"
SHARED_DATA = Path(os.environ.get("GOLDNOISE_SHARED_DATA", HERE.parent.parent / "shared" / "data"))

# Kernels compile on first use, so no per-example deadline. The default run tries 20
# examples a property; `pytest --slow` 60, and a test that names its own number
# (`budget.examples(n)`) n.
for _name, _examples in (("goldnoise", 20), ("goldnoise-slow", 60)):
    settings.register_profile(
        _name, deadline=None, max_examples=_examples,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
settings.load_profile("goldnoise")


def pytest_configure(config):
    if config.getoption("--slow", default=False):
        settings.load_profile("goldnoise-slow")


@pytest.fixture(scope="session", autouse=True)
def _shared_kernels_compiled_by_one_worker(request, tmp_path_factory):
    """In a whole-suite run on several pytest-xdist workers, one worker compiles the kernels
    that every worker needs first while the others wait, then they load them from the cache.

    The workers share the on-disk kernel cache, but on an empty one (a fresh clone, as in
    CI) each compiles what the cache does not hold yet: both began with files that fit
    latent-class models and compiled the EM kernels at the same time, 8-21 s of CPU twice.
    Here each worker audits a bundled example (the coefficients, the bound and the default
    latent-class fit: about 17 s of CPU on an empty cache, 0.4 s from a full one) holding a
    lock that the run's workers share. Waiting costs no CPU. Runs of a few files, or in one
    process, skip it.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2 or len(request.session.items) < 2000 or \
            os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    try:
        import fcntl
    except ImportError:  # no POSIX file locks: each worker compiles what it needs
        return
    from goldnoise._cli import main

    lock = tmp_path_factory.getbasetemp().parent / "kernels.lock"  # one folder per run
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                main(["audit", "--example", "dawid_skene1979", "-q"])
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def kernel_builds(request) -> tuple[bool, ...]:
    """The builds of a Numba kernel a test checks, as values of its ``parallel`` option.

    The serial build always; with ``pytest --slow`` the parallel build too. A parallel
    build costs 1–6 s of CPU to compile on an empty kernel cache (as in CI): checked in
    every run, the parallel builds were half of the default run's compile time. The
    default run still checks that a parallel build draws and sums the same bits as the
    serial one for whatever thread count on the resampling and the per-item row kernels
    (``test_bootstrap.py``, ``test_instance_dependence.py``).
    """
    return (False, True) if request.config.getoption("--slow", default=False) else (False,)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The crowd data folder ``../shared/data``; tests using it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the shared crowd data folder {SHARED_DATA} is absent (fresh clone); "
                    "set GOLDNOISE_SHARED_DATA to run these tests")
    return SHARED_DATA


@pytest.fixture(scope="session")
def test_data() -> Path:
    """Small published tables copied into tests/data (with their citations)."""
    return TEST_DATA
