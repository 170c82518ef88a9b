"""Shared fixtures: the published data in ../shared/data, hypothesis settings."""

from __future__ import annotations

import os
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
