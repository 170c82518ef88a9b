"""LatentClassModel / EasyHardModel: the EM engine, recovery, real data, bad input (SPEC §2.4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement import ConvergenceWarning, Ratings, UnstableStartsWarning
from noise_models import EasyHardModel, LatentClassFit, LatentClassModel
from noise_models.latent_class import _kernels as K
from noise_models.latent_class import _kernels_rows as KR
from noise_models.latent_class._em import _warn_if_degenerate
from simulation import simulate_annotations

ROOT = Path(__file__).resolve().parent.parent

ALL_MODELS = [
    ("perfect", "free"), ("perfect", "marginal"), ("perfect", "uniform"),
    ("one-coin", None), ("one-coin", "marginal"), ("one-coin", "uniform"),
    ("confusion", None), ("confusion", "marginal"), ("confusion", "uniform"),
    ("spam", None), ("spam", "marginal"), ("spam", "uniform"),
]


# ------------------------------------------------------------------ helpers
def snow(shared_data: Path, name: str) -> tuple[Ratings, np.ndarray]:
    df = pd.read_csv(shared_data / f"snow2008_{name}_long.csv")
    r = Ratings.from_long(df, item="item", rater="worker", label="response")
    gold = df.groupby("item", sort=False)["gold"].first().reindex(r.items).to_numpy()
    return r, gold


def mace_example(shared_data: Path) -> tuple[Ratings, np.ndarray]:
    wide = pd.read_csv(shared_data / "mace_example.csv", index_col=0)
    key = pd.read_csv(shared_data / "mace_example_key.csv", index_col=0)["gold"]
    r = Ratings.from_wide(wide)
    return r, key.reindex(r.items).to_numpy()


def dawid_skene_1979() -> Ratings:
    from goldnoise.datasets import load_dawid_skene1979

    long = load_dawid_skene1979()
    # Observer 1 rated every patient three times: each replicate is an annotator.
    long["rater"] = long["observer"].astype(str) + "." + long["replicate"].astype(str)
    return Ratings.from_long(long, item="patient", label="rating")


def majority_vote(r: Ratings) -> np.ndarray:
    # Independent majority vote: ties go to the first category (np.argmax).
    return np.argmax(np.asarray(r.counts), axis=1)


def params_of(fit: LatentClassFit):
    """The fit's parameters as the engine's arrays (for tables)."""
    k, m = fit.ratings.n_raters, fit.ratings.n_categories
    return (np.array(fit.phi), np.array([fit.pi if fit.pi is not None else 0.5]),
            np.array(fit.error_rate) if fit.error_rate is not None else np.full(k, 0.2),
            np.array(fit.confusion) if fit.confusion is not None else np.ones((k, m, m)) / m,
            np.array(fit.competence) if fit.competence is not None else np.full(k, 0.5),
            np.array(fit.spam_distribution) if fit.spam_distribution is not None
            else np.ones((k, m)) / m,
            np.array(fit.q) if fit.q is not None else np.ones((k, m)) / m)


def slow_emission(model: str, params, j: int, x: int, c: int, m: int) -> float:
    """P(annotator j says x | easy class c), straight from SPEC §2.4."""
    eps, conf, theta, xi = params[2:6]
    if model == "perfect":
        return float(x == c)
    if model == "one-coin":
        return 1 - eps[j] if x == c else eps[j] / (m - 1)
    if model == "confusion":
        return conf[j, c, x]
    return theta[j] * (x == c) + (1 - theta[j]) * xi[j, x]


def slow_estep(codes, model: str, hard: str | None, params):
    """Pure-Python E-step: expected counts cnt[j, x, s], totals, log-likelihood."""
    phi, pi, q = params[0], params[1], params[6]
    n, k = codes.shape
    m = len(phi)
    states = m + (hard is not None)
    cnt = np.zeros((k, m, states))
    tot = np.zeros(states)
    ll = 0.0
    for i in range(n):
        rated = [(j, int(codes[i, j])) for j in range(k) if codes[i, j] >= 0]
        if not rated:
            continue
        joint = np.empty(states)
        for c in range(m):
            w = (1 - pi[0]) * phi[c] if hard is not None else phi[c]
            for j, x in rated:
                w *= slow_emission(model, params, j, x, c, m)
            joint[c] = w
        if hard is not None:
            w = pi[0]
            for j, x in rated:
                w *= q[j, x]
            joint[m] = w
        ll += np.log(joint.sum())
        post = joint / joint.sum()
        tot += post
        for j, x in rated:
            cnt[j, x] += post
    return cnt, tot, ll


def small_data(seed: int, n: int = 60, k: int = 4, m: int = 3, missing: float = 0.25):
    sim = simulate_annotations(n, k, model="M2", n_categories=m, error_rates=0.25,
                               hard_share=0.3, missing=missing, rng=seed)
    return sim.ratings


# --------------------------------------------------------------- bad input
class TestValidation:
    @pytest.mark.parametrize("kw, exc, match", [
        ({"annotators": "dawid-skene"}, ValueError, r"`annotators` must be one of"),
        ({"annotators": 3}, ValueError, r"`annotators` must be one of"),
        ({"annotators": "spam", "hard": "Free"}, ValueError, r"`hard` must be one of"),
        ({"annotators": "confusion", "hard": "free"}, ValueError,
         r"needs `annotators='perfect'`.*swallows one of the true classes"),
        ({"annotators": "one-coin", "hard": "free"}, ValueError, r"not identified"),
        ({"annotators": "spam", "hard": "free"}, ValueError, r"hard='marginal'"),
        ({"annotators": "perfect"}, ValueError, r"needs a hard component"),
        ({"annotators": "spam", "prior_strength": -1}, ValueError, r"`prior_strength`"),
        ({"annotators": "spam", "prior_strength": float("nan")}, ValueError,
         r"`prior_strength`"),
        ({"annotators": "spam", "prior_strength": "0.1"}, TypeError, r"`prior_strength`"),
        ({"annotators": "spam", "max_iter": 0}, ValueError, r"`max_iter`"),
        ({"annotators": "spam", "max_iter": 10.0}, TypeError, r"`max_iter`"),
        ({"annotators": "spam", "n_starts": 0}, ValueError, r"`n_starts`"),
        ({"annotators": "spam", "n_starts": True}, TypeError, r"`n_starts`"),
        ({"annotators": "spam", "tol": -1e-3}, ValueError, r"`tol`"),
    ])
    def test_options(self, kw, exc, match):
        with pytest.raises(exc, match=match):
            LatentClassModel(**kw)

    def test_easy_hard_model_fixes_its_family(self):
        with pytest.raises(TypeError, match=r"EasyHardModel fixes `annotators`"):
            EasyHardModel(annotators="spam")
        with pytest.raises(TypeError, match=r"EasyHardModel fixes `hard`"):
            EasyHardModel(hard="uniform")
        m = EasyHardModel(prior_strength=0.5)
        assert (m.annotators, m.hard, m.prior_strength) == ("perfect", "free", 0.5)

    def test_one_annotator(self):
        with pytest.raises(ValueError, match=r"one annotator.*at least two"):
            LatentClassModel("spam").fit(np.array([[0], [1], [1]]))

    def test_single_category(self):
        with pytest.raises(ValueError, match=r"single category"):
            EasyHardModel().fit(np.array([[1, 1], [1, 1]]))

    def test_no_item_with_two_ratings(self):
        x = np.array([[0, np.nan], [np.nan, 1], [1, np.nan]])
        with pytest.raises(ValueError, match=r"no item of `ratings` has two or more ratings"):
            LatentClassModel("confusion").fit(x)

    def test_all_missing(self):
        with pytest.raises(ValueError, match=r"every rating is missing"):
            EasyHardModel().fit(np.full((4, 3), np.nan))

    def test_count_table_refused(self):
        r = Ratings.from_counts([[2, 1], [0, 3]])
        with pytest.raises(ValueError, match=r"count table"):
            LatentClassModel("confusion").fit(r)

    def test_no_disagreement_is_a_documented_result(self):
        # Every item unanimous: the fits return those labels with posteriors
        # near 1 and a hard share near 0, without warnings.
        x = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0], [1, 1, np.nan], [2, 2, 2]] * 20)
        for ann, hard in [("perfect", "free"), ("confusion", None), ("spam", None),
                          ("one-coin", "uniform")]:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fit = LatentClassModel(ann, hard, rng=0).fit(x)
            assert fit.labels.tolist() == [0, 1, 0, 1, 2] * 20
            assert np.all(fit.label_posterior > 0.99)
            if hard is not None:
                assert fit.pi < 0.01


# ---------------------------------------------------------- the EM engine
class TestEngine:
    # 60 items, 30% of them coin-flips: two starts may end apart (the subject is the E-step).
    @pytest.mark.filterwarnings("ignore::agreement.UnstableStartsWarning")
    @pytest.mark.parametrize("ann, hard", ALL_MODELS)
    def test_estep_matches_slow_reference(self, ann, hard):
        r = small_data(1)
        fit = LatentClassModel(ann, hard, rng=0, n_starts=2).fit(r)
        params = params_of(fit)
        logtab, logw = K.tables(model_code(ann), hard_code(hard), *params)
        cnt, tot, ll = K.estep_counts(r.codes, logtab, logw)
        cnt0, tot0, ll0 = slow_estep(r.codes, ann, hard, params)
        np.testing.assert_allclose(cnt, cnt0, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(tot, tot0, rtol=1e-10)
        assert ll == pytest.approx(ll0, rel=1e-12)
        # The fit's reported log-likelihood is the same quantity.
        assert fit.log_likelihood == pytest.approx(ll0, rel=1e-10)

    @pytest.mark.slow  # compiles the parallel E-step and posterior (9 s of CPU, empty cache)
    @pytest.mark.parametrize("ann, hard", [("perfect", "free"), ("confusion", None),
                                           ("spam", "uniform"), ("one-coin", "marginal")])
    def test_serial_parallel_and_threads_bit_identical(self, ann, hard):
        sim = simulate_annotations(30_000, 6, model="M2" if ann != "perfect" else "M1",
                                   n_categories=3, hard_share=0.2, missing=0.1, rng=4,
                                   **({"error_rates": 0.2} if ann != "perfect" else {}))
        codes = sim.ratings.codes
        model = LatentClassModel(ann, hard, rng=0, n_starts=1)
        fit = model.fit(sim.ratings)
        params = params_of(fit)
        logtab, logw = K.tables(model_code(ann), hard_code(hard), *params)
        serial = K.estep_counts(codes, logtab, logw, parallel=False)
        parallel = K.estep_counts(codes, logtab, logw, parallel=True)
        before = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            one_thread = K.estep_counts(codes, logtab, logw, parallel=True)
            post1 = K.posteriors(codes, logtab, logw, parallel=True)
        finally:
            numba.set_num_threads(before)
        for a, b, c in zip(serial, parallel, one_thread, strict=True):
            assert np.array_equal(a, b) and np.array_equal(a, c)
        post_s = K.posteriors(codes, logtab, logw, parallel=False)
        post_p = K.posteriors(codes, logtab, logw, parallel=True)
        for a, b, c in zip(post_s, post_p, post1, strict=True):
            assert np.array_equal(a, b, equal_nan=True) and np.array_equal(a, c, equal_nan=True)
        # A whole EM run, serial against parallel.
        runs = []
        for par in (False, True):
            p = [np.array(a) for a in params]
            runs.append(K.run_em(codes, model_code(ann), hard_code(hard), 0.1,
                                 2 / 3, 30, 0.0, codes.shape[0], False, 0.1, 0.5, *p,
                                 parallel=par)[0])
        assert np.array_equal(runs[0], runs[1])

    @pytest.mark.parametrize("ann, hard", ALL_MODELS)
    def test_objective_never_decreases(self, ann, hard):
        r = small_data(2, n=300, k=5)
        fit = LatentClassModel(ann, hard, rng=1, n_starts=3).fit(r)
        steps = np.diff(fit.loglik)
        # EM's guarantee, up to float rounding at convergence.
        assert np.all(steps >= -1e-10 * np.abs(fit.loglik[1:]))
        assert fit.converged and fit.n_iter == len(fit.loglik) - 1

    @settings(max_examples=25)
    @given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from(ALL_MODELS),
           prior=st.sampled_from([0.0, 0.1, 1.0]))
    def test_objective_never_decreases_property(self, seed, which, prior):
        ann, hard = which
        rng = np.random.default_rng(seed)
        n, k, m = int(rng.integers(5, 40)), int(rng.integers(2, 5)), int(rng.integers(2, 4))
        x = rng.integers(0, m, size=(n, k)).astype(float)
        x[rng.random((n, k)) < 0.2] = np.nan
        x[0, :2] = [0, 1]  # at least one item with two ratings, and two categories
        r = Ratings.from_wide(x, categories=list(range(m)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = LatentClassModel(ann, hard, prior_strength=prior, rng=seed, n_starts=2,
                                   max_iter=200).fit(r)
        trace = fit.loglik
        assert np.all(np.isfinite(trace))
        assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))

    def test_objective_is_loglik_plus_log_prior(self):
        r = small_data(3, n=200)
        ml = LatentClassModel("confusion", prior_strength=0.0, rng=0).fit(r)
        assert ml.loglik[-1] == pytest.approx(ml.log_likelihood, rel=1e-12)
        a = 0.7
        fit = LatentClassModel("spam", "marginal", prior_strength=a, rng=0).fit(r)
        # Dirichlet/Beta pseudo-counts a: a·Σ log of every estimated probability.
        lp = a * (np.log(fit.phi).sum() + np.log(fit.pi) + np.log1p(-fit.pi)
                  + np.log(fit.competence).sum() + np.log1p(-fit.competence).sum()
                  + np.log(fit.spam_distribution).sum())
        assert fit.loglik[-1] == pytest.approx(fit.log_likelihood + lp, rel=1e-12)

    def test_one_coin_error_rates_capped(self):
        # Annotators at chance: without the cap the best fit is degenerate.
        x = np.random.default_rng(0).integers(0, 3, size=(300, 4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = LatentClassModel("one-coin", rng=0).fit(x)
        assert np.all(fit.error_rate <= 2 / 3)

    def test_merging_identical_rows_is_exact(self):
        # Few annotators: the engine visits each distinct row once, weighted by
        # its count. Same fit as the per-item engine, up to summation order.
        sim = simulate_annotations(20_000, 4, model="M2", n_categories=3, error_rates=0.2,
                                   hard_share=0.2, missing=0.2, rng=12)
        rows, weights, inverse = KR.merge_rows(sim.ratings.codes, 3)
        assert len(rows) < 300 and weights.sum() == 20_000
        assert np.array_equal(rows[inverse], sim.ratings.codes)
        for ann, hard in [("perfect", "free"), ("confusion", None), ("spam", "marginal")]:
            merged = LatentClassModel(ann, hard, rng=0, n_starts=2).fit(sim.ratings)
            per_item = LatentClassModel(ann, hard, rng=0, n_starts=2)
            per_item._merge_rows = False
            per_item = per_item.fit(sim.ratings)
            assert merged.n_iter == per_item.n_iter
            np.testing.assert_allclose(merged.loglik, per_item.loglik, rtol=1e-12)
            np.testing.assert_allclose(merged.class_posterior, per_item.class_posterior,
                                       atol=1e-10)
            assert np.array_equal(merged.label_codes, per_item.label_codes)
            assert merged.log_likelihood == pytest.approx(per_item.log_likelihood, rel=1e-12)
        # The weighted E-step against the slow reference on the expanded rows.
        fit = LatentClassModel("one-coin", "uniform", rng=0).fit(sim.ratings)
        params = params_of(fit)
        logtab, logw = K.tables(K.ONE_COIN, K.HARD_UNIFORM, *params)
        cnt, tot, ll = K.estep_counts(rows, logtab, logw, weights=weights)
        cnt0, tot0, ll0 = slow_estep(rows[np.repeat(np.arange(len(rows)), weights.astype(int))],
                                     "one-coin", "uniform", params)
        np.testing.assert_allclose(cnt, cnt0, rtol=1e-9)
        np.testing.assert_allclose(tot, tot0, rtol=1e-9)
        assert ll == pytest.approx(ll0, rel=1e-11)
        # Many annotators, nearly every row distinct: nothing to merge.
        sparse = simulate_annotations(2000, 40, raters_per_item=5, rng=1).ratings
        assert KR.merge_rows(sparse.codes, 2) is None
        # Rows fit a key but are mostly distinct: not worth merging.
        spread = np.random.default_rng(0).integers(-1, 3, size=(1000, 6)).astype(np.int8)
        assert KR.merge_rows(spread, 3) is None

    def test_reproducible_and_rng_types(self):
        r = small_data(5)
        # on these 60 items near-best starts label many items differently: the fit says so,
        # the same way for a seed and for a generator seeded alike
        with pytest.warns(UnstableStartsWarning, match="unstable_starts"):
            a = LatentClassModel("spam", rng=7).fit(r)
        with pytest.warns(UnstableStartsWarning, match="unstable_starts"):
            b = LatentClassModel("spam", rng=np.random.default_rng(7)).fit(r)
        assert np.array_equal(a.loglik, b.loglik)
        assert np.array_equal(a.class_posterior, b.class_posterior)
        assert np.array_equal(a.start_labels, b.start_labels)

    def test_disable_jit_gives_the_same_fit(self):
        # The kernels run as plain Python under NUMBA_DISABLE_JIT=1.
        code = """
