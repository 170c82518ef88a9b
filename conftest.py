"""Collection rules for the whole repository (doctests run over the packages)."""

import importlib.util

# goldnoise.dask needs the `dask` extra; without it its doctests cannot be collected
# (tests/test_dask.py skips itself with the reason).
collect_ignore_glob = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore_glob.append("goldnoise/dask/*")


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (the full simulation coverage "
                          "checks; the default run has their reduced versions)")


def pytest_collection_modifyitems(config, items):
    """Without --slow the tests marked slow are deselected (each has a reduced version, or
    a smaller case, in the default run)."""
    if config.getoption("--slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
