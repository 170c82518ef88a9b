"""A pilot study read as a design: its coefficient, shares, annotators and missing share."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from _goldnoise_lib.validation import (
    check_option,
)
from simulation.study._design import COEFFICIENTS


def _from_pilot(pilot: Any, coefficient: Any, level: Any, confidence_level: float,
                category_shares: Any) -> tuple:
    import agreement

    coefficient = check_option(coefficient, "coefficient", COEFFICIENTS)
    r = agreement.as_ratings(pilot)
    func = getattr(agreement, coefficient)
    res = func(r, **({"level": level} if level and coefficient == "krippendorff_alpha" else {}))
    if not math.isfinite(res.value):
        raise ValueError(f"the pilot's {coefficient} is undefined; it cannot set the plan.")
    counts = np.asarray(r.counts, dtype=float).sum(axis=0)
    shares = counts / counts.sum() if category_shares is None else category_shares
    per_item = np.asarray(r.ratings_per_item)
    n_raters = int(r.n_raters) if r.has_raters else int(per_item.max())
    missing = float(1.0 - per_item.sum() / (r.n_items * n_raters))
    ci = res.confidence_interval(confidence_level)
    note = (f"from the pilot ({r.n_items} items, {n_raters} annotators): {coefficient} "
            f"{res.value:.4f}, {confidence_level:.0%} CI [{ci.low:.4f}, {ci.high:.4f}], "
            f"category shares {np.round(np.asarray(shares, float), 3).tolist()}, "
            f"{missing:.1%} missing")
    return float(res.value), n_raters, shares, missing, ci, note

