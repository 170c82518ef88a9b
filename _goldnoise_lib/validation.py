"""The one validation vocabulary of goldnoise.

One place decides what a count, an integer option, a non-negative number, a
probability, a confidence level, the paper's confidence α, a number of bootstrap
resamples, an option string and a random generator are, so that every public
function of the four packages says the same thing about the same mistake:

* a wrong *type* is a ``TypeError``, a wrong *value* a ``ValueError``;
* the message names the parameter in backticks first, says what is allowed and
  ends with what arrived: ``"`alpha` must be in (0, 1) ...; got 1.5."``.

The shared options of each public function are declared as data with
:func:`validate_params` (scikit-learn's ``validate_params`` idea)::

    @validate_params(confidence_level=ConfidenceLevel(), rng=Rng(),
                     n_resamples=Resamples(minimum=0), method=Option(METHODS))
    def detection_metrics(scores, is_error, *, ...): ...

and the function's first statement is ``check_params(detection_metrics, locals())``,
which checks those arguments in the declared order and leaves the values as they
are. The declaration stays readable on the function as ``__goldnoise_constraints__``, so
that one common test feeds every public function an invalid value for each of its
declared options (``Constraint.invalid_examples``) and expects the same error.

The number of bootstrap resamples follows one rule everywhere: a whole number
``>= 0`` where **0 means "no bootstrap"** (point estimates only, no intervals);
a function whose only output is the replicates (``agreement.bootstrap``) has
nothing to return without them and asks for ``>= 1`` with the same check.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "Alpha",
    "ConfidenceLevel",
    "Constraint",
    "Count",
    "Integer",
    "Option",
    "Probability",
    "Resamples",
    "Rng",
    "check_alpha",
    "check_candidate_columns",
    "check_candidates_and_humans",
    "check_confidence_level",
    "check_count",
    "check_integer",
    "check_number",
    "check_option",
    "check_params",
    "check_probability",
    "check_resamples",
    "check_rng",
    "check_shares",
    "validate_params",
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
                      open_high: bool = False,
                      what: str = "a probability (a number in [0, 1])") -> float:
    """A finite float in [0, 1] (ends excluded on request); ``what`` names it in messages."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be {what}; got "
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


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """``numpy.random.default_rng(rng)``, with a message naming `rng` when it fails.

    A negative int seed is a ValueError; anything else ``default_rng`` refuses
    (strings, floats, bools) a TypeError.
    """
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) \
            and rng < 0:
        raise ValueError(f"`{name}` must be None, a non-negative int seed, a numpy "
                         f"SeedSequence or Generator; got {rng!r}.")
    if isinstance(rng, (bool, np.bool_, float, np.floating, str, bytes)):
        raise TypeError(f"`{name}` must be None, an int seed, a numpy SeedSequence or "
                        f"Generator; got {rng!r} (type {type(rng).__name__}).")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise TypeError(
            f"`{name}` must be None, an int seed, a numpy SeedSequence or Generator; "
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


def check_option(value: Any, name: str, allowed: tuple[str, ...] | list[str], *,
                 hint: str = "") -> str:
    """One of the strings ``allowed``, matched exactly (no prefixes, no case folding).

    ``hint`` (a sentence) follows the message, e.g. why an option is not offered.
    """
    allowed = tuple(allowed)
    tail = f" {hint}" if hint else ""
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be one of {allowed}; got {value!r} "
                        f"(type {type(value).__name__}).{tail}")
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}.{tail}")
    return value


def check_resamples(value: Any, name: str = "n_resamples", *, minimum: int = 0) -> int:
    """A number of bootstrap resamples: an integer ``>= minimum``.

    The package's one rule: 0 means "no bootstrap" (``minimum=0``, the default);
    only a function whose whole output is the replicates passes ``minimum=1``.
    """
    return check_integer(value, name, minimum)


def check_candidate_columns(raters: Any, candidate: Any, humans: Any,
                            where: str = "the ratings") -> tuple[int, list[int]]:
    """The column of a judge (``candidate``) and of the humans it is measured against.

    ``humans=None`` takes every other rater; a string is one name. Raises
    ``ValueError`` for a candidate that is not a rater, a human that is not a rater,
    the candidate among the humans (a judge cannot be its own truth), or no human.
    """
    raters = list(raters)
    if candidate not in raters:
        raise ValueError(f"`candidate` {candidate!r} is not a rater of {where}; the raters "
                         f"are {raters[:10]}{' ...' if len(raters) > 10 else ''}.")
    j = raters.index(candidate)
    if humans is None:
        h_cols = [k for k in range(len(raters)) if k != j]
    else:
        humans = [humans] if isinstance(humans, (str, bytes)) else list(humans)
        bad = [h for h in humans if h not in raters]
        if bad:
            raise ValueError(f"`humans` names raters not in {where}: {bad[:5]}.")
        if candidate in humans:
            raise ValueError(f"`humans` includes the candidate {candidate!r}; a judge cannot "
                             "be its own truth.")
        h_cols = [raters.index(h) for h in dict.fromkeys(humans)]
    if not h_cols:
        raise ValueError(f"there is no human rater: {where} hold the candidate only.")
    return j, h_cols


