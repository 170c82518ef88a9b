"""Exceptions and warnings of goldnoise.

They live in the shared bottom layer so that every package can
raise and catch the same classes; `goldnoise` re-exports them.
"""

from __future__ import annotations

__all__ = [
    "ConvergenceWarning",
    "DegenerateDataWarning",
    "EstimationWarning",
    "GoldnoiseWarning",
    "LabelWarning",
    "ShapeError",
    "UnstableStartsWarning",
    "plain",
]


class ShapeError(ValueError):
    """Input has the wrong shape (ragged, empty, wrong number of dimensions)."""


class GoldnoiseWarning(UserWarning):
    """Base class of every warning goldnoise issues."""


class DegenerateDataWarning(GoldnoiseWarning):
    """The data make a statistic undefined (e.g. one category only); NaN was returned."""


class LabelWarning(GoldnoiseWarning):
    """Labels that print alike are separate categories (``1`` and ``'1'``, ``' a'`` and
    ``'a'``, precomposed and combining accents); ``normalize_labels=True`` merges them."""


class ConvergenceWarning(GoldnoiseWarning):
    """An iterative fit stopped before converging, or a latent class collapsed."""


class UnstableStartsWarning(ConvergenceWarning):
    """Starts of an iterative fit end within a hair of the best objective yet label the
    items differently: which optimum is reported depends on the seed. A
    :class:`ConvergenceWarning`, so filtering those filters this one too."""


class EstimationWarning(GoldnoiseWarning):
    """An estimate fell back to a weaker estimator because the data lack what it needs
    (e.g. no disagreed items to estimate chance agreement from)."""


def plain(value: object) -> object:
    """A numpy or pandas scalar as the plain Python value, for messages.

    ``repr(np.int64(266))`` is ``'np.int64(266)'``; messages should say ``266``.
    """
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:
        try:
            return item()
        except (TypeError, ValueError):
            return value
    return value
