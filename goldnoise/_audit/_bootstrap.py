"""The bootstrap section of ``goldnoise audit --bootstrap B``: intervals beside the analytic ones.

Every coefficient of the agreement table that the bootstrap engine knows is
resampled over items from the same resamples (paired), and shown with its
analytic SE and interval next to the bootstrap SE and the percentile and BCa
intervals (both from the one set of replicates).
"""

from __future__ import annotations

import functools
import math
from typing import Any

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._audit._progress import progress
from goldnoise._audit._text import capture_notes
from goldnoise.report import Column, Section

__all__ = ["bootstrap_section"]

# Display names of the agreement table -> the engine's statistic names.
NAMES = {
    "Percent agreement": "percent_agreement", "Fleiss' kappa": "fleiss_kappa",
    "Scott's pi": "scott_pi", "Cohen's kappa": "cohen_kappa", "Conger's kappa": "conger_kappa",
    "Light's kappa": "light_kappa", "Brennan-Prediger": "brennan_prediger",
    "Gwet's AC1": "gwet_ac1",
    # rating scales: the ANOVA sums and moments are per-item rows too (Kendall's W is not)
    "ICC(1,1)": "icc1", "ICC(2,1)": "icc2", "ICC(3,1)": "icc3", "ICC(1,k)": "icc1k",
    "ICC(2,k)": "icc2k", "ICC(3,k)": "icc3k", "Lin's concordance correlation": "lin_ccc",
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
    s = section_from_result(None, "bootstrap", f"Bootstrap over items ({n_resamples} resamples"
                            f"{'' if seed is None else f', seed {seed}'}), beside the analytic "
                            "intervals")
    groups: list[tuple[list[str], list[str], str | None]] = []
    plain = [name for name in analytic if name in NAMES]
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
            run = functools.partial(bootstrap, ratings=ratings, n_resamples=n_resamples,
                                    rng=seed, confidence_level=confidence_level,
                                    level=level, _progress=update)
            with capture_notes(s.notes):
                try:
                    res = run(stats)
                except ValueError as exc:
                    # The engine refuses Light's κ beyond its limit of annotators (one
                    # column per pair): the others, from the same resamples, without it.
                    if "light_kappa" not in stats or len(stats) == 1:
                        raise
                    shown = [n for n in shown if n != "Light's kappa"]
                    res = run([n for n in stats if n != "light_kappa"])
                    s.notes.append("Light's kappa not bootstrapped, its analytic interval "
                                   f"stands: {' '.join(str(exc).split())}")
            bca = res.with_method("bca").interval
            for i, name in enumerate(shown):
                a = analytic[name]
                rows.append({
                    "coefficient": name, "value": res.estimate[i],
                    "analytic_se": a.get("standard_error"),
                    "analytic_low": a.get("ci_low"), "analytic_high": a.get("ci_high"),
                    "bootstrap_se": res.standard_error[i],
                    "percentile_low": res.interval.low[i],
                    "percentile_high": res.interval.high[i],
                    "bca_low": bca.low[i], "bca_high": bca.high[i],
                    "n_degenerate": int(res.n_degenerate[i]),
                })
            s.notes += [n for n in res.notes if n not in s.notes]
    s.values.update({"n_resamples": n_resamples, "seed": seed,
                     "confidence_level": confidence_level, "scheme": "multinomial"})
    s.tables.append(report_table("intervals", [
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
