"""Input validation shared by the three topics of ``noise_models``.

One place decides what a count, an integer option, a non-negative number, a
probability, the paper's confidence α and a random generator are, so that every
public function of ``easy_hard``, ``latent_class`` and ``instance`` says the
same thing about the same mistake.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_alpha",
    "check_confidence_level",
    "check_option",
    "check_resamples",
    "check_count",
    "check_integer",
    "check_number",
    "check_probability",
    "check_rng",
    "check_shares",
]

# Float counts are accepted when they are whole numbers (so ``n=1e9`` works);
# above 2**53 a float no longer holds every integer.
_MAX_EXACT_FLOAT = 2.0**53


def check_count(value: Any, name: str, *, minimum: int = 0) -> int:
    """A whole number ``>= minimum`` as a Python int.

    Accepts ints, NumPy integers and whole-valued floats (``1e9``); rejects
    booleans, strings, NaN, inf and fractions.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a whole number; got {value!r} "
                        f"(type {type(value).__name__}).")
    if isinstance(value, numbers.Integral):
        out = int(value)
    else:
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise ValueError(f"`{name}` must be a whole number (a count); got {value!r}.")
        if abs(f) > _MAX_EXACT_FLOAT:
            raise ValueError(f"`{name}` = {value!r} is too large to be an exact count as a "
                             "float; pass it as an int.")
        out = int(f)
    if out < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}; got {out}.")
    return out


def check_probability(value: Any, name: str, *, open_low: bool = False,
                      open_high: bool = False) -> float:
    """A finite float in [0, 1] (ends excluded on request)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a probability (a number in [0, 1]); got "
                        f"{value!r} (type {type(value).__name__}).")
    f = float(value)
    low_ok = f > 0.0 if open_low else f >= 0.0
    high_ok = f < 1.0 if open_high else f <= 1.0
    if not (math.isfinite(f) and low_ok and high_ok):
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"`{name}` must be in {lo}, {hi}; got {value!r}.")
    return f


def check_alpha(alpha: Any) -> float:
    """The paper's confidence α of the noise bound, strictly inside (0, 1)."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"`alpha` (the confidence of the bound, e.g. 0.95) must be a number "
                        f"in (0, 1); got {alpha!r} (type {type(alpha).__name__}).")
    f = float(alpha)
    if not (math.isfinite(f) and 0.0 < f < 1.0):
        raise ValueError(
            f"`alpha` must be in (0, 1): it is the confidence of the bound (0.95 for 95%), "
            f"not a significance level; got {alpha!r}."
        )
    return f


def check_shares(shares: Any, name: str, *, atol: float = 1e-6) -> np.ndarray:
    """A 1-D vector of non-negative shares that sums to 1 (to ``atol``), renormalised."""
    if isinstance(shares, (str, bytes)):
        raise TypeError(f"`{name}` must be a sequence of numbers; got a string {shares!r}.")
    arr = np.asarray(shares)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold numbers; got an array of dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"`{name}` must be a non-empty 1-D sequence; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"`{name}` must be finite and non-negative; got {arr.tolist()}.")
    total = float(arr.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"`{name}` must sum to 1; got sum {total!r}. Divide counts by their "
                         "total to get shares.")
    return arr / total


def check_integer(value: Any, name: str, low: int) -> int:
    """An integer option (a Python or NumPy int, not a bool) ``>= low``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{name}` must be an integer ≥ {low}; got {value!r}.")
    if value < low:
        raise ValueError(f"`{name}` must be an integer ≥ {low}; got {int(value)}.")
    return int(value)


def check_number(value: Any, name: str, *, positive: bool) -> float:
    """A finite number ``>= 0`` (``> 0`` with ``positive=True``) as a float."""
    which = "positive" if positive else "non-negative"
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"`{name}` must be a {which} number; got {value!r}.")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"`{name}` must be a finite number {bound}; got {value!r}.")
    return v


def check_rng(rng: Any) -> np.random.Generator:
    """``numpy.random.default_rng(rng)``, with a message naming `rng` when it fails."""
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise TypeError(
            "`rng` must be None, an int seed, a numpy SeedSequence or Generator; "
            f"got {rng!r}."
        ) from None


def check_confidence_level(value: Any, name: str = "confidence_level") -> float:
    """A confidence level strictly inside (0, 1): Python or NumPy reals, not bools."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a number in (0, 1); got {value!r} "
                        f"(type {type(value).__name__}).")
    f = float(value)
    if not (math.isfinite(f) and 0.0 < f < 1.0):
        raise ValueError(f"`{name}` must be in (0, 1) (0.95 for 95%); got {value!r}.")
    return f


def check_option(value: Any, name: str, allowed: tuple[str, ...] | list[str]) -> str:
    """One of the strings ``allowed``, matched exactly (no prefixes, no case folding)."""
    allowed = tuple(allowed)
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be one of {allowed}; got {value!r} "
                        f"(type {type(value).__name__}).")
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}.")
    return value


def check_resamples(value: Any, name: str = "n_resamples", *, minimum: int = 1) -> int:
    """A number of resamples (an integer ``>= minimum``; 1 unless a function allows 0)."""
    return check_integer(value, name, minimum)
