"""The planner's search for the smallest size meeting a goal: the goal chosen by the
arguments given, doubling, a predicted bracket and bisection."""

from __future__ import annotations

import math
from typing import Any

from simulation.study._checks import _N_START


def _progress_on(progress: bool | None) -> bool:
    from _goldnoise_lib.progress import progress_enabled

    return bool(progress) or (progress is None and progress_enabled())


def _goal(target: Any, null: Any, power: Any, minimum: Any) -> str:
    if (power is None) != (null is None) and minimum is None:
        raise ValueError("`power` and `null` go together: the power of a test against "
                         "`null`; give both, or `target` for an interval's half-width.")
    goals = [g for g, given in (("width", target is not None), ("power", power is not None),
                                ("minimum", minimum is not None)) if given]
    if len(goals) != 1:
        raise ValueError("give exactly one goal: `target` (an interval half-width), `null` and "
                         "`power` (a test), or `minimum` (Bloch & Kraemer's smallest α); got "
                         f"{goals or 'none'}.")
    return goals[0]


def _search(evaluate: Any, met: Any, max_items: int, goal: str, *, target: Any,
            power: Any, assured: bool = False) -> int:
    """Smallest n meeting the goal: doubling (quick), a predicted bracket, bisection."""
    n, last_fail = _N_START, None
    while not met(evaluate(n, quick=True)):
        last_fail = n
        if n >= max_items:
            row = evaluate(n)
            got = (f"mean half-width {row['mean_half_width']:.4f}" if goal == "width"
                   else f"power {row.get('power', math.nan):.3f}")
            raise ValueError(f"the goal is not reached within `max_items` = {max_items} items "
                             f"({got} there); raise `max_items` or relax the goal.")
        n = min(2 * n, max_items)
    if last_fail is None:
        lo, hi = 1, n
    else:
        guess = _predict(evaluate(last_fail, quick=True), evaluate(n, quick=True), goal,
                         target, power, assured)
        lo = max(last_fail, int(guess * 0.93))
        hi = min(n, max(lo + 1, math.ceil(guess * 1.07)))
        # Full-precision checks of the bracket; widen it where the quick pass misled.
        while not met(evaluate(hi)) and hi < n:
            lo, hi = hi, min(n, math.ceil(hi * 1.15))
        if not met(evaluate(hi)):
            lo, hi = hi, max_items
            if not met(evaluate(hi)):
                raise ValueError(f"the goal is not reached within `max_items` = {max_items} "
                                 "items; raise `max_items` or relax the goal.")
        while lo > last_fail and met(evaluate(lo)):
            lo, hi = max(last_fail, int(lo * 0.85)), lo
    # Bisection to 0.5% of n (finer steps are below the simulation's error).
    while hi - lo > max(1, int(0.005 * hi)):
        mid = (lo + hi) // 2
        if met(evaluate(mid)):
            hi = mid
        else:
            lo = mid
    return hi


def _predict(fail: dict, ok: dict, goal: str, target: Any, power: Any,
             assured: bool = False) -> float:
    """Where the goal is met, from two sizes: width ∝ n^(−1/2); probit(power) ∝ √n."""
    n0, n1 = fail["n_items"], ok["n_items"]
    if goal == "width":
        # with an assurance, the half-width that share of studies reach scales the same way
        w = ok["assured_half_width"] if assured else ok["mean_half_width"]
        return n1 * (w / target) ** 2 if 0 < w < math.inf else float(n1)
    from scipy.special import ndtri

    p0 = min(max(fail.get("power", 0.0), 1e-3), 1 - 1e-3)
    p1 = min(max(ok.get("power", 0.0), 1e-3), 1 - 1e-3)
    z0, z1, zt = ndtri(p0), ndtri(p1), ndtri(power)
    if z1 <= z0:
        return float(n1)
    root = math.sqrt(n0) + (zt - z0) * (math.sqrt(n1) - math.sqrt(n0)) / (z1 - z0)
    return float(min(max(root**2, n0), n1))

