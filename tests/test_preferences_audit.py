"""Position bias and the preference audit (SPEC §11).

Calibration of the position-bias flag by simulation (binomtest): the issue's design
-- 40 prompts, 8 systems, 25% of the 28 pairs on each prompt, a judge run in both
orders -- flags an unbiased judge in at most 10% of replicates and a judge that
answers "the first shown" regardless of the answers in 15% of its verdicts in at
least 90%. The one-order design is checked against the humans' rate the same way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from noise_models.preferences import position_bias, preference_audit


def _design(seed, *, bias, both=True, prompts=40, k=8, share=0.25, judge_acc=0.8):
    g = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, k)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    per = round(share * len(pairs))
    rows = []
    for p in range(prompts):
        for idx in g.choice(len(pairs), per, replace=False):
            i, j = pairs[idx]
            if g.random() < 0.5:
                i, j = j, i
            better_a = g.random() < 1 / (1 + np.exp(-(theta[i] - theta[j])))
            rows.append((p, f"s{i}", f"s{j}", "human", "a" if better_a else "b", "ab", "human"))
            for order in (("ab", "ba") if both else ("ab",)):
                if g.random() < bias:           # the first shown, whatever the answers
                    w = "a" if order == "ab" else "b"
                else:
                    right = g.random() < judge_acc
                    w = "a" if better_a == right else "b"
                rows.append((p, f"s{i}", f"s{j}", "judge", w, order, "llm"))
    return pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "order",
                                       "rater_kind"])


def _flags(n_rep, bias, both=True, seed0=0):
    return sum(bool(position_bias(_design(seed0 + r, bias=bias, both=both))
                    .loc[0, "flagged"]) for r in range(n_rep))


def _check(n_rep):
    none = _flags(n_rep, 0.0)
    assert stats.binomtest(none, n_rep, 0.10, alternative="greater").pvalue > 0.01
    biased = _flags(n_rep, 0.15, seed0=10_000)
    assert stats.binomtest(biased, n_rep, 0.90, alternative="less").pvalue > 0.01
    assert none / n_rep <= 0.10 and biased / n_rep >= 0.90


def test_position_bias_calibrated():
    _check(60)


@pytest.mark.slow
def test_position_bias_calibrated_full():
    _check(400)


def test_position_bias_one_order_against_humans():
    n_rep = 60
    none = _flags(n_rep, 0.0, both=False, seed0=500)
    assert stats.binomtest(none, n_rep, 0.10, alternative="greater").pvalue > 0.01
    df = _design(3, bias=0.3, both=False)
    row = position_bias(df).iloc[0]
    assert row["design"] == "one order" and np.isnan(row["consistency"])
    assert row["estimate"] == pytest.approx(row["first_share"] - row["human_first_share"])


def test_position_bias_frame_and_consistency_by_hand():
    rows = [(0, "x", "y", "j", "a", "ab", "llm"), (0, "x", "y", "j", "a", "ba", "llm"),
            (1, "x", "y", "j", "a", "ab", "llm"), (1, "x", "y", "j", "b", "ba", "llm"),
            (2, "x", "y", "j", "tie", "ab", "llm"), (2, "x", "y", "j", "tie", "ba", "llm")]
    df = pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "order", "rater_kind"])
    t = position_bias(df)
    assert list(t.columns[:4]) == ["judge", "estimate", "low", "high"]
    # units 0 and 2 consistent (x twice; tie twice), unit 1 not: 2/3
    assert t.loc[0, "consistency"] == pytest.approx(2 / 3)
    # decisive verdicts 4, first shown: unit 0 ab->a (first), ba->a (second), unit 1 both first
    assert t.loc[0, "first_share"] == pytest.approx(3 / 4)


def test_position_bias_bad_input():
    df = _design(0, bias=0.0).query("rater == 'judge'")
    with pytest.raises(ValueError, match="no judges"):
        position_bias(df.assign(rater_kind="human"))
    one = _design(0, bias=0.0, both=False).query("rater == 'judge'")
    with pytest.raises(ValueError, match="one order only"):
        position_bias(one)


def test_audit_recovers_simulated_noise():
    g = np.random.default_rng(5)
    rows = []
    err = 0.1
    for u in range(400):
        better = "a" if g.random() < 0.5 else "b"
        other = {"a": "b", "b": "a"}[better]
        for h in ("h1", "h2", "h3"):
            w = better if g.random() > err else (other if g.random() < 0.5 else "tie")
            rows.append((u, "x", f"y{u % 4}", h, w, "ab", "human"))
        for order in ("ab", "ba"):
            rows.append((u, "x", f"y{u % 4}", "judge", better if g.random() < 0.8 else other,
                         order, "llm"))
    df = pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "order", "rater_kind"])
    res = preference_audit(df, model="one-coin", n_resamples=40, rng=0)
    assert res.noise_low <= err <= res.noise_high
    assert set(res.annotators["kind"]) == {"human", "judge"}
    assert res.position_bias.loc[0, "design"] == "both orders"
    assert not res.position_bias.loc[0, "flagged"]
    assert "Percent agreement" in res.agreement.index
    assert float(res) == res.noise
