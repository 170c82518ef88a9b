"""Span agreement at scale: span F1, unitizing α_u and token-level coefficients (SPEC §7).

3 annotators on 1e6 tokens (10,000 documents of 100 tokens) and 1e5 true spans, each
annotator keeping about 95% of them with boundary and label errors
(``simulation.simulate_spans``). Target: each statistic under 2 s.

The reference package named for this comparison, pygamma-agreement, computes Mathet et
al.'s γ only (no span F1, α_u or token coefficients): there is no statistic both compute,
so it is not timed here.

Run: ``python benchmarks/bench_spans.py`` (writes its section of RESULTS.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import timeit, write_section


def main() -> None:
    from agreement.spans import span_agreement, token_agreement, unitizing_alpha
    from simulation import simulate_spans

    sim = simulate_spans(10_000, n_annotators=3, tokens_per_document=100,
                         spans_per_document=10, rng=0)
    spans = sim.spans
    n_spans = len(spans)
    cases = [
        ("span F1, exact match (pooled, per label, pair, document)",
         lambda: span_agreement(spans)),
        ("span F1, IoU ≥ 0.5", lambda: span_agreement(spans, match="iou")),
        ("unitizing α_u with \\|u\\|α, cuα and the boundary/label split",
         lambda: unitizing_alpha(spans)),
        ("token-level coefficients (κ, α, AC1 with SEs; BIO tags)",
         lambda: token_agreement(spans)),
    ]
    rows = []
    for name, fn in cases:
        t = timeit(fn, repeat=3, warmup=1)
        rows.append(f"| {name} | {t:.2f} s | {'met' if t < 2.0 else '**missed**'} |")
        print(f"{name}: {t:.3f} s", flush=True)
    body = "\n".join([
        "## Span agreement at scale (`benchmarks/bench_spans.py`)",
        "",
        f"3 annotators, 10,000 documents × 100 tokens (1e6 tokens), 100,000 true spans; "
        f"{n_spans:,} annotated spans in all (`simulate_spans`, rng=0: each annotator misses "
        "5% of the spans, moves a boundary of 10% and relabels 5%). Median of 3 warm runs.",
        "",
        "| statistic | time | target < 2 s |",
        "|---|---|---|",
        *rows,
        "",
        "pygamma-agreement (0.5.9 installs from PyPI) computes Mathet et al.'s γ only, which "
        "goldnoise does not: no statistic is computed by both, so no ratio is given.",
    ])
    write_section("spans", body)


if __name__ == "__main__":
    main()
