"""Progress bars: tqdm on stderr, only on a terminal, never when switched off."""

from __future__ import annotations

import io
import sys

import pytest

from _goldnoise_lib.progress import progress, progress_enabled


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_off_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    steps = range(3)
    assert progress(steps, desc="x") is steps
    assert not progress_enabled()


def test_bar_on_a_terminal_and_switch(monkeypatch):
    pytest.importorskip("tqdm")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("GOLDNOISE_PROGRESS", raising=False)
    bar = progress(range(3), desc="EM starts", delay=0)
    assert list(bar) == [0, 1, 2]
    assert "EM starts" in terminal.getvalue()  # drawn on stderr, not stdout
    for off in ("0", "false", "off"):
        monkeypatch.setenv("GOLDNOISE_PROGRESS", off)
        steps = range(3)
        assert progress(steps) is steps


def test_fit_draws_its_starts_on_a_terminal(monkeypatch):
    pytest.importorskip("tqdm")
    import numpy as np

    from noise_models import LatentClassModel

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("GOLDNOISE_PROGRESS", raising=False)
    monkeypatch.setitem(progress.__kwdefaults__, "delay", 0.0)  # draw at once
    x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]] * 20)
    LatentClassModel("spam", n_starts=3, rng=0).fit(x)
    assert "EM starts" in terminal.getvalue()