import json, numpy as np
from noise_models import EasyHardModel, LatentClassModel
from simulation import simulate_annotations
r = simulate_annotations(40, 3, model="M2", error_rates=0.2, n_categories=3, missing=0.2,
                         rng=3).ratings
out = {}
for ann, hard in [("perfect", "free"), ("confusion", None), ("spam", "uniform"),
                  ("spam", "difficulty")]:
    f = LatentClassModel(ann, hard, rng=0, n_starts=2, max_iter=50, tol=1e-6).fit(r)
    out[f"{ann}/{hard}"] = [f.loglik.tolist(), f.class_posterior.ravel().tolist()]
print(json.dumps(out))
"""
        env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
        res = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                             text=True, check=True, env=env, cwd=ROOT)
        pure = json.loads(res.stdout.strip().splitlines()[-1])
        r = simulate_annotations(40, 3, model="M2", error_rates=0.2, n_categories=3,
                                 missing=0.2, rng=3).ratings
        for ann, hard in [("perfect", "free"), ("confusion", None), ("spam", "uniform"),
                          ("spam", "difficulty")]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                f = LatentClassModel(ann, hard, rng=0, n_starts=2, max_iter=50,
                                     tol=1e-6).fit(r)
            key = f"{ann}/{hard}"
            np.testing.assert_allclose(f.loglik, pure[key][0], rtol=1e-10)
            np.testing.assert_allclose(f.class_posterior.ravel(), pure[key][1], atol=1e-10)


def model_code(ann: str) -> int:
    return {"perfect": K.PERFECT, "one-coin": K.ONE_COIN, "confusion": K.CONFUSION,
            "spam": K.SPAM}[ann]


def hard_code(hard: str | None) -> int:
    return {"free": K.HARD_FREE, "marginal": K.HARD_MARGINAL, "uniform": K.HARD_UNIFORM,
            None: K.HARD_NONE}[hard]


# ---------------------------------------------------------- the fit object
class TestFit:
    def test_frame_and_labels(self):
        x = pd.DataFrame({"ann1": ["pos", "neg", "pos", None], "ann2": ["pos", "pos", "pos", None],
                          "ann3": ["pos", "neg", None, None]}, index=["a", "b", "c", "d"])
        fit = EasyHardModel(rng=0).fit(x)
        frame = fit.to_frame()
        assert list(frame.columns) == ["label", "label_posterior", "posterior_hard", "n_ratings"]
        assert list(frame.index) == ["a", "b", "c", "d"]
        assert frame["n_ratings"].tolist() == [3, 3, 2, 0]
        assert frame.loc["b", "posterior_hard"] == 1.0 and frame.loc["b", "label_posterior"] == 0
        assert fit.labels.loc["a"] == "pos" and fit.labels.index.equals(frame.index)
        # An item without ratings keeps the prior: P(hard) = π.
        assert frame.loc["d", "posterior_hard"] == pytest.approx(fit.pi)
        ds = LatentClassModel("confusion", rng=0).fit(x)
        assert "posterior_hard" not in ds.to_frame().columns and ds.pi is None and ds.q is None
        assert fit.q.shape == (3, 2) and ds.confusion.shape == (3, 2, 2)
        assert "LatentClassFit(easy/hard M1" in repr(fit)
        assert fit.to_dict()["model"] == "easy/hard M1"
        assert list(ds.annotator_frame().columns) == ["n_ratings", "accuracy", "accuracy_neg",
                                                      "accuracy_pos"]
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            fit.phi[0] = 0.5

    def test_warns_when_not_converged(self):
        r = small_data(6)
        with pytest.warns(ConvergenceWarning, match=r"did not converge in 2 iterations"):
            fit = LatentClassModel("confusion", max_iter=2, n_starts=1).fit(r)
        assert not fit.converged and fit.n_iter == 2

    def test_collapse_rule(self):
        # Majority vote gives class 1 to half the items, the fit to none: warn.
        mv = np.array([0, 1] * 50)
        r = Ratings.from_wide(np.array([[0, 1]] * 100))
        with pytest.warns(ConvergenceWarning, match=r"class\(es\) \[1\] collapsed"):
            _warn_if_degenerate(LatentClassModel("one-coin"), True, 5, np.zeros(100, int), mv,
                                2, r)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _warn_if_degenerate(LatentClassModel("one-coin"), True, 5, mv.copy(), mv, 2, r)

    def test_confusion_labels_follow_category_renaming(self):
        # Dawid–Skene is symmetric in the classes; labels are matched to
        # majority vote, so renaming the categories renames the labels.
        sim = simulate_annotations(500, 4, model="M2", n_categories=3, error_rates=0.3,
                                   hard_share=0.0, rng=8)
        wide = sim.ratings.to_wide()
        names = {0: "x", 1: "y", 2: "z"}
        other = {0: "z", 1: "x", 2: "y"}
        a = LatentClassModel("confusion", rng=0).fit(wide.apply(lambda c: c.map(names)))
        b = LatentClassModel("confusion", rng=0).fit(wide.apply(lambda c: c.map(other)))
        inv_a = {v: k for k, v in names.items()}
        inv_b = {v: k for k, v in other.items()}
        assert a.labels.map(inv_a).tolist() == b.labels.map(inv_b).tolist()
        # Not a permutation of the truth (that would be right on about a third).
        assert (a.labels.map(inv_a).to_numpy() == sim.true_class).mean() > 0.8


# --------------------------------------------------- M1 (the paper's model)
class TestEasyHard:
    def test_labels_are_majority_vote(self):
        for data in (dawid_skene_1979(), small_data(9, n=500, k=6, m=4)):
            fit = EasyHardModel(rng=0).fit(data)
            assert np.array_equal(fit.label_codes, majority_vote(data))

    @pytest.mark.shared_data
    def test_labels_are_majority_vote_on_crowd_data(self, shared_data):
        for name in ("rte", "temp"):
            r = snow(shared_data, name)[0]
            fit = EasyHardModel(rng=0).fit(r)
            assert np.array_equal(fit.label_codes, majority_vote(r))

    def test_posterior_hard_formula(self):
        # SPEC §2.4: 1 on a disagreed item; π Π q[j,c] / (π Π q[j,c] + (1 − π) φ_c)
        # on an item whose annotators all said c.
        r = small_data(10, n=400, k=4, m=3)
        fit = EasyHardModel(rng=0).fit(r)
        codes = r.codes
        for i in range(r.n_items):
            labs = codes[i][codes[i] >= 0]
            if labs.size == 0:
                expect = fit.pi
            elif np.unique(labs).size > 1:
                expect = 1.0
            else:
                c = labs[0]
                prod = np.prod([fit.q[j, c] for j in np.flatnonzero(codes[i] >= 0)])
                expect = fit.pi * prod / (fit.pi * prod + (1 - fit.pi) * fit.phi[c])
            assert fit.posterior_hard[i] == pytest.approx(expect, rel=1e-10, abs=1e-14)

    def test_recovers_pi_and_calibrated_on_agreed_items(self):
        # n = 1e5 items of M1 with annotator biases on hard items.
        q = [[0.5, 0.5], [0.65, 0.35], [0.3, 0.7]]
        sim = simulate_annotations(100_000, 3, hard_share=0.3, class_shares=[0.7, 0.3],
                                   hard_shares=q, rng=11)
        fit = EasyHardModel(rng=0).fit(sim.ratings)
        assert abs(fit.pi - 0.3) < 0.01
        np.testing.assert_allclose(fit.q, q, atol=0.02)
        np.testing.assert_allclose(fit.phi, [0.7, 0.3], atol=0.01)
        counts = np.asarray(sim.ratings.counts)
        agreed = counts.max(axis=1) == 3
        post, hard = fit.posterior_hard[agreed], sim.is_hard[agreed]
        # Calibration: among agreed items with the same posterior (same label),
        # the realised hard share matches it within 4 binomial standard errors.
        for v in np.unique(post):
            sel = post == v
            se = np.sqrt(v * (1 - v) / sel.sum())
            assert abs(hard[sel].mean() - v) < 4 * se + 1e-12
        total_sd = np.sqrt(np.sum(post * (1 - post)))
        assert abs(hard.sum() - post.sum()) < 4 * total_sd


# -------------------------------------------------- fallible annotators
def test_dawid_skene_and_spam_recover_labels_at_1e5():
    er = [0.05, 0.08, 0.1, 0.15, 0.2]
    sim = simulate_annotations(100_000, 5, model="M2", hard_share=0.1, error_rates=er,
                               class_shares=[0.5, 0.3, 0.2], rng=1)
    easy = ~sim.is_hard
    # Oracle: the Bayes labels under the true parameters (hard items ignored).
    k, m = 5, 3
    logtab, logw = K.tables(K.CONFUSION, K.HARD_NONE, sim.phi.copy(), np.zeros(1), np.zeros(k),
                            sim.confusion.copy(), np.zeros(k), np.zeros((k, m)),
                            np.full((k, m), 1 / m))
    oracle = K.posteriors(sim.ratings.codes, logtab, logw)[2]
    best = (oracle[easy] == sim.true_class[easy]).mean()
    for ann in ("confusion", "spam"):
        fit = LatentClassModel(ann, rng=0).fit(sim.ratings)
        acc = (fit.label_codes[easy] == sim.true_class[easy]).mean()
        assert acc > 0.99
        assert acc > best - 1e-3


# --------------------------------------------------------------- real data
@pytest.mark.shared_data
class TestRealData:
    @pytest.mark.parametrize("name, floor", [("rte", 0.925), ("temp", 0.935)])
    @pytest.mark.parametrize("ann", ["confusion", "spam"])
    def test_snow2008_accuracy(self, shared_data, name, floor, ann):
        # Snow et al. (2008); published: Dawid–Skene 0.928 and MACE 0.929 on
        # RTE, majority vote 0.897 (RTE) / 0.936 (temp).
        r, gold = snow(shared_data, name)
        fit = LatentClassModel(ann, rng=0).fit(r)
        assert (fit.labels.to_numpy() == gold).mean() >= floor

    def test_mace_example(self, shared_data):
        # MACE's example data: 2 reliable annotators among 18 near-random ones.
        # Hovy et al. report 0.80 for MACE; majority vote gets 0.33.
        r, gold = mace_example(shared_data)
        fit = LatentClassModel("spam", rng=0).fit(r)
        assert (fit.labels.to_numpy() == gold).mean() >= 0.75
        assert (r.categories[majority_vote(r)] == gold).mean() == pytest.approx(0.33)


# ----------------------------------------- Dawid & Skene (1979), bundled
class TestDawidSkene1979:
    def test_dawid_skene_1979_replicates_share_a_confusion_matrix(self):
        # Dawid & Skene (1979), anaesthesia data, observer 1 three times: their model
        # has one confusion matrix per observer. Its converged maximum-likelihood fit
        # from the majority-vote start is the printed .40/.42/.11/.07; a plain ML EM
        # on that model gives 0.3996/0.4220/0.1118/0.0667, log-likelihood −192.89.
        from goldnoise.datasets import load_dawid_skene1979

        r = Ratings.from_long(load_dawid_skene1979(), item="patient", rater="observer",
                              label="rating", replicates="separate")
        assert r.annotator_of.tolist() == [0, 0, 0, 1, 2, 3, 4]
        fit = LatentClassModel("confusion", prior_strength=0.0, n_starts=1, tol=1e-12).fit(r)
        assert fit.converged
        np.testing.assert_allclose(fit.phi, [0.3996, 0.4220, 0.1118, 0.0667], atol=5e-5)
        np.testing.assert_allclose(fit.phi, [0.40, 0.42, 0.11, 0.07], atol=5e-3)
        assert fit.log_likelihood == pytest.approx(-192.89, abs=5e-3)
        np.testing.assert_allclose(fit.confusion[1], fit.confusion[0], atol=1e-15)
        np.testing.assert_allclose(fit.confusion[2], fit.confusion[0], atol=1e-15)
        # An independent NumPy EM of the shared model: pool observer 1's counts.
        codes = np.asarray(r.codes)
        groups = r.annotator_of
        n, k = codes.shape
        m = 4
        post = np.zeros((n, m))
        for j in range(k):
            post[codes[:, j] >= 0, codes[codes[:, j] >= 0, j]] += 1
        post /= post.sum(axis=1, keepdims=True)
        for _ in range(2000):
            phi = post.mean(axis=0)
            theta = np.zeros((groups.max() + 1, m, m))
            for j in range(k):
                ok = codes[:, j] >= 0
                np.add.at(theta[groups[j]].T, codes[ok, j], post[ok])
            theta /= theta.sum(axis=2, keepdims=True)
            logp = np.tile(np.log(phi), (n, 1))
            for j in range(k):
                ok = codes[:, j] >= 0
                with np.errstate(divide="ignore"):
                    logp[ok] += np.log(theta[groups[j]][:, codes[ok, j]].T)
            post = np.exp(logp - logp.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(fit.phi, phi, atol=1e-8)
        np.testing.assert_allclose(fit.class_posterior, post, atol=1e-7)

    @pytest.mark.parametrize("annotators", ["one-coin", "spam"])
    def test_replicates_share_parameters_in_every_model(self, annotators):
        from goldnoise.datasets import load_dawid_skene1979

        r = Ratings.from_long(load_dawid_skene1979(), item="patient", rater="observer",
                              label="rating", replicates="separate")
        fit = LatentClassModel(annotators, "marginal", n_starts=3, rng=1).fit(r)
        frame = fit.annotator_frame().drop(columns=["n_ratings"], errors="ignore")
        np.testing.assert_allclose(frame.iloc[1], frame.iloc[0], atol=1e-12)
        np.testing.assert_allclose(frame.iloc[2], frame.iloc[0], atol=1e-12)
        assert np.all(np.diff(fit.loglik) >= -1e-9 * np.abs(fit.loglik[1:]))

    def test_dawid_skene_1979_seven_raters(self):
        # Each replicate as its own annotator (seven confusion matrices) is another
        # model: its ML fixed point is .422/.401/.111/.067, not the printed shares.
        r = dawid_skene_1979()
        fit = LatentClassModel("confusion", prior_strength=0.0, n_starts=1, tol=1e-12).fit(r)
        np.testing.assert_allclose(fit.phi, [0.422, 0.401, 0.111, 0.067], atol=5e-4)
        # ...and exactly the fixed point of a plain NumPy Dawid–Skene EM.
        codes = np.asarray(r.codes)
        n, k = codes.shape
        m = 4
        post = np.zeros((n, m))
        for j in range(k):
            post[codes[:, j] >= 0, codes[codes[:, j] >= 0, j]] += 1
        post /= post.sum(axis=1, keepdims=True)
        for _ in range(3000):
            phi = post.mean(axis=0)
            theta = np.zeros((k, m, m))
            for j in range(k):
                ok = codes[:, j] >= 0
                np.add.at(theta[j].T, codes[ok, j], post[ok])
            theta /= theta.sum(axis=2, keepdims=True)
            logp = np.tile(np.log(phi), (n, 1))
            for j in range(k):
                ok = codes[:, j] >= 0
                with np.errstate(divide="ignore"):
                    logp[ok] += np.log(theta[j][:, codes[ok, j]].T)
            post = np.exp(logp - logp.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(fit.phi, phi, atol=1e-8)
        np.testing.assert_allclose(fit.class_posterior, post, atol=1e-7)

    def test_crowdkit_dawid_skene_agrees(self):
        # crowd-kit's DawidSkene (same start, run to its fixed point) is an
        # independent implementation; it floors probabilities at 1e-10.
        crowdkit = pytest.importorskip("crowdkit.aggregation")
        r = dawid_skene_1979()
        long = r.to_long().rename(columns={"item": "task", "rater": "worker"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ck = crowdkit.DawidSkene(n_iter=120, tol=-1.0).fit(long)
        fit = LatentClassModel("confusion", prior_strength=0.0, n_starts=1, tol=1e-13).fit(r)
        ck_phi = ck.priors_.reindex(r.categories).to_numpy()
        np.testing.assert_allclose(fit.phi, ck_phi, atol=1e-6)
        ck_post = ck.probas_.reindex(index=r.items, columns=r.categories).to_numpy()
        np.testing.assert_allclose(fit.class_posterior, ck_post, atol=1e-5)


@pytest.mark.slow
def test_parallel_kernels_load_from_the_cache(tmp_path):
    # cache=True on parallel kernels (pynndescent had trouble there): a second
    # process must load the parallel E-step, the rest of an EM iteration and the
    # parallel posterior pass from the cache instead of compiling them again. The
    # parallel E-step is called from Python only, never from a compiled driver.
    code = (
        "from noise_models import LatentClassModel\n"
        "from noise_models.latent_class import _kernels as K\n"
        "from noise_models.latent_class import _kernels_rows as KR\n"
        "from simulation import simulate_annotations\n"
        "r = simulate_annotations(26_000, 40, raters_per_item=5, rng=0).ratings\n"
        "assert KR.merge_rows(r.codes, 2) is None and r.codes.size >= K.PARALLEL_THRESHOLD\n"
        "LatentClassModel('spam', n_starts=2, rng=0).fit(r)\n"
        "names = ['_estep_parallel', '_em_after_estep', '_posterior_parallel']\n"
        "print(' '.join(f'{sum(getattr(K, n).stats.cache_hits.values())},'\n"
        "               f'{sum(getattr(K, n).stats.cache_misses.values())}' for n in names))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env, cwd=ROOT).stdout.split()
    assert first == ["0,1"] * 3, first  # compiled once, cached
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env, cwd=ROOT).stdout.split()
    assert second == ["1,0"] * 3, second  # loaded, not compiled
