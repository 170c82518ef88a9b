"""Exceptions and warnings of goldnoise.

They live in the lowest layer (`agreement`) so that every package above can
raise and catch the same classes; `goldnoise` re-exports them.
"""

from __future__ import annotations

__all__ = [
    "ConvergenceWarning",
    "DegenerateDataWarning",
    "EstimationWarning",
    "GoldnoiseWarning",
    "ShapeError",
]


class ShapeError(ValueError):
    """Input has the wrong shape (ragged, empty, wrong number of dimensions)."""


class GoldnoiseWarning(UserWarning):
    """Base class of every warning goldnoise issues."""


class DegenerateDataWarning(GoldnoiseWarning):
    """The data make a statistic undefined (e.g. one category only); NaN was returned."""


class ConvergenceWarning(GoldnoiseWarning):
    """An iterative fit stopped before converging, or a latent class collapsed."""


class EstimationWarning(GoldnoiseWarning):
    """An estimate fell back to a weaker estimator because the data lack what it needs
    (e.g. no disagreed items to estimate chance agreement from)."""
