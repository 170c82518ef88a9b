"""Rankings from pairwise votes: ``rank_systems`` (SPEC §11).

References: ``choix`` (Maystre; MIT; a test reference only) for the Bradley–Terry
maximum-likelihood scores (a tie entered as one win each way, which doubles every
decisive vote: the same likelihood up to a factor 2); brute force over every subset
of votes for drop-k; coverage of the score intervals and of the simultaneous
rank-sets by simulation from a Bradley–Terry model (binomtest).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from noise_models.preferences import as_comparisons, rank_systems
from noise_models.preferences._bt import fit_scores

choix = pytest.importorskip("choix")




def _votes(seed, theta, n_units, *, humans=1, ties=0.0, judge_acc=None, n_lab=None):
    """Votes from a BT model: the latent better answer, humans agreeing 90% (or exactly BT)."""
    g = np.random.default_rng(seed)
    k = len(theta)
    a = g.integers(0, k, n_units)
    b = (a + g.integers(1, k, n_units)) % k
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    z = g.random(n_units) < p
    rows = []
    for u in range(n_units):
        if judge_acc is not None:
            jz = z[u] if g.random() < judge_acc else not z[u]
            rows.append((u, f"s{a[u]}", f"s{b[u]}", "judge", "a" if jz else "b", "llm"))
        if n_lab is None or u < n_lab:
            for h in range(humans):
                if judge_acc is None:  # exactly Bradley–Terry (with ties)
                    hz = g.random() < p[u]
                    w = "tie" if g.random() < ties else ("a" if hz else "b")
                else:
                    w = "a" if (z[u] if g.random() < 0.9 else not z[u]) else "b"
                rows.append((u, f"s{a[u]}", f"s{b[u]}", f"h{h}", w, "human"))
    return pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "rater_kind"])


# ------------------------------------------------------------------ choix equality
@pytest.mark.parametrize("seed", range(5))
def test_scores_equal_choix_ml(seed):
    theta = np.array([0.8, 0.3, 0.0, -0.2, -0.9])
    df = _votes(seed, theta, 300, humans=2, ties=0.15 * (seed % 2))
    res = rank_systems(df, drop_k=False)
    c = as_comparisons(df)
    data = []
    for i, j, o in c.frame[["i", "j", "outcome"]].itertuples(index=False):
        if o == 1:
            data += [(i, j), (i, j)]
        elif o == -1:
            data += [(j, i), (j, i)]
        else:
            data += [(i, j), (j, i)]
    ref = choix.opt_pairwise(len(c.systems), data, alpha=0.0, tol=1e-12)
    ref = ref - ref.mean()
    got = res.table.set_index("system").loc[list(c.systems), "score"].to_numpy()
    assert res.prior == 0.0
    np.testing.assert_allclose(got, ref, atol=1e-4)


# ------------------------------------------------------------------ bad input
def test_bad_input_one_line_each():
    ok = pd.DataFrame({"item": [1, 2, 3], "a": ["x", "y", "x"], "b": ["y", "z", "z"],
                       "rater": "h", "winner": ["a", "b", "tie"]})
    with pytest.raises(ValueError, match="compare a system with itself"):
        rank_systems(ok.assign(b=["x", "z", "z"]))
    with pytest.raises(ValueError, match="winner that is neither system"):
        rank_systems(ok.assign(winner=["a", "q", "tie"]))
    with pytest.raises(ValueError, match="lack 'winner'"):
        rank_systems(ok.drop(columns="winner"))
    with pytest.raises(ValueError, match=r"'ab' \(a shown first"):
        as_comparisons(ok.assign(order=["ab", "xx", "ba"]))
    never = pd.DataFrame({"item": range(4), "a": ["x", "x", "y", "y"], "b": ["y", "z", "z", "z"],
                          "rater": "h", "winner": ["a", "a", "a", "b"]})
    res = rank_systems(never, drop_k=False)   # x never loses: no finite MLE
    assert res.prior > 0 and np.isfinite(res.table["score"]).all()
    assert any("never win or never lose" in n for n in res.notes)
    split = pd.DataFrame({"item": range(4), "a": ["x", "y", "u", "v"], "b": ["y", "x", "v", "u"],
                          "rater": "h", "winner": ["a", "a", "a", "b"]})
    res = rank_systems(split, drop_k=False)
    assert res.n_components == 2 and any("disconnected components" in n for n in res.notes)
    assert sorted(res.table["rank"].tolist()) == [1, 1, 2, 2]   # ranked within components


def test_winner_by_name_and_column_names():
    df = pd.DataFrame({"prompt": [1, 2], "left": ["x", "x"], "right": ["y", "y"],
                       "who": ["h", "h"], "best": ["y", "x"]})
    c = as_comparisons(df, item="prompt", a="left", b="right", rater="who", winner="best")
    assert c.frame["outcome"].tolist() == [-1, 1]


def test_a_tie_for_the_top_score_is_called_a_tie():
    # two systems split their two battles 1-1: nothing tells them apart, and a note says so
    df = pd.DataFrame({"item": [1, 2, 3], "a": ["m1", "m1", "m1"], "b": ["m2", "m2", "m3"],
                       "rater": "h", "winner": ["m1", "m2", "m1"]})
    notes = rank_systems(df, drop_k=False).notes
    assert not any("tie for the top" in n for n in notes)  # m1 beat m3: m1 leads alone
    tied = rank_systems(df.iloc[:2], drop_k=False)
    assert any(n.startswith("m1 and m2 tie for the top score") for n in tied.notes)

# ------------------------------------------------------------------ drop-k, brute force
def _top_after(frame, keep, k):
    f = frame[keep]
    lo = np.minimum(f["i"], f["j"]).to_numpy()
    hi = np.maximum(f["i"], f["j"]).to_numpy()
    y = np.where(f["i"] < f["j"], (f["outcome"] + 1) / 2, (1 - f["outcome"]) / 2)
    from noise_models.preferences._bt import PRIOR, needs_prior
    rho = PRIOR if needs_prior(lo, hi, y, 1 - y, k) else 0.0
    return int(np.argmax(fit_scores(lo, hi, y, np.ones(lo.size), k, prior=rho)))


@pytest.mark.parametrize("seed", range(4))
def test_drop_k_equals_brute_force(seed):
    theta = np.array([0.5, 0.2, 0.0])
    df = _votes(100 + seed, theta, 11, ties=0.2)
    res = rank_systems(df)
    c = as_comparisons(df)
    fr, k = c.frame, len(c.systems)
    top = _top_after(fr, np.ones(len(fr), bool), k)
    assert c.systems[top] == res.top_system
    want = None
    for size in range(1, len(fr)):
        for drop in itertools.combinations(range(len(fr)), size):
            keep = np.ones(len(fr), bool)
            keep[list(drop)] = False
            if _top_after(fr, keep, k) != top:
                want = size
                break
        if want is not None:
            break
    assert res.drop_k_method == "exact"
    assert res.drop_k == want


def test_drop_k_greedy_is_an_upper_bound_of_exact():
    df = _votes(7, np.array([0.4, 0.1, 0.0, -0.3]), 120)
    exact = rank_systems(df, max_fits=10**6)
    greedy = rank_systems(df, max_fits=1)
    assert exact.drop_k_method == "exact" and greedy.drop_k_method == "greedy"
    assert greedy.drop_k >= exact.drop_k


# ------------------------------------------------------------------ coverage (simulation)
def _coverage(n_rep, seed0=0):
    theta = np.array([0.6, 0.3, 0.1, -0.1, -0.4, -0.5])
    centred = theta - theta.mean()
    true_rank = np.argsort(np.argsort(-theta)) + 1
    sets = scores = 0
    for r in range(n_rep):
        # no ties: with ties at random the model is not Bradley–Terry and the scores'
        # target is the (shrunk) Bradley–Terry projection, not theta
        res = rank_systems(_votes(seed0 + r, theta, 400), drop_k=False)
        t = res.table.set_index("system")
        names = [f"s{i}" for i in range(len(theta))]
        sets += all(t.loc[n, "rank_low"] <= true_rank[i] <= t.loc[n, "rank_high"]
                    for i, n in enumerate(names))
        scores += t.loc["s0", "low"] <= centred[0] <= t.loc["s0", "high"]
    return sets, scores


def _check_coverage(n_rep):
    sets, scores = _coverage(n_rep)
    # simultaneous rank-sets: coverage at least 0.95 (Bonferroni: conservative)
    assert stats.binomtest(sets, n_rep, 0.95, alternative="less").pvalue > 0.01
    # one score's interval: 0.95
    assert stats.binomtest(scores, n_rep, 0.95).pvalue > 0.01


def test_rank_set_and_score_coverage():
    _check_coverage(80)


@pytest.mark.slow
def test_rank_set_and_score_coverage_full():
    _check_coverage(400)


# ------------------------------------------------------------------ PPI: smaller rank-sets
def _ppi_gain(n_rep, n_units=5000, n_lab=300):
    theta = np.array([0.9, 0.6, 0.3, 0.0, -0.3, -0.6])
    true_rank = np.argsort(np.argsort(-theta)) + 1
    names = [f"s{i}" for i in range(len(theta))]
    cov_p = cov_c = size_p = size_c = 0
    for r in range(n_rep):
        df = _votes(1000 + r, theta, n_units, humans=3, judge_acc=0.85, n_lab=n_lab)
        res = rank_systems(df, judges=["judge"], drop_k=False)
        t, cl = res.table.set_index("system"), res.classical.set_index("system")
        cov_p += all(t.loc[n, "rank_low"] <= true_rank[i] <= t.loc[n, "rank_high"]
                     for i, n in enumerate(names))
        cov_c += all(cl.loc[n, "rank_low"] <= true_rank[i] <= cl.loc[n, "rank_high"]
                     for i, n in enumerate(names))
        size_p += res.rank_set_size
        size_c += res.classical_rank_set_size
    return cov_p, cov_c, size_p, size_c


def _check_ppi(n_rep):
    cov_p, cov_c, size_p, size_c = _ppi_gain(n_rep)
    assert size_p <= 0.9 * size_c          # at least 10% smaller in total
    for cov in (cov_p, cov_c):             # at the same (nominal) coverage
        assert stats.binomtest(cov, n_rep, 0.95, alternative="less").pvalue > 0.01


def test_ppi_rank_sets_smaller_than_humans_alone():
    _check_ppi(20)


@pytest.mark.slow
def test_ppi_rank_sets_smaller_than_humans_alone_full():
    _check_ppi(100)


def test_plot_is_a_forest_plot():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    res = rank_systems(_votes(3, np.array([0.5, 0.0, -0.5]), 60), drop_k=False)
    ax = res.plot()
    assert len(ax.get_yticklabels()) == 3
    import matplotlib.pyplot as plt

    plt.close("all")


def test_soft_judge_votes_count_as_their_probability():
    df = _votes(11, np.array([0.6, 0.2, 0.0, -0.5]), 2000, humans=3, judge_acc=0.85, n_lab=300)
    is_j = (df["rater"] == "judge").to_numpy()
    hard = rank_systems(df, judges=["judge"], drop_k=False)
    # the same judge, soft: 0.9 for its verdict's side (a probability, winner left out)
    soft = df.assign(probability=np.where(is_j, np.where(df["winner"] == "a", 0.9, 0.1),
                                          np.nan),
                     winner=np.where(is_j, None, df["winner"]))
    res = rank_systems(soft, judges=["judge"], drop_k=False)
    assert not np.allclose(res.table["score"], hard.table["score"])
    c = as_comparisons(soft)
    assert sorted(set(c.frame.loc[c.frame["rater"] == "judge", "a_score"])) == [0.1, 0.9]
    # a soft vote of exactly its top class is the hard vote
    same = df.assign(probability=np.where(is_j, (df["winner"] == "a").astype(float), np.nan))
    np.testing.assert_allclose(rank_systems(same, judges=["judge"], drop_k=False)
                               .table["score"], hard.table["score"])


# ------------------------------------------------------------------ ppi_py equality
# Bradley–Terry is a logistic regression without intercept on e_a − e_b; with the first
# system's score fixed at 0 (ppi_py's parametrization) the differences θ_j − θ_0 and their
# intervals are the same estimator. λ: ours (tuned over the centred scores) is passed to
# ppi_py, whose own λ would minimise the other parametrization's trace.
def _bt_against_ppi_py(seed: int, tuned: bool):
    """Our 90% intervals of θ_j − θ_0, and ppi_py's inputs for the same data and λ."""
    df = _votes(200 + seed, np.array([0.5, 0.2, 0.0, -0.4]), 2300, judge_acc=0.85, n_lab=300)
    res = rank_systems(df, judges=["judge"], tuned=tuned, drop_k=False,
                       confidence_level=0.9)
    c = as_comparisons(df, judges=["judge"])
    fr = c.frame
    first = fr.drop_duplicates("unit").sort_values("unit")
    lo = np.minimum(first["i"], first["j"]).to_numpy()
    hi = np.maximum(first["i"], first["j"]).to_numpy()
    k = len(c.systems)
    x = np.zeros((lo.size, k))
    x[np.arange(lo.size), lo] = 1.0
    x[np.arange(lo.size), hi] = -1.0

    def lo_score(rows):
        s = np.full(lo.size, np.nan)
        v = np.where(rows["i"] < rows["j"], rows["a_score"], 1 - rows["a_score"])
        s[rows["unit"].to_numpy()] = v
        return s

    y = lo_score(fr[fr["rater_kind"] == "human"])
    f = lo_score(fr[fr["rater"] == "judge"])
    lab = ~np.isnan(y)
    X = x[:, 1:]
    t = res.table.set_index("system").loc[list(c.systems), "score"].to_numpy()
    cov = res.covariance.loc[list(c.systems), list(c.systems)].to_numpy()
    diff = t[1:] - t[0]
    se = np.sqrt(np.diag(cov)[1:] + cov[0, 0] - 2 * cov[0, 1:])
    z = stats.norm.isf(0.05)
    return diff - z * se, diff + z * se, (X[lab], y[lab], f[lab], X[~lab], f[~lab], res.lam)


