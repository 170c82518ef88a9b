"""The HTML report opened in a real browser: headless Chromium (Debian's ``chromium``).

Skipped, with the reason, where Chromium is not installed (``.ci/run`` installs it when it can).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("headless Chromium is not installed (apt-get install chromium); the HTML "
                "report is still checked for self-containedness in test_cli.py")


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib")
    d = tmp_path_factory.mktemp("html")
    script = Path(sys.executable).parent / "goldnoise"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "goldnoise"]
    out = subprocess.run([*command, "audit", "--example", "dawid_skene1979", "--report",
                          str(d / "audit.html"), "-q"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert out.returncode == 0, out.stderr
    return d / "audit.html"


def _browser(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, timeout=180)


def test_screenshot_is_not_blank(chromium, page, tmp_path):
    import matplotlib.image as mpimg

    shot = tmp_path / "shot.png"
    _browser(chromium, tmp_path / "profile", "--window-size=1200,3000",
             f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), "Chromium wrote no screenshot"
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (3000, 1200)
    ink = np.mean(np.any(pixels < 0.9, axis=-1))  # share of pixels that are not near-white
    assert 0.02 < ink < 0.9, ink
    # The plots are drawn in colour (the blue of the bars and intervals).
    blue = (pixels[..., 2] > 0.5) & (pixels[..., 0] < 0.35)
    assert blue.sum() > 2000


def test_page_text_has_the_numbers(chromium, page, tmp_path):
    dom = _browser(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    text = html.unescape(re.sub(r"<[^>]+>", " ", dom.stdout.decode()))
    text = " ".join(text.split())
    # Dawid & Skene (1979), 45 patients x 7 ratings: Fleiss' kappa and the noise bound.
    assert "Fleiss' kappa 0.5812, 95% CI [0.4799, 0.6826]" in text
    assert "gamma = 0.0625 (6.2% of the agreed subset)" in text
    assert "Latent-class fit (spam with item difficulty)" in text
    assert dom.stdout.decode().count("<svg") == 4
