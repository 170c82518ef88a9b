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