def check_candidates_and_humans(raters: Any, candidates: Any, humans: Any, *,
                                what: str = "the judge audit"
                                ) -> tuple[list[str], list[int], list[int]]:
    """Several candidates (judges) and the humans they are compared with, by name.

    ``candidates``: one name or a sequence of them; ``humans=None`` takes every rater
    that is not a candidate, a string is one name. Names are compared as strings.
    Returns ``(candidate names, human columns, candidate columns)``. Raises
    ``ValueError`` for no candidate, a candidate or human that is not a rater, a
    candidate named twice, a rater named both, or fewer than two humans (``what``
    names the analysis in that message).
    """
    from collections.abc import Sequence

    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        candidates = [candidates]
    names = [str(x) for x in raters]
    cands = [str(c) for c in candidates]
    if not cands:
        raise ValueError("`candidates` must name at least one rater of the ratings.")
    unknown = [c for c in cands if c not in names]
    if unknown:
        raise ValueError(f"candidate {unknown[0]!r} is not a rater: the name is not in the "
                         f"ratings, whose raters are {names[:12]}"
                         f"{' ...' if len(names) > 12 else ''}.")
    if len(set(cands)) != len(cands):
        raise ValueError(f"`candidates` names a rater twice: {cands}.")
    if humans is None:
        human_cols = [j for j, n in enumerate(names) if n not in cands]
    else:
        wanted = [str(h) for h in ([humans] if isinstance(humans, str) else humans)]
        bad = [h for h in wanted if h not in names]
        if bad:
            raise ValueError(f"human {bad[0]!r} is not a rater of the ratings.")
        both = [h for h in wanted if h in cands]
        if both:
            raise ValueError(f"{both[0]!r} is named both a human and a candidate: `humans` "
                             "must name raters other than the candidates.")
        human_cols = [names.index(h) for h in dict.fromkeys(wanted)]
    if len(human_cols) < 2:
        raise ValueError(f"{what} needs two or more humans besides the candidates (at least 2 "
                         f"humans, so that a candidate can take one's place); got "
                         f"{len(human_cols)} ({[names[j] for j in human_cols]}): add the "
                         "ratings of another human (or name the humans with `humans=`).")
    return cands, human_cols, [names.index(c) for c in cands]