# ppi_py 0.2.3's `ppi_logistic_ci(..., alpha=0.1, lam=ours, optimizer_options={"gtol":
# 1e-12})` on these data sets (printed to 9 decimals by the slow test's code below):
# recorded, so the default run does not compile ppi_py's Numba functions (7 s of CPU).
_PPI_PY_LOGISTIC = {
    (0, False): ([-0.456119172, -0.918013062, -0.860648988],
                 [0.220790361, -0.23780476, -0.154403241]),
    (0, True): ([-0.550447044, -0.86179918, -0.934390479],
                [0.019567779, -0.290444441, -0.339246483]),
    (1, False): ([-0.754415184, -0.999472278, -1.46183423],
                 [-0.030244711, -0.307279884, -0.705692764]),
    (1, True): ([-0.788213132, -1.053538062, -1.508681058],
                [-0.181575524, -0.477745926, -0.884861216]),
}


@pytest.mark.parametrize(("seed", "tuned"), sorted(_PPI_PY_LOGISTIC))
def test_ppi_equals_ppi_py_logistic_recorded(seed, tuned):
    low, high, _ = _bt_against_ppi_py(seed, tuned)
    np.testing.assert_allclose(low, _PPI_PY_LOGISTIC[seed, tuned][0], atol=1e-6)
    np.testing.assert_allclose(high, _PPI_PY_LOGISTIC[seed, tuned][1], atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("tuned", [False, True])
def test_ppi_equals_ppi_py_logistic(seed, tuned):
    ppi_py = pytest.importorskip("ppi_py")
    low, high, (x_lab, y_lab, f_lab, x_unl, f_unl, lam) = _bt_against_ppi_py(seed, tuned)
    with warnings.catch_warnings():  # scikit-learn's deprecation inside ppi_py
        warnings.simplefilter("ignore", FutureWarning)
        ref_low, ref_high = ppi_py.ppi_logistic_ci(x_lab, y_lab, f_lab, x_unl, f_unl,
                                                   alpha=0.1, lam=lam,
                                                   optimizer_options={"gtol": 1e-12})
    np.testing.assert_allclose(ref_low, low, atol=1e-6)
    np.testing.assert_allclose(ref_high, high, atol=1e-6)
