"""The bootstrap section of ``goldnoise audit --bootstrap B``: intervals beside the analytic ones.

Every coefficient of the agreement table that the bootstrap engine knows is
resampled over items from the same resamples (paired), and shown with its
analytic SE and interval next to the bootstrap SE and the percentile and BCa
intervals (both from the one set of replicates).
"""

from __future__ import annotations

import math
from typing import Any

from goldnoise._audit._progress import progress
from goldnoise._audit._text import capture_notes
from goldnoise.report import Column, Section, Table

__all__ = ["bootstrap_section"]

#: As the bootstrap engine: Light's κ is resampled for at most 100 annotators (4,950 pairs).
LIGHT_MAX_PAIRS = 4950

# Display names of the agreement table -> the engine's statistic names.
NAMES = {
    "Percent agreement": "percent_agreement", "Fleiss' kappa": "fleiss_kappa",
    "Scott's pi": "scott_pi", "Cohen's kappa": "cohen_kappa", "Conger's kappa": "conger_kappa",
    "Light's kappa": "light_kappa", "Brennan-Prediger": "brennan_prediger",
    "Gwet's AC1": "gwet_ac1",
}
ALPHA_PREFIX = "Krippendorff's alpha ("


def _interval(lo: Any, hi: Any) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "-"
    return f"[{lo:.4f}, {hi:.4f}]"


def bootstrap_section(ratings: Any, analytic: dict[str, dict], *, n_resamples: int,
                      seed: int | None, confidence_level: float
                      ) -> tuple[Section, list[dict[str, Any]]]:
    """The bootstrap section and its rows (one dict per coefficient).

    ``analytic``: the agreement section's rows by display name (value, SE, CI).
    """
    from agreement import bootstrap

    pct_label = f"{100 * confidence_level:g}%"
    s = Section("bootstrap", f"Bootstrap over items ({n_resamples} resamples"
                             f"{'' if seed is None else f', seed {seed}'}), beside the analytic "
                             "intervals")
    groups: list[tuple[list[str], list[str], str | None]] = []
    plain = [name for name in analytic if name in NAMES]
    n_raters = getattr(ratings, "n_raters", 0)
    if "Light's kappa" in plain and n_raters * (n_raters - 1) // 2 > LIGHT_MAX_PAIRS:
        # Its resampled rows would hold one column per annotator pair (annotators²).
        plain.remove("Light's kappa")
        s.notes.append(f"Light's kappa not bootstrapped: {n_raters} annotators make "
                       f"{n_raters * (n_raters - 1) // 2:,} pairs (the bootstrap keeps one "
                       "column per pair, at most 100 annotators); its analytic interval "
                       "stands")
    if plain:
        groups.append((plain, [NAMES[n] for n in plain], None))
    for name in analytic:
        if name.startswith(ALPHA_PREFIX):
            groups.append(([name], ["krippendorff_alpha"], name[len(ALPHA_PREFIX):-1]))
    if not groups:
        return s.undefined("no coefficient of the agreement table is defined on these data"), []
    rows = []
    total = n_resamples * len(groups)
    with progress(total, "bootstrap") as update:
        for shown, stats, level in groups:
            with capture_notes(s.notes):
                res = bootstrap(stats, ratings, n_resamples=n_resamples, rng=seed,
                                confidence_level=confidence_level, level=level,
                                _progress=update)
            bca = res.with_method("bca").interval
            for i, name in enumerate(shown):
                a = analytic[name]
                rows.append({
                    "coefficient": name, "value": res.estimate[i],
                    "analytic_se": a.get("standard_error"),
                    "analytic_low": a.get("ci_low"), "analytic_high": a.get("ci_high"),
                    "bootstrap_se": res.standard_error[i],
                    "percentile_low": res.confidence_interval.low[i],
                    "percentile_high": res.confidence_interval.high[i],
                    "bca_low": bca.low[i], "bca_high": bca.high[i],
                    "n_degenerate": int(res.n_degenerate[i]),
                })
            s.notes += [n for n in res.notes if n not in s.notes]
    s.values.update({"n_resamples": n_resamples, "seed": seed,
                     "confidence_level": confidence_level, "scheme": "multinomial"})
    s.tables.append(Table("intervals", [
        Column("coefficient", "coefficient", align="<"),
        Column("value", "value", ".4f"),
        Column("analytic_se", "analytic SE", ".4f"),
        Column("analytic", f"analytic {pct_label}", align="<", data=False,
               cell=lambda r: _interval(r["analytic_low"], r["analytic_high"])),
        Column("bootstrap_se", "bootstrap SE", ".4f"),
        Column("percentile", f"percentile {pct_label}", align="<", data=False,
               cell=lambda r: _interval(r["percentile_low"], r["percentile_high"])),
        Column("bca", f"BCa {pct_label}", align="<", data=False,
               cell=lambda r: _interval(r["bca_low"], r["bca_high"])),
    ], rows))
    s.lines.append("items resampled with replacement; every coefficient from the same "
                   "resamples (Krippendorff's alpha: units, both disagreements recomputed)")
    return s, rows