# ----------------------------------------------------- constraints declared as data
class Constraint:
    """What one shared option accepts; ``check`` raises the package's errors."""

    #: Short name of the kind of option (shown in the common test's ids).
    kind = "constraint"
    #: Whether ``None`` is accepted (an option whose default is "not asked for").
    optional = False

    def check(self, value: Any, name: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def validate(self, value: Any, name: str) -> Any:
        if value is None and self.optional:
            return None
        return self.check(value, name)

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        """Values this constraint refuses and the error each one raises."""
        return []

    def valid_example(self) -> Any:
        """A value this constraint accepts."""
        raise NotImplementedError

    def __repr__(self) -> str:
        extra = ", optional=True" if self.optional else ""
        return f"{type(self).__name__}({self._args()}{extra})"

    def _args(self) -> str:
        return ""


class ConfidenceLevel(Constraint):
    """A confidence level in (0, 1) (:func:`check_confidence_level`)."""

    kind = "confidence_level"

    def __init__(self, *, optional: bool = False) -> None:
        self.optional = optional

    def check(self, value: Any, name: str) -> float:
        return check_confidence_level(value, name)

    def valid_example(self) -> Any:
        return 0.95

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [("0.95", TypeError), (True, TypeError), (1.5, ValueError), (0.0, ValueError)]


class Alpha(Constraint):
    """The paper's confidence α of a bound, in (0, 1) (:func:`check_alpha`)."""

    kind = "alpha"

    def __init__(self, *, optional: bool = False) -> None:
        self.optional = optional

    def check(self, value: Any, name: str) -> float:
        if name != "alpha":
            return check_confidence_level(value, name)
        return check_alpha(value)

    def valid_example(self) -> Any:
        return 0.95

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [("0.95", TypeError), (1.0, ValueError), (0.0, ValueError)]


class Rng(Constraint):
    """None, an int seed, a SeedSequence or a Generator (:func:`check_rng`)."""

    kind = "rng"
    optional = True

    def check(self, value: Any, name: str) -> Any:
        check_rng(value, name)
        return value

    def valid_example(self) -> Any:
        return 0

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [("seed", TypeError), (0.5, TypeError), (-1, ValueError)]


class Count(Constraint):
    """A whole number ``>= minimum`` (:func:`check_count`)."""

    kind = "count"

    def __init__(self, minimum: int = 0, *, optional: bool = False) -> None:
        self.minimum = minimum
        self.optional = optional

    def check(self, value: Any, name: str) -> int:
        return check_count(value, name, minimum=self.minimum)

    def valid_example(self) -> Any:
        return max(self.minimum, 2)

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [("3", TypeError), (True, TypeError), (self.minimum - 1, ValueError),
                (2.5, ValueError)]

    def _args(self) -> str:
        return f"minimum={self.minimum}"


class Integer(Constraint):
    """An integer option ``>= minimum`` -- a Python or NumPy int, not a float
    (:func:`check_integer`): numbers of annotators, simulations, starts.

    :class:`Count` is for sizes of data, which may arrive as a whole float (``1e9``).
    """

    kind = "integer"

    def __init__(self, minimum: int = 0, *, optional: bool = False) -> None:
        self.minimum = minimum
        self.optional = optional

    def check(self, value: Any, name: str) -> int:
        return check_integer(value, name, self.minimum)

    def valid_example(self) -> Any:
        return max(self.minimum, 2)

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [(float(self.minimum + 1), TypeError), ("3", TypeError), (True, TypeError),
                (self.minimum - 1, ValueError)]

    def _args(self) -> str:
        return f"minimum={self.minimum}"


class Probability(Constraint):
    """A number in [0, 1], ends excluded on request (:func:`check_probability`)."""

    kind = "probability"

    def __init__(self, *, open_low: bool = False, open_high: bool = False,
                 optional: bool = False, what: str = "a probability (a number in [0, 1])"
                 ) -> None:
        self.open_low, self.open_high, self.optional = open_low, open_high, optional
        self.what = what

    def check(self, value: Any, name: str) -> float:
        return check_probability(value, name, open_low=self.open_low, open_high=self.open_high,
                                 what=self.what)

    def valid_example(self) -> Any:
        return 0.5

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [("0.5", TypeError), (1.5, ValueError), (-0.1, ValueError)]

    def _args(self) -> str:
        return f"open_low={self.open_low}, open_high={self.open_high}"


class Resamples(Constraint):
    """A number of bootstrap resamples, ``>= minimum`` (:func:`check_resamples`)."""

    kind = "resamples"

    def __init__(self, minimum: int = 0, *, optional: bool = False) -> None:
        self.minimum = minimum
        self.optional = optional

    def check(self, value: Any, name: str) -> int:
        return check_resamples(value, name, minimum=self.minimum)

    def valid_example(self) -> Any:
        return max(self.minimum, 1)

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [(10.0, TypeError), ("10", TypeError), (self.minimum - 1, ValueError)]

    def _args(self) -> str:
        return f"minimum={self.minimum}"


class Option(Constraint):
    """One of a few strings (:func:`check_option`)."""

    kind = "option"

    def __init__(self, allowed: tuple[str, ...] | list[str], *, optional: bool = False,
                 hint: str = "") -> None:
        self.allowed = tuple(allowed)
        self.optional = optional
        self.hint = hint

    def check(self, value: Any, name: str) -> str:
        return check_option(value, name, self.allowed, hint=self.hint)

    def valid_example(self) -> Any:
        return self.allowed[0]

    def invalid_examples(self) -> list[tuple[Any, type[Exception]]]:
        return [(1, TypeError), ("no such option", ValueError)]

    def _args(self) -> str:
        return repr(self.allowed)


def validate_params(**constraints: Constraint) -> Callable[[Callable], Callable]:
    """Declare the shared options of a public function (the declaration is data).

    The function is returned unchanged, with the declaration kept as
    ``__goldnoise_constraints__``; its first statement checks its arguments
    against it with ``check_params(function, locals())``. (No wrapper: a wrapper
    frame would move the place every warning of the function points at.)

    Examples
    --------
    >>> @validate_params(confidence_level=ConfidenceLevel())
    ... def f(x, *, confidence_level=0.95):
    ...     check_params(f, locals())
    ...     return confidence_level
    >>> f(1, confidence_level=0.9)
    0.9
    >>> f(1, confidence_level=95)
    Traceback (most recent call last):
    ...
    ValueError: `confidence_level` must be in (0, 1) (0.95 for 95%); got 95.
    """
    for name, constraint in constraints.items():
        if not isinstance(constraint, Constraint):
            raise TypeError(f"the constraint of `{name}` must be a Constraint; "
                            f"got {constraint!r}.")

    def declare(func: Callable) -> Callable:
        params = inspect.signature(func).parameters
        unknown = set(constraints) - set(params)
        if unknown:
            raise TypeError(f"{func.__qualname__} has no parameter {sorted(unknown)}.")
        func.__goldnoise_constraints__ = dict(constraints)
        return func

    return declare


def check_params(func: Callable, arguments: dict[str, Any]) -> None:
    """Check ``arguments`` (the function's ``locals()`` on entry) against its declaration.

    Parameters are checked in the order declared; values are left as they are.
    """
    for name, constraint in func.__goldnoise_constraints__.items():
        constraint.validate(arguments[name], name)
