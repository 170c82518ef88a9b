"""agreement.alt_test: the Alternative Annotator Test (Calderon, Reichart & Dror, ACL 2025).

The authors' repository (github.com/nitaytech/AltTest) carries no licence, so none of
its data is shipped here; benchmarks/bench_judge.py checks ω and ρ on every (data set,
LLM) pair of it against its notebook's printed values. Here: a hand-computed case, a
slow reference written from the paper's definition, and the validation branches.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from agreement import Ratings, alt_test


def _hand_case() -> Ratings:
    # 40 items, humans h1 h2 h3 and a candidate c:
    #  A (20 items): h = 0 0 0, c = 0
    #  B (10 items): h = 0 0 1, c = 0
    #  C (10 items): h = 1 1 1, c = 0
    x = [[0, 0, 0, 0]] * 20 + [[0, 0, 1, 0]] * 10 + [[1, 1, 1, 0]] * 10
    return Ratings.from_wide(np.array(x), raters=["h1", "h2", "h3", "c"])


def test_hand_computed_case():
    # Per item (accuracy scoring: share of the other two humans with the same label):
    #  A: every h scores 1, c scores 1: a tie, W_c = W_h = 1, d = W_h − W_c = 0.
    #  B: leaving out h1 (or h2) the others are {0, 1}: h 0.5, c 0.5, tie, d = 0;
    #     leaving out h3 the others are {0, 0}: h3 scores 0, c 1: W_c = 1, W_h = 0, d = −1.
    #  C: the others are {1, 1}: h scores 1, c 0: W_c = 0, W_h = 1, d = +1.
    # h1, h2: d = 0 (30 items), +1 (10): mean 0.25, Σd² = 10, ρ_h = 30/40 = 0.75.
    # h3:     d = 0 (20), −1 (10), +1 (10): mean 0, Σd² = 20, ρ_h = 30/40 = 0.75.
    # ρ = 0.75 whatever ε.
    se12 = math.sqrt((10 - 40 * 0.25**2) / 39 / 40)  # 0.069338
    se3 = math.sqrt(20 / 39 / 40)  # 0.113228
    r = _hand_case()
    # ε = 0.3: t(h1) = (0.25 − 0.3)/se12 = −0.7211, p = 0.2376; t(h3) = −0.3/se3 = −2.6495,
    # p = 0.00582. BY, m = 3, H_3 = 11/6: thresholds 0.05·i/(3·11/6) = 0.00909, 0.01818,
    # 0.02727: only h3's p (0.00582 ≤ 0.00909) is rejected, so ω = 1/3.
    res = alt_test(r, "c", epsilon=0.3)
    assert res.advantage_probability == pytest.approx(0.75, abs=1e-12)
    assert res.winning_rate == pytest.approx(1 / 3, abs=1e-12)
    assert not res.passed
    table = res.table
    assert table.loc["h1", "p_value"] == pytest.approx(stats.t.cdf(-0.05 / se12, 39), rel=1e-9)
    assert table.loc["h3", "p_value"] == pytest.approx(stats.t.cdf(-0.3 / se3, 39), rel=1e-9)
    assert table.loc["h3", "p_value"] == pytest.approx(0.00582, abs=5e-5)
    assert table["candidate_wins"].tolist() == [False, False, True]
    assert table["human_win_rate"].tolist() == pytest.approx([1.0, 1.0, 0.75])
    # ε = 0.1: h1's mean 0.25 > ε (p > 0.5), h3's t = −0.1/se3 = −0.883, p = 0.191: ω = 0.
    res = alt_test(r, "c", epsilon=0.1)
    assert res.winning_rate == 0.0
    assert res.table.loc["h3", "p_value"] == pytest.approx(0.191, abs=5e-4)


def _reference(humans: dict, cand: dict, epsilon: float, scoring: str, q: float = 0.05,
               min_items: int = 30) -> tuple[float, float, list[float]]:
    """The paper's definition, item by item (dicts: human -> {item: label}, item -> label)."""
    def score(pred, others):
        if scoring == "accuracy":
            return sum(pred == o for o in others) / len(others)
        if scoring == "rmse":
            return -math.sqrt(sum((pred - o) ** 2 for o in others) / len(others))
        return -sum(abs(pred - o) for o in others) / len(others)

    by_item: dict = {}
    for h, labels in humans.items():
        for i in labels:
            by_item.setdefault(i, []).append(h)
    keep = {i for i, hs in by_item.items() if len(hs) >= 2 and i in cand}
    p_values, rhos = [], []
    for h, labels in humans.items():
        items = [i for i in labels if i in keep]
        if len(items) < min_items:
            continue
        d, wc = [], []
        for i in items:
            others = [humans[g][i] for g in by_item[i] if g != h]
            sh, sc = score(labels[i], others), score(cand[i], others)
            wc.append(1 if sc >= sh else 0)
            d.append((1 if sh >= sc else 0) - wc[-1])
        p_values.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue
                        if np.std(d) > 0 else (0.0 if np.mean(d) < epsilon else 1.0))
        rhos.append(sum(wc) / len(wc))
    # Benjamini–Yekutieli step-up, written out
    m = len(p_values)
    harmonic = sum(1 / j for j in range(1, m + 1))
    order = sorted(range(m), key=lambda j: p_values[j])
    last = -1
    for rank, j in enumerate(order, start=1):
        if p_values[j] <= rank / m * q / harmonic:
            last = rank
    return max(last, 0) / m, sum(rhos) / m, p_values


