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
# examples a property (the tests that set their own number keep it); `pytest --slow` 60.
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
