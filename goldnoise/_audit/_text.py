"""Formatting the audit's prose: warnings captured as notes, percentages, plurals, margins."""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["capped_margin", "capture_notes", "p_text", "pct", "plural"]


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

    ``L`` is the number of agreed items and ``gamma`` their noise bound, or ``L`` is a
    ``NoiseBoundResult`` (then ``gamma`` is None and R is its exact ``hidden_hard``).
    The rule is :func:`noise_models.chance_margin`'s ``method="auto"``: two systems can
    differ on at most R coin-flip items; with few of them Chebyshev's bound says more
    than R (e.g. 3.2 items of 1), and the exact binomial margin is used, with a note.
    """
    from noise_models import chance_margin

    margin = (chance_margin(L, alpha=alpha) if gamma is None
              else chance_margin(L=L, gamma=gamma, alpha=alpha))
    return margin, (margin.notes[0] if margin.notes else None)
