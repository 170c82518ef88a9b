"""The figures of the reports, as :class:`~goldnoise.report.Figure` specs.

Each function takes plain numbers (never matplotlib objects) and returns a spec
whose ``draw(fig)`` fills a matplotlib Figure; nothing here imports matplotlib
until a figure is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from goldnoise.report import Figure

__all__ = ["annotator_accuracy", "coefficient_forest", "gamma_by_k", "hard_count_posterior",
           "hard_histogram", "reliability_diagram"]

_BLUE, _RED, _GREY = "#1f5f9f", "#b8322a", "#8a8a8a"


def coefficient_forest(rows: Sequence[dict[str, Any]], confidence_level: float) -> Figure:
    """Each coefficient with its confidence interval, one line each."""
    rows = [r for r in rows if r.get("value") is not None and math.isfinite(r["value"])]

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        for y, r in zip(ys, rows, strict=True):
            lo, hi = r.get("ci_low"), r.get("ci_high")
            if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
                ax.plot([lo, hi], [y, y], color=_BLUE, lw=2)
            ax.plot([r["value"]], [y], "o", color=_BLUE)
        ax.set_yticks(ys, [r["coefficient"] for r in rows])
        ax.axvline(0, color=_GREY, lw=0.8)
        ax.set_xlabel(f"value with its {100 * confidence_level:g}% interval")
        ax.grid(axis="x", alpha=0.3)

    return Figure("coefficients", "Agreement coefficients", draw,
                  size=(6.4, 1.2 + 0.45 * max(len(rows), 1)))


def hard_count_posterior(h: Sequence[int], pmf: Sequence[float], *, d: int, t0: int,
                         alpha: float) -> Figure:
    """The posterior of the number of hard items, with d and t0 marked."""

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        if len(h) < 2 or h[-1] - h[0] == len(h) - 1:  # every count: one bar each
            ax.bar(h, pmf, width=1.0, color=_BLUE, alpha=0.8)
        else:  # a grid over a long range: the probability of each count, as a curve
            ax.fill_between(h, pmf, color=_BLUE, alpha=0.5, lw=0)
            ax.plot(h, pmf, color=_BLUE, lw=1)
        if d >= h[0]:
            ax.axvline(d - 0.5, color=_GREY, ls="--", lw=1,
                       label=f"d = {d} disagreed (all hard)")
        ax.axvline(t0 + 0.5, color=_RED, lw=1.5,
                   label=f"t0 = {t0}: at most this many hard, confidence {alpha:g}")
        ax.set_xlabel("number of hard items H")
        ax.set_ylabel("posterior probability")
        ax.legend(fontsize=8)

    return Figure("hard_count_posterior", "Posterior of the number of hard items", draw)


def gamma_by_k(ks: Sequence[int], gammas: Sequence[float], target: float | None,
               chosen: int | None) -> Figure:
    """γ of the expected outcome against the number of annotators."""

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        ax.plot(ks, gammas, "o-", color=_BLUE)
        if target is not None:
            ax.axhline(target, color=_RED, ls="--", lw=1, label=f"target gamma {target:g}")
        if chosen is not None:
            ax.axvline(chosen, color=_GREY, lw=1, label=f"k = {chosen}")
        ax.set_xlabel("annotators per item k")
        ax.set_ylabel("gamma (share of agreed items that may be coin-flips)")
        ax.set_xticks(list(ks))
        ax.grid(alpha=0.3)
        if target is not None or chosen is not None:
            ax.legend(fontsize=8)

    return Figure("gamma_by_k", "Noise bound gamma against the number of annotators", draw)


def hard_histogram(posteriors: Sequence[float], model: str) -> Figure:
    """Histogram of the per-item posterior that the item is hard."""

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        ax.hist(posteriors, bins=20, range=(0.0, 1.0), color=_BLUE, alpha=0.85)
        ax.set_xlabel(f"P(item is hard) under {model}")
        ax.set_ylabel("items")

    return Figure("hard_posterior", "Per-item posterior of being hard", draw)


def annotator_accuracy(names: Sequence[str], n_ratings: Sequence[int],
                       estimate: Sequence[float], what: str) -> Figure:
    """Each annotator's estimated accuracy (or competence): bars for up to 40 annotators,
    else a scatter against the number of items each rated."""
    few = len(names) <= 40

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        if few:
            order = sorted(range(len(names)), key=lambda i: estimate[i])
            ys = list(range(len(order)))
            ax.barh(ys, [estimate[i] for i in order], color=_BLUE, alpha=0.85)
            ax.set_yticks(ys, [f"{names[i]} ({n_ratings[i]})" for i in order], fontsize=7)
            ax.set_xlabel(what)
            ax.set_xlim(0, 1)
            ax.set_ylabel("annotator (items rated)")
            ax.grid(axis="x", alpha=0.3)
        else:
            ax.scatter(n_ratings, estimate, s=18, color=_BLUE, alpha=0.7)
            ax.set_xlabel("items rated")
            ax.set_ylabel(what)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)

    height = 1.4 + 0.22 * len(names) if few else 4.0
    return Figure("annotator_accuracy", f"Annotators: {what}", draw,
                  size=(6.4, max(3.0, height)))


def reliability_diagram(confidence: Sequence[float], accuracy: Sequence[float],
                        n: Sequence[int]) -> Figure:
    """Verified accuracy against the fit's claimed confidence, per bin (size: items)."""

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], color=_GREY, lw=0.8, label="calibrated")
        big = max(n) if n else 1
        ax.scatter(confidence, accuracy, s=[20 + 200 * k / big for k in n], color=_BLUE,
                   zorder=3, label="bins (size: items)")
        ax.plot(confidence, accuracy, color=_BLUE, lw=1)
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("claimed P(label right)")
        ax.set_ylabel("share verified right")
        ax.legend(fontsize=8, loc="upper left")

    return Figure("reliability", "Reliability diagram", draw, size=(5.0, 5.0))
