"""The code passes the project's own lint: ruff with the rules of ``pyproject.toml``
(pycodestyle, pyflakes, bugbear, isort, pyupgrade, NumPy and ruff's own), over the
packages, the tests, the benchmarks and the documentation's extension."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("ruff", reason="the test extra is not installed (pip install -e '.[test]')")


def test_ruff_finds_nothing():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                          "--output-format", "concise", str(ROOT)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]


def test_files_run_whole_in_one_worker_and_no_test_relies_on_xdist_groups():
    # The suite's module fixtures (the docs build, fits of the crowd sets) are made once per
    # worker that runs the file: `--dist loadfile` keeps a file in one worker. `xdist_group`
    # marks group nothing on pytest >= 9.2 (pytest-xdist issue #1386: the group is written
    # into the node id, which pytest no longer reads), so a test must not rely on one.
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"]
    assert "--dist loadfile" in addopts
    marked = [p.name for p in (ROOT / "tests").glob("*.py")
              if "xdist_group" in p.read_text(encoding="utf-8") and p.name != "test_lint.py"]
    assert marked == []
