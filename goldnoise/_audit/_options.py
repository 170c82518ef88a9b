"""The audit's options as one object, built once by :func:`~goldnoise.audit` from its keyword
options (documented there) and passed whole through the in-memory and the Dask paths."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["AuditOptions"]


@dataclasses.dataclass(frozen=True, eq=False)
class AuditOptions:
    """The checked options of one audit; each field is the keyword option of
    :func:`~goldnoise.audit` of the same name (``gold`` and ``verified`` as pandas Series,
    ``alpha`` and ``confidence_level`` as floats, ``notes`` as a tuple)."""

    model: str = "spam"
    hard: str | None = None
    gold: Any = None
    alpha: float = 0.95
    confidence_level: float = 0.95
    bootstrap: int | None = None
    threshold: float | None = None
    level: str = "auto"
    latent: bool = True
    n_starts: int = 10
    rng: Any = 0
    labels_ordered: bool = False
    source: str | None = None
    notes: tuple[str, ...] = ()
    calibrate: str | None = None
    verified: Any = None
    coefficients: Any = None

    @property
    def title_source(self) -> str:
        """Where the ratings came from, for the report's title (``"ratings"`` if not said)."""
        return self.source or "ratings"