def _random_data(seed: int, n: int, k: int, m: int, missing: float):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, m + 1, n)
    noise = rng.random(k) * 0.6
    x = np.where(rng.random((n, k)) < noise, rng.integers(1, m + 1, (n, k)), truth[:, None])
    x = x.astype(float)
    x[rng.random((n, k)) < missing] = np.nan
    cand = np.where(rng.random(n) < 0.3, rng.integers(1, m + 1, n), truth).astype(float)
    cand[rng.random(n) < 0.05] = np.nan
    humans = {f"h{j}": {i: int(x[i, j]) for i in range(n) if not np.isnan(x[i, j])}
              for j in range(k)}
    cands = {i: int(cand[i]) for i in range(n) if not np.isnan(cand[i])}
    return x, cand, humans, cands


@pytest.mark.parametrize("scoring", ["accuracy", "rmse", "abs"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_the_definition(scoring, seed):
    x, cand, humans, cands = _random_data(seed, n=120, k=5, m=4, missing=0.35)
    r = Ratings.from_wide(np.column_stack([x, cand]),
                          raters=[*humans, "judge"])
    for eps in (0.0, 0.1, 0.2):
        res = alt_test(r, "judge", epsilon=eps, scoring=scoring, min_items=40)
        omega, rho, p = _reference(humans, cands, eps, scoring, min_items=40)
        assert res.winning_rate == pytest.approx(omega, abs=1e-12)
        assert res.advantage_probability == pytest.approx(rho, abs=1e-12)
        tested = res.table[res.table["tested"]]
        np.testing.assert_allclose(tested["p_value"].to_numpy(), p, rtol=1e-9, atol=1e-15)


def test_humans_with_few_items_are_left_out_but_still_count_for_the_others():
    x, cand, humans, cands = _random_data(5, n=80, k=4, m=3, missing=0.0)
    x[10:, 3] = np.nan  # h3 rates 10 items only
    humans["h3"] = {i: v for i, v in humans["h3"].items() if i < 10}
    r = Ratings.from_wide(np.column_stack([x, cand]), raters=[*humans, "judge"])
    res = alt_test(r, "judge", epsilon=0.1)
    omega, rho, _ = _reference(humans, cands, 0.1, "accuracy")
    assert (res.winning_rate, res.advantage_probability) == pytest.approx((omega, rho))
    assert res.n_humans == 3 and not res.table.loc["h3", "tested"]
    assert any(re.search(r"not tested: h3 \(\d\)", n) for n in res.notes)


def test_candidate_labels_instead_of_a_column():
    x, cand, humans, _ = _random_data(3, n=90, k=3, m=3, missing=0.1)
    with_col = alt_test(Ratings.from_wide(np.column_stack([x, cand]),
                                          raters=[*humans, "judge"]), "judge", epsilon=0.1)
    r = Ratings.from_wide(x, raters=list(humans))
    labels = pd.Series(cand, index=r.items, name="judge").astype(object)
    labels[labels.isna()] = None
    alone = alt_test(r, labels.map(lambda v: None if v is None else float(v)), epsilon=0.1)
    assert alone.winning_rate == with_col.winning_rate
    assert alone.advantage_probability == with_col.advantage_probability


def _tested_humans(rng, m: int) -> Ratings:
    """m tested humans of varied accuracy and a candidate, 60 items; for m = 1 two more
    humans who rate too few items to be tested (they count among the remaining humans)."""
    n = 60
    truth = rng.integers(0, 3, n)

    def noisy(p):
        return np.where(rng.random(n) < p, rng.integers(0, 3, n), truth).astype(float)

    cols = [noisy(p) for p in rng.uniform(0.05, 0.9, m)]
    if m == 1:
        extra = np.column_stack([noisy(0.3), noisy(0.3)])
        extra[: n // 2, 0] = np.nan
        extra[n // 2:, 1] = np.nan
        cols += [extra[:, 0], extra[:, 1]]
    x = np.column_stack([*cols, noisy(rng.uniform(0.05, 0.6))])
    names = [f"h{i}" for i in range(x.shape[1] - 1)]
    return Ratings.from_wide(x, raters=[*names, "c"])


def test_benjamini_yekutieli_equals_statsmodels():
    # The per-human decisions of alt_test are Benjamini-Yekutieli at q over the tested
    # humans' p-values: statsmodels' multipletests(method="fdr_by") on the table's p-values
    # gives the same decisions (m = 1, 3, 7, 20 tested humans, several q).
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    both = other = bonferroni = 0
    for m in (1, 3, 7, 20):
        for q in (0.05, 0.2, 0.5):
            res = alt_test(_tested_humans(rng, m), "c", epsilon=rng.uniform(0.0, 0.3), q=q,
                           min_items=45)
            t = res.table[res.table["tested"]]
            assert len(t) == m == res.n_humans
            want = multipletests(t["p_value"].to_numpy(), q, method="fdr_by")[0]
            assert t["candidate_wins"].tolist() == want.tolist()
            assert not res.table.loc[~res.table["tested"], "candidate_wins"].any()
            assert res.winning_rate == want.mean()
            both += 0 < want.sum() < m
            # the rules BY is told apart from: BH (without BY's harmonic sum) and Bonferroni
            p = t["p_value"].to_numpy()
            other += multipletests(p, q, method="fdr_bh")[0].tolist() != want.tolist()
            bonferroni += multipletests(p, q, method="bonferroni")[0].tolist() != want.tolist()
    assert both >= 3 and other >= 2 and bonferroni >= 2  # decisions that tell the rules apart


def test_result_protocol():
    res = alt_test(_hand_case(), "c", epsilon=0.3)
    assert float(res) == res.winning_rate
    d = res.to_dict()
    assert d["table"][2]["human"] == "h3" and d["winning_rate"] == pytest.approx(1 / 3)
    assert list(res.to_frame().index) == ["h1", "h2", "h3"]
    assert "fails" in res.summary() and "omega = 0.33" in res.summary()
    assert "<table" in res._repr_html_()


def test_bad_input():
    r = _hand_case()
    with pytest.raises(ValueError, match="`candidate` 'gpt' is not a rater"):
        alt_test(r, "gpt", epsilon=0.1)
    with pytest.raises(ValueError, match="two or more humans"):
        alt_test(Ratings.from_wide(np.array([[0, 0]] * 40), raters=["h", "c"]), "c",
                 epsilon=0.1)
    with pytest.raises(ValueError, match=r"`epsilon` must be in \[0, 1\)"):
        alt_test(r, "c", epsilon=1.5)
    with pytest.raises(TypeError, match="`epsilon` must be a number"):
        alt_test(r, "c", epsilon="0.1")
    with pytest.raises(ValueError, match="`q` must be"):
        alt_test(r, "c", epsilon=0.1, q=0)
    with pytest.raises(ValueError, match="`scoring`"):
        alt_test(r, "c", epsilon=0.1, scoring="f1")
    with pytest.raises(ValueError, match="needs numeric labels"):
        s = Ratings.from_wide(np.array([["a", "a", "b"]] * 40), raters=["h1", "h2", "c"])
        alt_test(s, "c", epsilon=0.1, scoring="rmse")
    with pytest.raises(ValueError, match="no human has 50 or more items"):
        alt_test(r, "c", epsilon=0.1, min_items=50)


# Sottana et al. (2023, MIT; ../shared/data/judges/sottana2023): the data's README computes
# the Alt-Test per criterion (negative RMSE, BY q = .05, 3 humans × 400 items) with the
# authors' procedure: ω at ε = .1 / .2 and ρ, two decimals.
SOTTANA = {
    ("summarization", "relevance"): (1.00, 1.00, 0.83),
    ("summarization", "fluency"): (0.00, 0.67, 0.76),
    ("summarization", "coherence"): (0.00, 1.00, 0.73),
    ("summarization", "consistency"): (0.67, 1.00, 0.82),
    ("simplification", "semantics"): (0.33, 0.33, 0.73),
    ("simplification", "fluency"): (0.33, 0.33, 0.79),
    ("simplification", "simplicity"): (0.33, 0.67, 0.72),
    ("gec", "semantics"): (0.00, 0.67, 0.82),
    ("gec", "grammaticality"): (1.00, 1.00, 0.90),
    ("gec", "overcorrection"): (1.00, 1.00, 0.93),
}


def test_sottana2023_as_its_readme_computes(shared_data):
    folder = shared_data / "judges" / "sottana2023"
    ratings = pd.read_csv(folder / "ratings.csv")
    items = pd.read_csv(folder / "items.csv").set_index("item")
    ratings = ratings.join(items[["task", "criterion"]], on="item")
    for (task, criterion), (w1, w2, rho) in SOTTANA.items():
        part = ratings[(ratings.task == task) & (ratings.criterion == criterion)]
        r = Ratings.from_long(part, item="item", rater="rater", label="label")
        a = alt_test(r, "gpt-4", epsilon=0.1, scoring="rmse")
        b = alt_test(r, "gpt-4", epsilon=0.2, scoring="rmse")
        got = (round(a.winning_rate, 2), round(b.winning_rate, 2),
               round(a.advantage_probability, 2))
        assert got == (w1, w2, rho), (task, criterion)


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**31 - 1), eps=st.sampled_from([0.0, 0.1, 0.2]))
def test_invariances(seed, eps):
    # ω and ρ do not depend on the order of items or humans, nor (accuracy scoring) on the
    # category names; with numeric scoring, shifting every label leaves them unchanged.
    x, cand, humans, _ = _random_data(seed % 1000, n=90, k=4, m=3, missing=0.2)
    rng = np.random.default_rng(seed)
    base = alt_test(Ratings.from_wide(np.column_stack([x, cand]), raters=[*humans, "j"]),
                    "j", epsilon=eps)
    perm_items = rng.permutation(len(x))
    perm_humans = rng.permutation(4)
    y = np.column_stack([x[:, perm_humans], cand])[perm_items]
    moved = alt_test(Ratings.from_wide(y, raters=[*np.array(list(humans))[perm_humans], "j"]),
                     "j", epsilon=eps)
    assert moved.winning_rate == base.winning_rate
    assert moved.advantage_probability == pytest.approx(base.advantage_probability)
    names = np.array(["c", "a", "b"], dtype=object)
    z = np.column_stack([x, cand])
    text = np.where(np.isnan(z), None, names[np.nan_to_num(z, nan=1).astype(int) - 1])
    renamed = alt_test(Ratings.from_wide(text, raters=[*humans, "j"]), "j", epsilon=eps)
    assert renamed.winning_rate == base.winning_rate
    assert renamed.advantage_probability == pytest.approx(base.advantage_probability)
    for scoring in ("rmse", "abs"):
        a = alt_test(Ratings.from_wide(z, raters=[*humans, "j"]), "j", epsilon=eps,
                     scoring=scoring)
        b = alt_test(Ratings.from_wide(z + 10.0, raters=[*humans, "j"]), "j", epsilon=eps,
                     scoring=scoring)
        assert (a.winning_rate, a.advantage_probability) == (b.winning_rate,
                                                              b.advantage_probability)


def test_a_scoring_function_equals_the_named_scorings():
    # scoring(label, others) in Python: the paper's accuracy and -RMSE written from their
    # definitions give the vectorised scorings' omega, rho and per-human table exactly
    rng = np.random.default_rng(4)
    truth = rng.integers(1, 6, 120)
    cols = [np.where(rng.random(120) < 0.6, truth, rng.integers(1, 6, 120)).astype(float)
            for _ in range(5)]
    x = np.column_stack(cols)
    x[rng.random(x.shape) < 0.15] = np.nan
    r = Ratings.from_wide(x, raters=["h1", "h2", "h3", "h4", "judge"])

    def accuracy(label, others):
        return float(np.mean([label == o for o in others]))

    def neg_rmse(label, others):
        return -float(np.sqrt(np.mean([(label - o) ** 2 for o in others])))

    for named, fn in (("accuracy", accuracy), ("rmse", neg_rmse)):
        a = alt_test(r, "judge", epsilon=0.1, scoring=named, min_items=20)
        b = alt_test(r, "judge", epsilon=0.1, scoring=fn, min_items=20)
        assert (a.winning_rate, a.advantage_probability) == (b.winning_rate,
                                                             b.advantage_probability)
        pd.testing.assert_frame_equal(a.table, b.table)
        assert b.scoring == fn.__name__


def test_min_humans_per_item():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 200)
    x = np.column_stack([np.where(rng.random(200) < 0.7, truth, rng.integers(0, 3, 200))
                         for _ in range(5)]).astype(float)
    x[:80, 0] = np.nan  # 80 items with three humans, 120 with four
    r = Ratings.from_wide(x, raters=["h1", "h2", "h3", "h4", "judge"])
    assert alt_test(r, "judge", epsilon=0.1).n_items == 200
    res = alt_test(r, "judge", epsilon=0.1, min_humans_per_item=4)
    assert res.n_items == 120
    assert "80 items left out: fewer than 4 humans" in res.notes[0]
    with pytest.raises(ValueError, match="scoring"):
        alt_test(r, "judge", epsilon=0.1, scoring="cosine")
