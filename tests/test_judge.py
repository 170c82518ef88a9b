"""goldnoise.judge_audit: the swap and join tests, the comparisons, the verdicts (SPEC §10)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import goldnoise as gn


def _data(seed: int = 0, n: int = 60, missing: float = 0.2):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 5, n)

    def noisy(p):
        return np.where(rng.random(n) < p, rng.integers(1, 5, n), truth).astype(float)

    x = np.column_stack([noisy(0.2), noisy(0.3), noisy(0.25), noisy(0.35), noisy(0.15),
                         noisy(0.8)])
    x[rng.random(x.shape) < missing] = np.nan
    return x, ["h1", "h2", "h3", "h4", "good", "poor"]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_swap_and_join_equal_the_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    x, names = _data()
    r = gn.Ratings.from_wide(x, raters=names)
    res = gn.judge_audit(r, ["good", "poor"], margin=0.1, level=level, n_resamples=50, rng=0,
                         latent_resamples=0)
    humans = x[:, :4]
    keep = ~np.all(np.isnan(humans), axis=1)  # the items with a human rating

    def alpha(cols, rows=keep):
        return krippendorff.alpha(reliability_data=x[rows][:, cols].T,
                                  level_of_measurement=level)

    h = alpha([0, 1, 2, 3])
    assert res.human_reliability == pytest.approx(h, abs=1e-12)
    for c, cand in ((4, "good"), (5, "poor")):
        # swap and join on the items the candidate rated, against the humans on those items
        own = keep & ~np.isnan(x[:, c])
        h_c = alpha([0, 1, 2, 3], own)
        swaps = [alpha([j for j in range(4) if j != out] + [c], own) for out in range(4)]
        assert res.swap.loc[cand, "humans"] == pytest.approx(h_c, abs=1e-12)
        assert res.swap.loc[cand, "n_items"] == own.sum()
        assert res.swap.loc[cand, "with_candidate"] == pytest.approx(np.mean(swaps), abs=1e-12)
        assert res.swap.loc[cand, "difference"] == pytest.approx(np.mean(swaps) - h_c,
                                                                 abs=1e-12)
        assert res.join.loc[cand, "with_candidate"] == pytest.approx(alpha([0, 1, 2, 3, c], own),
                                                                     abs=1e-12)


@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "gwet_ac1", "conger_kappa",
                                         "percent_agreement", "brennan_prediger"])
def test_swap_with_other_coefficients_equals_their_functions(coefficient):
    x, names = _data(9, n=80)
    r = gn.Ratings.from_wide(x, raters=names)
    res = gn.judge_audit(r, ["good"], margin=0.1, coefficient=coefficient, n_resamples=20,
                         rng=0, latent_resamples=0, humans=["h1", "h2", "h3", "h4"])
    fn = getattr(gn, coefficient)
    keep = ~np.all(np.isnan(x[:, :4]), axis=1)

    def value(cols, rows=keep):
        return fn(gn.Ratings.from_wide(x[rows][:, cols], categories=[1.0, 2.0, 3.0, 4.0])).value

    assert res.human_reliability == pytest.approx(value([0, 1, 2, 3]), abs=1e-12)
    own = keep & ~np.isnan(x[:, 4])  # the items the candidate rated
    swaps = [value([j for j in range(4) if j != out] + [4], own) for out in range(4)]
    assert res.swap.loc["good", "with_candidate"] == pytest.approx(np.mean(swaps), abs=1e-12)
    assert res.swap.loc["good", "humans"] == pytest.approx(value([0, 1, 2, 3], own), abs=1e-12)
    assert res.join.loc["good", "with_candidate"] == pytest.approx(value([0, 1, 2, 3, 4], own),
                                                                   abs=1e-12)


def test_the_swap_interval_is_the_paired_bootstrap_of_the_difference():
    x, names = _data(1, n=200, missing=0.0)
    r = gn.Ratings.from_wide(x, raters=names)
    a = gn.judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=300, rng=3,
                       latent_resamples=0)
    b = gn.judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=300, rng=3,
                       latent_resamples=0)
    pd.testing.assert_frame_equal(a.swap, b.swap)  # seeded
    s = a.swap
    assert (s["low"] < s["difference"]).all() and (s["difference"] < s["high"]).all()
    # paired: the interval of the difference is much narrower than the two intervals'
    # widths added (the humans' own interval alone is wider than the difference's here)
    assert (s["high"] - s["low"] < a.human_high - a.human_low).all()
    assert s.loc["good", "non_inferior"] and not s.loc["poor", "non_inferior"]
    assert s.loc["poor", "high"] < 0


def test_verdicts_in_words():
    x, names = _data(2, n=400, missing=0.0)
    r = gn.Ratings.from_wide(x, raters=names)
    res = gn.judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=200, rng=0,
                         latent_resamples=0, epsilon=0.1)
    assert res.verdicts["verdict"].to_dict() == {"good": "replace", "poor": "neither"}
    text = res.summary()
    assert "good: replace -- may replace a human" in text
    assert "poor: neither -- neither replace nor join" in text
    assert "lowers the humans' agreement" in res.verdicts.loc["poor", "reason"]
    assert set(res.alt_test.index) == {"good", "poor"}


def test_humans_who_do_not_agree_cannot_validate_a_judge():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (300, 4))  # random humans: alpha near 0
    r = gn.Ratings.from_wide(x, raters=["h1", "h2", "h3", "judge"])
    res = gn.judge_audit(r, "judge", margin=0.05, n_resamples=100, rng=0, latent_resamples=0)
    assert not res.validated and res.human_reliability < 0.4
    assert res.verdicts.loc["judge", "verdict"] == "not validated"
    assert "cannot be validated against humans who do not agree" in \
        res.verdicts.loc["judge", "reason"]


def _swap_result(low, high, join_low, diff=-0.05):
    """A swap test's result with these intervals (the humans' alpha 0.5, validated)."""
    from noise_models import SwapTestResult

    swap = pd.DataFrame([{"candidate": "c", "with_candidate": 0.5 + diff, "humans": 0.5,
                          "difference": diff, "low": low, "high": high,
                          "non_inferior": low > -0.05, "n_items": 100}]).set_index("candidate")
    join = pd.DataFrame([{"candidate": "c", "with_candidate": 0.5, "humans": 0.5,
                          "difference": 0.0, "low": join_low, "high": 0.02,
                          "non_inferior": join_low > -0.04,
                          "n_items": 100}]).set_index("candidate")
    return SwapTestResult(humans=0.5, humans_low=0.45, humans_high=0.55, swap=swap, join=join,
                          coefficient="krippendorff_alpha", level="nominal", margin=0.05,
                          confidence_level=0.95, n_resamples=100, n_items=100, notes=())


def test_a_sentence_where_the_alt_test_and_the_swap_disagree(monkeypatch):
    # judge_audit's verdict from the swap test's intervals and the Alt-Test's decision,
    # each given here by the function the audit calls (noise_models.swap_test,
    # agreement.alt_test) replaced by one that returns a chosen result.
    import types

    import agreement

    x, _ = _data(2, n=100, missing=0.0)
    r = gn.Ratings.from_wide(x[:, :4], raters=["h1", "h2", "h3", "c"])

    def audit(swap, passed):
        monkeypatch.setattr("noise_models.judge._swap.swap_test", lambda *a, **k: swap)
        monkeypatch.setattr(agreement, "alt_test", lambda *a, **k: types.SimpleNamespace(
            winning_rate=1.0 if passed else 0.0, advantage_probability=0.9, passed=passed,
            notes=()))
        return gn.judge_audit(r, "c", margin=0.05, epsilon=0.1, n_resamples=20, rng=0,
                              latent_resamples=0).verdicts

    v = audit(_swap_result(-0.08, -0.02, -0.03), True)
    assert v.loc["c", "verdict"] == "join"
    assert "The Alt-Test disagrees: it passes (omega 1.00" in v.loc["c", "reason"]
    assert "lowers the humans' agreement" in v.loc["c", "reason"]
    v = audit(_swap_result(-0.03, 0.01, -0.05), False)
    assert v.loc["c", "verdict"] == "replace"
    assert "The Alt-Test disagrees: it fails" in v.loc["c", "reason"]


def test_the_candidate_inside_the_latent_class_fit():
    x, names = _data(4, n=300, missing=0.0)
    r = gn.Ratings.from_wide(x, raters=names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # EM starts on small data
        res = gn.judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=50, rng=0,
                             latent_resamples=20)
    lat = res.latent
    assert list(lat.index) == names
    assert lat.loc["poor", "kind"] == "candidate" and lat.loc["h1", "kind"] == "human"
    assert {"accuracy", "accuracy_low", "accuracy_high", "accuracy_easy",
            "accuracy_hard"} <= set(lat.columns)
    assert lat.loc["good", "accuracy"] > lat.loc["poor", "accuracy"] + 0.3
    assert (lat["accuracy_low"] <= lat["accuracy"]).all()
    assert (lat["accuracy"] <= lat["accuracy_high"]).all()
    # the poor judge fails on easy items too, not only on hard ones
    assert lat.loc["poor", "accuracy_easy"] < 0.5


def test_agreement_with_each_human_majority_and_latent_labels():
    x, names = _data(5, n=200, missing=0.1)
    r = gn.Ratings.from_wide(x, raters=names)
    res = gn.judge_audit(r, "good", margin=0.05, n_resamples=50, rng=0, latent_resamples=0,
                         humans=["h1", "h2", "h3", "h4"])
    a = res.agreement.loc["good"]
    assert list(a.index) == ["h1", "h2", "h3", "h4", "majority", "latent"]
    both = ~np.isnan(x[:, 0]) & ~np.isnan(x[:, 4])
    assert a.loc["h1", "n_items"] == both.sum()
    assert a.loc["h1", "accuracy"] == pytest.approx(np.mean(x[both, 0] == x[both, 4]))
    k = gn.cohen_kappa(x[both][:, [4, 0]])
    assert a.loc["h1", "kappa"] == pytest.approx(k.value, abs=1e-12)
    conf = res.confusion[(res.confusion.candidate == "good")
                         & (res.confusion.reference == "h1")]
    assert conf["count"].sum() == both.sum()


def test_result_protocol():
    x, names = _data(6, n=100)
    res = gn.judge_audit(gn.Ratings.from_wide(x, raters=names), ["good", "poor"], margin=0.1,
                         epsilon=0.15, n_resamples=50, rng=0, latent_resamples=0)
    assert float(res) == res.human_reliability
    assert res.confidence_interval() == (res.human_low, res.human_high)
    # another level comes from the same replicates: nested in the audit's own interval
    narrow = res.confidence_interval(0.5)
    assert res.human_low <= narrow.low <= narrow.high <= res.human_high
    assert (narrow.low, narrow.high) != (res.human_low, res.human_high)
    assert "bootstrap" not in res.to_dict()
    json.dumps(res.to_dict())  # plain values only
    frame = res.to_frame()
    assert list(frame.index) == ["good", "poor"]
    assert {"difference", "low", "high", "non_inferior", "join_difference", "winning_rate",
            "verdict", "reason"} <= set(frame.columns)
    assert not any(str(c).startswith("_") for c in frame.columns)
    assert "JudgeAuditResult(human_reliability=" in repr(res)
    assert "<table" in res._repr_html_()


def test_inputs_are_not_mutated():
    x, names = _data(7, n=80)
    frame = pd.DataFrame(x, columns=names)
    before = frame.copy()
    gn.judge_audit(frame, ["poor"], margin=0.1, n_resamples=20, rng=0, latent_resamples=0)
    pd.testing.assert_frame_equal(frame, before)


def test_bad_input():
    x, names = _data(8, n=60)
    r = gn.Ratings.from_wide(x, raters=names)
    kw = dict(n_resamples=20, latent_resamples=0)
    with pytest.raises(ValueError, match="candidate 'gpt' is not a rater"):
        gn.judge_audit(r, ["gpt"], margin=0.1, **kw)
    with pytest.raises(ValueError, match="two or more humans"):
        gn.judge_audit(r, ["h1", "h2", "h3", "good", "poor"], margin=0.1, **kw)
    with pytest.raises(ValueError, match=r"`margin` must be in \[0, 1\]"):
        gn.judge_audit(r, ["good"], margin=1.5, **kw)
    with pytest.raises(ValueError, match=r"`margin` must be in \[0, 1\]"):
        gn.judge_audit(r, ["good"], margin=-0.1, **kw)
    with pytest.raises(TypeError, match="margin"):
        gn.judge_audit(r, ["good"], **kw)  # no default margin
    with pytest.raises(ValueError, match=r"`epsilon` must be in \[0, 1\)"):
        gn.judge_audit(r, ["good"], margin=0.1, epsilon=2.0, **kw)
    y = x.copy()
    y[:30, :4] = np.nan
    y[30:, 4] = np.nan
    with pytest.raises(ValueError, match="candidate 'good' rated no item the humans rated"):
        gn.judge_audit(gn.Ratings.from_wide(y, raters=names), ["good"], margin=0.1,
                       humans=["h1", "h2", "h3", "h4"], **kw)
    with pytest.raises(ValueError, match="`level` applies to Krippendorff's alpha only"):
        gn.judge_audit(r, ["good"], margin=0.1, coefficient="fleiss_kappa", level="interval",
                       **kw)
    with pytest.raises(ValueError, match="`coefficient`"):
        gn.judge_audit(r, ["good"], margin=0.1, coefficient="kappa", **kw)


def test_pandalm_against_the_published_and_independent_numbers(test_data):
    # tests/data/pandalm2023 (Apache-2.0, Wang et al. 2024); expected values: README of
    # tests/data (krippendorff package and the data's own checks), 3 decimals.
    frame = pd.read_csv(test_data / "pandalm2023" / "ratings.csv")
    r = gn.Ratings.from_long(frame, item="item", rater="rater", label="label")
    res = gn.judge_audit(r, ["gpt-3.5-turbo", "pandalm-7b"], margin=0.05, epsilon=0.1,
                         n_resamples=200, rng=0, latent_resamples=0,
                         level="nominal")  # 0 tie, 1 or 2 better: categories
    assert res.human_reliability == pytest.approx(0.864, abs=5e-4)
    # join on the items each candidate rated (GPT-3.5: 974 of 999; the humans there 0.866),
    # by the krippendorff package on those items: 0.675 / 0.644 (0.679 on all 999 items)
    assert res.join["with_candidate"].tolist() == pytest.approx([0.675, 0.644], abs=5e-4)
    assert res.join["humans"].tolist() == pytest.approx([0.866, 0.864], abs=5e-4)
    assert res.join["n_items"].tolist() == [974, 999]
    maj = res.agreement.xs("majority", level="reference")
    assert maj["accuracy"].tolist() == pytest.approx([0.716, 0.668], abs=5e-4)
    assert maj["kappa"].tolist() == pytest.approx([0.493, 0.435], abs=5e-4)
    assert res.alt_test["winning_rate"].tolist() == [0.0, 0.0]
    assert res.alt_test["advantage_probability"].tolist() == pytest.approx([0.76, 0.71],
                                                                           abs=5e-3)
    assert res.verdicts["verdict"].tolist() == ["neither", "neither"]


def test_accuracy_interval_is_clopper_pearson():
    # The candidate's accuracy against a human, with its exact interval, in judge_audit's
    # agreement table: the candidate copies h1 on `hits` of n items and differs elsewhere.
    from scipy.stats import binomtest

    rng = np.random.default_rng(0)
    for hits, n in ((0, 10), (3, 10), (10, 10), (713, 974)):
        humans = rng.integers(0, 3, (n, 3))
        cand = np.where(np.arange(n) < hits, humans[:, 0], (humans[:, 0] + 1) % 3)
        r = gn.Ratings.from_wide(np.column_stack([humans, cand]),
                                 raters=["h1", "h2", "h3", "c"])
        row = gn.judge_audit(r, "c", margin=0.05, n_resamples=20, rng=0,
                             latent_resamples=0).agreement.loc[("c", "h1")]
        ci = binomtest(hits, n).proportion_ci(0.95, method="exact")
        assert row["n_items"] == n
        assert (row["accuracy"], row["accuracy_low"], row["accuracy_high"]) == pytest.approx(
            (hits / n, ci.low, ci.high), abs=1e-9)


def test_guide_judge_report_is_what_the_command_prints():
    # The guide page's report runs on the repository's tests/data file, so it is checked
    # here (from the repository's root) rather than by tests/test_readme.py's console blocks,
    # which run in an empty folder.
    import os
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    section = (root / "docs" / "guide" / "judge.md").read_text()
    command = section.split("```bash\ngoldnoise ", 1)[1].split("\n", 1)[0]
    printed = section.split("The judge report prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-m", "goldnoise", *shlex.split(command)],
                         capture_output=True, text=True, cwd=root, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0, out.stderr
    assert out.stdout == printed


@pytest.mark.parametrize("reps", [pytest.param(200, marks=pytest.mark.slow), 60])
def test_swap_interval_for_an_exchangeable_candidate(reps):
    # A candidate drawn exactly as the humans are (same error process) leaves agreement
    # unchanged in expectation (each swapped set is 3 exchangeable annotators, as the
    # humans are). Over 200 simulated data sets the bootstrap SE of the difference (interval
    # width / 3.92) must match the spread of the estimates, and the 95% percentile interval
    # cover 0 near nominally. Measured: SE 0.0225 against a spread of 0.0223, coverage 0.94
    # (n = 300); another seed gave 0.91 of 300, and at n = 2,000 the SE is 6% short of the
    # spread (coverage 0.935): the percentile interval runs a little narrow, as usual.
    from noise_models import swap_test

    rng = np.random.default_rng(5)
    covered, widths, diffs = 0, [], []
    for _ in range(reps):
        n = 300
        truth = rng.integers(0, 3, n)
        x = np.where(rng.random((n, 4)) < 0.35, rng.integers(0, 3, (n, 4)), truth[:, None])
        r = gn.Ratings.from_wide(x, raters=["h1", "h2", "h3", "c"])
        parts = swap_test(r, ["c"], humans=["h1", "h2", "h3"],
                          coefficient="krippendorff_alpha", level="nominal",
                          margin=0.05, n_resamples=500, confidence_level=0.95,
                          rng=int(rng.integers(2**32)))
        s = parts.swap.loc["c"]
        covered += s["low"] <= 0.0 <= s["high"]
        widths.append((s["high"] - s["low"]) / 3.92)
        diffs.append(s["difference"])
    assert abs(np.mean(diffs)) < 3 * np.std(diffs) / np.sqrt(reps)  # unbiased
    # the SD of 200 estimates is known to about 5% (15% is 3 SEs); of 60 to about 9% (30%)
    assert np.mean(widths) == pytest.approx(np.std(diffs), rel=0.15 if reps >= 200 else 0.3)
    if reps >= 200:
        assert 0.90 <= covered / reps <= 0.98, covered / reps
    from scipy.stats import binomtest

    assert binomtest(covered, reps, 0.95).pvalue > 0.001, covered


def test_numeric_labels_under_auto_level_get_the_interval_level_and_a_note():
    # sottana2023's Likert codes read as nominal under "auto" before; now interval, said so
    x, names = _data(8, n=80)
    r = gn.Ratings.from_wide(x, raters=names)
    kw = dict(margin=0.1, n_resamples=20, rng=0, latent_resamples=0)
    auto = gn.judge_audit(r, ["good"], **kw)
    assert auto.level == "interval"
    [note] = [n for n in auto.notes if "rating scale" in n]
    assert "(1.0, 2.0, 3.0, 4.0)" in note and "level='nominal'" in note
    assert not any("rating scale" in n for n in gn.judge_audit(r, ["good"], level="ordinal",
                                                                **kw).notes)
    words = gn.Ratings.from_wide(np.array(["a", "b", "c"])[np.nan_to_num(x, nan=1).astype(int)
                                                         % 3], raters=names)
    text = gn.judge_audit(words, ["good"], **kw)
    assert text.level == "nominal" and not any("rating scale" in n for n in text.notes)


def test_the_report_in_python_is_the_command_lines():
    # summary() is the text `goldnoise judge` prints; render() its other formats; the
    # notebook view its tables
    x, names = _data(1, n=200, missing=0.0)
    r = gn.Ratings.from_wide(x, raters=names)
    res = gn.judge_audit(r, "good", margin=0.05, n_resamples=50, rng=0, latent_resamples=0)
    text = res.summary()
    assert text == res.render("text") and text.startswith("goldnoise judge: ratings\n")
    assert "\nSwap (a human replaced, averaged over which) and join (added)" in text
    assert res.render("markdown").startswith("# goldnoise judge")
    assert json.loads(res.render("json"))["sections"]
    assert res.render("csv").splitlines()[0].startswith("candidate,test,")
    html = res._repr_html_()
    assert "<table>" in html and "The humans alone" in html
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        res.render("pdf")


def _panel(seed: int, n: int = 2000, accuracies=(0.8, 0.8, 0.8, 0.6)):
    # each rater keeps the true label (4 classes) with its accuracy, else another label
    g = np.random.default_rng(seed)
    truth = g.integers(0, 4, n)
    cols = [np.where(g.random(n) < a, truth, (truth + g.integers(1, 4, n)) % 4)
            for a in accuracies]
    return np.column_stack(cols).astype(float), g


def test_a_judge_with_missing_ratings_is_compared_on_its_own_items():
    # Three humans at accuracy 0.8 and a judge at 0.6 on 2,000 items: the judge lowers the
    # agreement by about 0.13 ("neither" at margin 0.05). With 80% of its labels missing,
    # comparing over every human-rated item shrank the difference toward 0 (-0.037, interval
    # above -0.05: "replace"); on the items it rated it is as bad as on all of them.
    x, g = _panel(3)
    names = ["h1", "h2", "h3", "judge"]
    kw = {"margin": 0.05, "level": "nominal", "n_resamples": 300, "rng": 0,
          "latent_resamples": 0}
    full = gn.judge_audit(gn.Ratings.from_wide(x, raters=names), "judge", **kw)
    assert full.verdicts.loc["judge", "verdict"] == "neither"
    x[g.random(len(x)) < 0.8, 3] = np.nan
    part = gn.judge_audit(gn.Ratings.from_wide(x, raters=names), "judge", **kw)
    rated = int((~np.isnan(x[:, 3])).sum())
    assert part.verdicts.loc["judge", "verdict"] == "neither"
    assert part.swap.loc["judge", "n_items"] == rated
    assert part.swap.loc["judge", "difference"] < -0.1
    assert any(f"judge rated {rated} of the 2000 items" in n for n in part.notes)
    # the humans' own coefficient stays on every item
    assert part.human_reliability == pytest.approx(full.human_reliability, abs=1e-12)


def test_a_candidates_interval_does_not_depend_on_the_others_listed():
    x, _ = _panel(5, n=300, accuracies=(0.8, 0.8, 0.8, 0.7, 0.5))
    r = gn.Ratings.from_wide(x, raters=["h1", "h2", "h3", "a", "b"])
    kw = {"margin": 0.05, "level": "nominal", "n_resamples": 200, "rng": 7,
          "latent_resamples": 0, "humans": ["h1", "h2", "h3"]}
    alone = gn.judge_audit(r, ["a"], **kw)
    both = gn.judge_audit(r, ["a", "b"], **kw)
    cols = ["difference", "low", "high"]
    assert both.swap.loc["a", cols].tolist() == alone.swap.loc["a", cols].tolist()
    assert both.join.loc["a", cols].tolist() == alone.join.loc["a", cols].tolist()
    assert (both.human_low, both.human_high) == (alone.human_low, alone.human_high)
    other = gn.judge_audit(r, ["a"], **{**kw, "rng": 8})
    assert other.swap.loc["a", "low"] != alone.swap.loc["a", "low"]


def test_a_numeric_scale_is_audited_at_an_ordered_level_by_default(shared_data):
    # Sottana et al. 2023: 3 humans and GPT-4 rating 4,000 outputs on 0-5. Every label is a
    # number and there are more than two: "auto" is the interval level (nominal alpha would
    # count 4 against 5 as against 0), the Alt-Test scores by -RMSE, and the report says both
    # in its first line.
    frame = pd.read_csv(shared_data / "judges" / "sottana2023" / "ratings.csv")
    r = gn.Ratings.from_long(frame, item="item", rater="rater", label="label")
    kw = {"margin": 0.05, "epsilon": 0.1, "n_resamples": 50, "rng": 0, "latent_resamples": 0}
    res = gn.judge_audit(r, "gpt-4", **kw)
    assert res.level == "interval" and res.scoring == "rmse"
    krippendorff = pytest.importorskip("krippendorff")
    wide = frame.pivot(index="item", columns="rater", values="label")
    humans = wide.drop(columns="gpt-4").to_numpy(dtype=float).T
    assert res.human_reliability == pytest.approx(
        krippendorff.alpha(reliability_data=humans, level_of_measurement="interval"), abs=1e-12)
    first = res.summary().splitlines()[3]
    assert first == ("  coefficient krippendorff_alpha, level interval; Alt-Test scoring -RMSE")
    assert "Alternative Annotator Test (epsilon 0.1, -RMSE scoring)" in res.summary()
    assert any("alpha at the interval level, as for a rating scale" in n for n in res.notes)
    nominal = gn.judge_audit(r, "gpt-4", level="nominal", **kw)
    assert nominal.scoring == "accuracy" and nominal.human_reliability < res.human_reliability
    # with epsilon at the interval level the Alt-Test keeps -RMSE: as agreement.alt_test says
    alt = gn.alt_test(r, "gpt-4", epsilon=0.1, scoring="rmse")
    assert res.alt_test.loc["gpt-4", "winning_rate"] == alt.winning_rate
    # a scoring chosen by name or as a function is named
    mae = gn.judge_audit(r, "gpt-4", scoring="abs", **kw)
    assert mae.scoring == "abs" and "Alt-Test scoring -|difference|" in mae.summary()


def test_two_numeric_labels_stay_nominal_and_no_epsilon_says_so():
    x, names = _data(6, n=80, missing=0.0)
    x = (x > 2).astype(float)
    res = gn.judge_audit(gn.Ratings.from_wide(x, raters=names), ["good"], margin=0.1,
                         n_resamples=20, rng=0, latent_resamples=0)
    assert res.level == "nominal" and res.scoring is None
    assert "Alt-Test not run (it needs an epsilon)" in res.summary()


def test_bad_input_of_a_judge_audit_in_one_line():
    x, names = _data(7, n=60, missing=0.0)
    kw = {"margin": 0.1, "n_resamples": 20, "rng": 0, "latent_resamples": 0}
    # a scale with text labels mixed in
    mixed = x.astype(object)
    mixed[:5, 0] = "N/A"
    r = gn.Ratings.from_wide(mixed, raters=names)
    with pytest.raises(ValueError, match=r"mix numbers .* and text \('N/A'\): recode or drop"):
        gn.judge_audit(r, ["good"], **kw)
    assert gn.judge_audit(r, ["good"], level="nominal", **kw).level == "nominal"
    # a single human
    with pytest.raises(ValueError, match=r"two or more humans .* got 1 .*: add the ratings "
                                         "of another human"):
        gn.judge_audit(gn.Ratings.from_wide(x, raters=names), ["good"], humans=["h1"], **kw)
    # a candidate on no common item
    y = x.copy()
    y[:, 4] = np.nan
    y[0, :4] = np.nan
    y[0, 4] = 1.0
    with pytest.raises(ValueError, match=r"candidate 'good' rated no item the humans rated; .* "
                                         "give its labels on items the humans rated"):
        gn.judge_audit(gn.Ratings.from_wide(y, raters=names), ["good"],
                       humans=["h1", "h2", "h3", "h4"], **kw)
    with pytest.raises(ValueError, match="`scoring`"):
        gn.judge_audit(gn.Ratings.from_wide(x, raters=names), ["good"], scoring="cos", **kw)
    # a single label: complete agreement, alpha undefined -- never "the humans barely agree"
    one = np.where(np.isnan(x), np.nan, 3.0)
    with pytest.raises(ValueError, match=r"every human rating is the same label \(3.0\): "
                                         "the humans agree completely"):
        gn.judge_audit(gn.Ratings.from_wide(one, raters=names, categories=[1.0, 2.0, 3.0]),
                       ["good"], **kw)


def test_free_text_labels_are_bounded_by_the_ratings():
    # 1,500 labels on 120 items: the confusion counts list the cells that occur (at most one
    # per item and reference), the majority needs no items x labels table, and the
    # latent-class section is left out in one line naming the number of labels
    g = np.random.default_rng(11)
    words = np.array([f"w{k}" for k in range(1500)], dtype=object)
    truth = g.integers(0, 1500, 120)
    cols = [words[np.where(g.random(120) < 0.7, truth, g.integers(0, 1500, 120))]
            for _ in range(4)]
    r = gn.Ratings.from_wide(np.column_stack(cols), raters=["h1", "h2", "h3", "judge"],
                             categories=list(words))
    res = gn.judge_audit(r, "judge", margin=0.1, epsilon=0.1, n_resamples=50, rng=0)
    assert res.latent is None
    assert any(n.startswith("no latent-class fit: 1,500 distinct labels") for n in res.notes)
    per_ref = res.confusion.groupby("reference")["count"]
    assert (per_ref.sum() == res.agreement.loc["judge", "n_items"]).all()
    assert (per_ref.size() <= 120).all() and (res.confusion["count"] > 0).all()
    # the same counts as the dense table, cell by cell, and the majority as counted by hand
    x = np.column_stack(cols)
    cell = res.confusion[res.confusion["reference"] == "h1"].set_index(
        ["candidate_label", "reference_label"])["count"]
    dense = pd.crosstab(x[:, 3], x[:, 0]).stack()
    assert cell.sort_index().to_dict() == dense[dense > 0].sort_index().to_dict()
    maj = []
    for row in x[:, :3]:
        v, c = np.unique(row, return_counts=True)
        maj.append(v[c.argmax()] if (c == c.max()).sum() == 1 else None)
    maj = np.array(maj, dtype=object)
    has = np.array([m is not None for m in maj])
    assert res.agreement.loc[("judge", "majority"), "n_items"] == has.sum()
    assert res.agreement.loc[("judge", "majority"), "accuracy"] == pytest.approx(
        np.mean(x[has, 3] == maj[has]))


def test_the_latent_fit_reads_the_compact_codes(monkeypatch):
    # The judge's latent-class fits read the ratings' own int8 codes: int64 ones made the EM
    # compile a second specialisation of every kernel (about 9 s of CPU on an empty cache)
    # and move eight times the bytes.
    import noise_models.latent_class._kernels as K

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 400)
    labels = np.where(rng.random((400, 5)) < 0.8, truth[:, None], rng.integers(0, 3, (400, 5)))
    r = gn.Ratings.from_wide(labels, raters=["h1", "h2", "h3", "a", "b"])
    assert r.codes.dtype == np.int8
    seen, run_em = set(), K.run_em

    def spy(codes, *args, **kwargs):
        seen.add(codes.dtype)
        return run_em(codes, *args, **kwargs)

    monkeypatch.setattr(K, "run_em", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gn.judge_audit(r, ["a", "b"], margin=0.05, n_resamples=50, latent_resamples=5, rng=0)
    assert seen == {np.dtype(np.int8)}
