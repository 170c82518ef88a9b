"""Small helpers the verbs share: argument types, warnings captured as notes, formatting."""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["capture_notes", "count", "p_text", "pct", "plural", "probability", "real"]


def probability(name: str):
    """An argparse type: a number strictly between 0 and 1."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a number in (0, 1); got {text!r}") from None
        if not 0.0 < value < 1.0:
            raise argparse.ArgumentTypeError(f"{name} must be in (0, 1); got {text}")
        return value
    return parse


def real(name: str, low: float = -math.inf, high: float = math.inf):
    """An argparse type: a finite number in [low, high]."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number; got {text!r}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"{name} must be in [{low:g}, {high:g}]; got {text}")
        return value
    return parse


def count(name: str, minimum: int = 0):
    """An argparse type: a whole number >= minimum (``1e6`` and ``1_000`` are accepted)."""
    def parse(text: str) -> int:
        try:
            value = float(text.replace("_", "")) if re.search(r"[eE.]", text) else \
                int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number; got {text!r}") from None
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise argparse.ArgumentTypeError(f"{name} must be a whole number; got {text}")
            value = int(value)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}; got {text}")
        return value
    return parse


@contextlib.contextmanager
def capture_notes(notes: list[str]) -> Iterator[None]:
    """Turn the warnings raised inside the block into one-line notes (each once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in notes:
            notes.append(text)


def pct(x: Any, digits: int = 1) -> str:
    """``0.1389`` -> ``13.9%``; NaN or None -> ``-``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * float(x):.{digits}f}%"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 item``, ``2 items``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def p_text(p: float) -> str:
    """A probability with four decimals, or three significant digits when small."""
    return f"{p:.4f}" if p >= 1e-3 or p == 0 else f"{p:.3g}"


def capped_margin(L: Any, gamma: Any, alpha: float) -> tuple[Any, str | None]:
    """The paper's Chebyshev margin, or the exact one where Chebyshev exceeds the hard items.

    Two systems can differ on at most R coin-flip items; with few of them Chebyshev's bound
    says more than R (e.g. 3.2 items of 1). The exact binomial margin is then used and a
    note says so.
    """
    from noise_models import chance_margin

    margin = chance_margin(L=L, gamma=gamma, alpha=alpha)
    if margin.margin <= margin.R:
        return margin, None
    exact = chance_margin(L=L, gamma=gamma, alpha=alpha, method="exact")
    return exact, (f"the Chebyshev margin ({margin.margin:.1f} items) exceeds the {margin.R} "
                   "hard item(s) two systems can differ on; the exact binomial margin is shown")
