"""Collection rules for the whole repository (doctests run over the packages)."""

import importlib.util

# goldnoise.dask needs the `dask` extra; without it its doctests cannot be collected
# (tests/test_dask.py skips itself with the reason).
collect_ignore_glob = []
if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
    collect_ignore_glob.append("goldnoise/dask/*")
