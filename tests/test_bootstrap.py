"""The bootstrap engine: replicates, Poisson keying, intervals (SPEC §3, issue "bootstrap")."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.stats

import agreement as ag
from _goldnoise_lib.resampling import weights as _resample
from _goldnoise_lib.resampling.intervals import acceleration, confidence_intervals
from agreement import BootstrapResult, DegenerateDataWarning, Ratings, bootstrap
from agreement import _bootstrap as _engine

COUNT = ["percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac1"]
RATER = ["conger_kappa", "light_kappa"]
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def _data(n, k, m, missing, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, m + 1, size=n)
    x = np.where(rng.random((n, k)) < 0.6, truth[:, None],
                 rng.integers(1, m + 1, size=(n, k))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x


X2 = _data(40, 2, 3, 0.1, 0)  # two annotators, missing ratings
X4 = _data(30, 4, 4, 0.2, 1)  # four annotators, missing ratings
CATS = {3: [1.0, 2.0, 3.0], 4: [1.0, 2.0, 3.0, 4.0]}


def _cases():
    for name in [*COUNT, "scott_pi", "cohen_kappa", *RATER]:
        for w in (None, "linear", "quadratic"):
            yield name, X2, {"weights": w}
    for name in [*COUNT, *RATER]:
        for w in (None, "quadratic"):
            yield name, X4, {"weights": w}
    for level in LEVELS:
        yield "krippendorff_alpha", X2, {"level": level}
        yield "krippendorff_alpha", X4, {"level": level}


def _recompute(name, x, kw):
    r = Ratings.from_wide(x, categories=CATS[int(np.nanmax(X4 if x.shape[1] == 4 else X2))])
    with np.errstate(all="ignore"):
        return getattr(ag, name)(r, **{k: v for k, v in kw.items() if v is not None}).value


CASES = list(_cases())


@pytest.mark.parametrize(("name", "x", "kw"), CASES,
                         ids=[f"{c[0]}-{c[1].shape[1]}-{c[2]}" for c in CASES])
def test_replicate_equals_recomputation_on_resampled_labels(name, x, kw):
    # Multiplicities passed explicitly: every replicate is the coefficient of the
    # resampled raw labels (items repeated), to 1e-12.
    r = Ratings.from_wide(x, categories=CATS[3 if x.shape[1] == 2 else 4])
    plan, _ = _engine._plan([ag._item_stats.coefficient_info(name)], r, kw.get("weights"),
                            kw.get("level"))
    rng = np.random.default_rng(7)
    n = plan.kept.size
    draws = rng.integers(0, n, size=(6, n))
    mult = np.stack([np.bincount(d, minlength=n) for d in draws])
    got = _engine.replicates_from_multiplicity(plan, mult)[:, 0]
    for d, value in zip(draws, got, strict=True):
        ref = _recompute(name, x[plan.kept][np.sort(d)], kw)
        assert value == pytest.approx(ref, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("stats", [[*COUNT, "krippendorff_alpha"], [*RATER, "cohen_kappa"]])
def test_multinomial_replicates_are_resamples_of_the_items(stats):
    # The fused kernel's replicates equal the coefficients recomputed on the items it
    # drew: counts from the same seeds, each pattern's representative item repeated.
    x = X2
    r = Ratings.from_wide(x, categories=CATS[3])
    res = bootstrap(stats, r, n_resamples=5, rng=11)
    plan, _ = _engine._plan([ag._item_stats.coefficient_info(s) for s in stats], r, None, None)
    counts = _resample.multinomial_counts(plan.freq, _resample.replicate_seeds(11, 5))
    assert (counts.sum(axis=1) == plan.kept.size).all()
    first = np.array([np.flatnonzero(plan.groups == p)[0] for p in range(plan.freq.size)])
    for b in range(5):
        items = plan.kept[np.repeat(first, counts[b])]
        for s, name in enumerate(stats):
            ref = _recompute(name, x[items], {})
            assert res.bootstrap_distribution[b, s] == pytest.approx(ref, abs=1e-12)


def test_same_seed_same_bits_whatever_the_thread_count():
    x = _data(5000, 5, 3, 0.1, 2)
    kwargs = dict(n_resamples=300, rng=3)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = bootstrap(["fleiss_kappa", "krippendorff_alpha"], x, **kwargs)
        pois1 = bootstrap("gwet_ac1", x, scheme="poisson", **kwargs)
        numba.set_num_threads(before)
        many = bootstrap(["fleiss_kappa", "krippendorff_alpha"], x, **kwargs)
        pois = bootstrap("gwet_ac1", x, scheme="poisson", **kwargs)
    finally:
        numba.set_num_threads(before)
    assert one.bootstrap_distribution.tobytes() == many.bootstrap_distribution.tobytes()
    assert pois1.bootstrap_distribution.tobytes() == pois.bootstrap_distribution.tobytes()
    other = bootstrap(["fleiss_kappa", "krippendorff_alpha"], x, n_resamples=300, rng=4)
    assert not np.array_equal(other.bootstrap_distribution, many.bootstrap_distribution)


# ------------------------------------------------------------------ Poisson scheme
def test_poisson_identical_whole_chunked_and_reordered():
    rng = np.random.default_rng(5)
    x = _data(700, 3, 3, 0.1, 5)
    ids = [f"item-{i}" for i in range(700)]
    r = Ratings.from_wide(x, categories=CATS[3], items=ids)
    st = ag.item_statistics(r, "fleiss_kappa")
    seed = _resample.poisson_seed(9)
    keys = _resample.item_keys(r.items)
    whole = _resample.combine_pattern_counts(
        [_resample.poisson_pattern_counts(seed, keys, st.values, 200)])
    perm = rng.permutation(700)
    chunks = np.array_split(perm, 7)
    parts = [_resample.poisson_pattern_counts(seed, keys[c], st.values[c], 200) for c in chunks]
    merged = _resample.combine_pattern_counts(parts[::-1])
    assert np.array_equal(whole[0], merged[0]) and np.array_equal(whole[1], merged[1])
    sums_whole = _resample.replicate_sums(whole[1], whole[0])
    sums_chunks = _resample.replicate_sums(merged[1], merged[0])
    assert sums_whole.tobytes() == sums_chunks.tobytes()
    # per-chunk sums add up to rounding
    added = sum(_resample.poisson_replicate_sums(seed, np.asarray(ids)[c], st.values[c], 200)
                for c in chunks)
    np.testing.assert_allclose(added, sums_whole, rtol=0, atol=1e-9)
    # the engine: the same replicates with the items reordered (ids travel with them)
    res = bootstrap("fleiss_kappa", r, scheme="poisson", n_resamples=200, rng=9)
    res_perm = bootstrap("fleiss_kappa", r.take(perm), scheme="poisson", n_resamples=200, rng=9)
    assert res.bootstrap_distribution.tobytes() == res_perm.bootstrap_distribution.tobytes()
    np.testing.assert_allclose(res.bootstrap_distribution[:, 0],
                               st.finalize(sums_whole).value, rtol=0, atol=1e-12)


def test_poisson_weights_are_poisson_and_keyed():
    keys = _resample.item_keys(np.arange(20000))
    w = _resample.poisson_weights(123, keys, 3)
    # chi-square goodness of fit to Poisson(1), bins 0..4 and ≥ 5
    obs = np.bincount(np.minimum(w[0], 5), minlength=6)
    p = scipy.stats.poisson(1).pmf(np.arange(5))
    exp = 20000 * np.append(p, 1 - p.sum())
    assert scipy.stats.chisquare(obs, exp).pvalue > 0.001
    assert abs(np.corrcoef(w[0], w[1])[0, 1]) < 0.03  # replicates independent
    # the weight depends on (seed, key, replicate) only
    assert np.array_equal(_resample.poisson_weights(123, keys[::-1], 3, first=0)[:, ::-1], w)
    assert np.array_equal(_resample.poisson_weights(123, keys, 2, first=1), w[1:])
    assert not np.array_equal(_resample.poisson_weights(124, keys, 1), w[:1])
    assert _resample.item_keys(["a"])[0] == _resample.item_keys(np.array(["a"]))[0]


def test_stratified_counts_keep_stratum_sizes():
    freq = np.array([3, 1, 4, 1, 5])
    strata = np.array([1, 0, 1, 0, 1])
    c = _resample.multinomial_counts(freq, _resample.replicate_seeds(0, 50), strata)
    assert (c[:, strata == 1].sum(axis=1) == 12).all() and (c[:, strata == 0].sum(axis=1) == 2).all()
    plain = _resample.multinomial_counts(freq, _resample.replicate_seeds(0, 4000))
    # each pattern drawn Binomial(n, f_p / n): mean f_p
    np.testing.assert_allclose(plain.mean(axis=0), freq, rtol=0.06)


# -------------------------------------------------------------------------- BCa
@pytest.mark.parametrize("name", ["fleiss_kappa", "krippendorff_alpha", "cohen_kappa"])
def test_bca_matches_slow_jackknife_and_scipy(name):
    x = X2
    r = Ratings.from_wide(x, categories=CATS[3])
    res = bootstrap(name, r, n_resamples=500, method="bca", rng=2)
    fn = getattr(ag, name)
    n = x.shape[0]
    with np.errstate(all="ignore"):
        slow = np.array([fn(Ratings.from_wide(np.delete(x, i, axis=0), categories=CATS[3])).value
                         for i in range(n)])
    # textbook acceleration, Efron & Tibshirani (1993) eq. 14.15, straight from the definition
    u = slow.mean() - slow
    a_slow = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
    assert acceleration(res.jackknife, res.jackknife_weights)[0] == pytest.approx(a_slow,
                                                                                  abs=1e-10)

    class Given:
        bootstrap_distribution = res.bootstrap_distribution[:, 0]

    def statistic(idx):
        return fn(Ratings.from_wide(x[idx.astype(int)], categories=CATS[3])).value

    ref = scipy.stats.bootstrap((np.arange(n),), statistic, vectorized=False, method="BCa",
                                n_resamples=0, bootstrap_result=Given, confidence_level=0.95)
    assert res.interval.low[0] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert res.interval.high[0] == pytest.approx(ref.confidence_interval.high,
                                                            abs=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic"])
def test_percentile_and_basic_match_scipy(method):
    rng = np.random.default_rng(0)
    est, dist = np.array([0.3]), rng.normal(0.3, 0.1, size=(999, 1))

    class Given:
        bootstrap_distribution = dist[:, 0]

    ref = scipy.stats.bootstrap((np.zeros(5),), lambda v: 0.3, vectorized=False, method=method,
                                n_resamples=0, bootstrap_result=Given)
    iv = confidence_intervals(est, dist, method=method, confidence_level=0.95)
    assert (iv.low[0], iv.high[0]) == pytest.approx(tuple(ref.confidence_interval), abs=1e-14)
    assert iv.standard_error[0] == pytest.approx(ref.standard_error, abs=1e-14)


# --------------------------------------------------------- paired, degenerate, clipping
def test_difference_is_paired():
    res = bootstrap(["gwet_ac1", ag.fleiss_kappa], X4, n_resamples=400, rng=0)
    d = res.difference("gwet_ac1", "fleiss_kappa")
    assert isinstance(d, BootstrapResult) and d.statistics == ("gwet_ac1 - fleiss_kappa",)
    diff = res.bootstrap_distribution[:, 0] - res.bootstrap_distribution[:, 1]
    assert d.interval.low[0] == pytest.approx(np.quantile(diff, 0.025), abs=1e-15)
    assert d.estimate[0] == pytest.approx(res.estimate[0] - res.estimate[1], abs=1e-15)
    # paired: far narrower than if the two were independent
    assert d.standard_error[0] < 0.5 * np.hypot(*res.standard_error)
    bca = bootstrap(["gwet_ac1", "fleiss_kappa"], X4, n_resamples=400, rng=0, method="bca")
    assert np.isfinite(bca.difference(ag.gwet_ac1, "fleiss_kappa").interval.low[0])
    with pytest.raises(ValueError, match="unknown statistic 'scott_pi'"):
        res.difference("scott_pi", "gwet_ac1")


def test_degenerate_resamples_counted_and_noted():
    # two unanimous items in category 1 and one split item: a resample of only the
    # unanimous items has chance agreement 1.
    x = np.array([[1, 1], [1, 1], [1, 2]] * 2)
    res = bootstrap("fleiss_kappa", x, n_resamples=300, rng=1)
    n_nan = int(np.isnan(res.bootstrap_distribution).sum())
    assert res.n_degenerate[0] == n_nan > 0
    assert any("resamples degenerate" in n for n in res.notes)
    assert np.isfinite(res.standard_error[0])


def test_interval_clipped_to_range_with_note():
    x = np.array([[1, 1]] * 40 + [[1, 2]] + [[2, 2]] * 40)
    res = bootstrap("fleiss_kappa", x, n_resamples=500, method="basic", rng=0)
    assert res.interval.high[0] == 1.0
    assert any("clipped" in n for n in res.notes)


def test_undefined_estimate_warns():
    with pytest.warns(DegenerateDataWarning, match="undefined"):
        res = bootstrap("fleiss_kappa", [[1, 1], [1, 1]], n_resamples=10, rng=0)
    assert np.isnan(res.estimate[0]) and np.isnan(res.interval.low[0])


def test_items_without_ratings_are_not_resampled_and_repr():
    x = np.vstack([X2, [[np.nan, np.nan]]])
    res = bootstrap("scott_pi", x, n_resamples=50, rng=0)
    assert res.n_items == X2.shape[0]
    assert "1 items without a rating are not resampled" in res.notes
    text = repr(res)
    assert text.startswith("BootstrapResult(50 multinomial resamples of 40 items")
    assert "scott_pi" in text
    assert set(res.to_frame().columns) == {"estimate", "standard_error", "low", "high",
                                           "n_degenerate"}
    assert res.to_dict()["statistics"]["scott_pi"]["n_degenerate"] == 0
    counts = Ratings.from_counts([[2, 0], [1, 1], [0, 2], [2, 0]] * 5)
    assert np.isfinite(bootstrap("fleiss_kappa", counts, n_resamples=20, rng=0).estimate[0])


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"statistics": "fleiss"}, ValueError, "`coefficient` must be one of"),
    ({"statistics": []}, ValueError, "at least one coefficient"),
    ({"statistics": ["gwet_ac1", "gwet_ac1"]}, ValueError, "names a coefficient twice"),
    ({"n_resamples": 0}, ValueError, "`n_resamples` must be an integer ≥ 1"),
    ({"n_resamples": 9.5}, TypeError, "`n_resamples` must be an integer"),
    ({"method": "BCa"}, ValueError, "`method` must be one of"),
    ({"method": 1}, TypeError, "`method` must be one of"),
    ({"scheme": "bayes"}, ValueError, "`scheme` must be one of"),
    ({"confidence_level": 1.5}, ValueError, "confidence_level"),
    ({"level": "interval"}, ValueError, "`level` applies to Krippendorff"),
    ({"statistics": "krippendorff_alpha", "weights": "linear"}, ValueError,
     "`weights` does not apply"),
    ({"ratings": [[np.nan, np.nan]]}, ValueError, "every rating is missing|at least one"),
])
def test_bootstrap_validation(kwargs, error, match):
    args = {"statistics": "fleiss_kappa", "ratings": X2, **kwargs}
    with pytest.raises(error, match=match):
        bootstrap(args.pop("statistics"), args.pop("ratings"), **args)


# ------------------------------------------------------------------- calibration
def _easy_hard(n, k, pi, rng):
    # A share π of easy items, unanimous; hard items k independent fair coin flips: the
    # population Fleiss κ and α are both π (PA = π + (1 − π)/2, PE = 1/2).
    easy = rng.random(n) < pi
    base = rng.integers(0, 2, size=n)
    flips = rng.integers(0, 2, size=(n, k))
    return np.where(easy[:, None], base[:, None], flips)


def test_bootstrap_se_close_to_analytic_se_on_large_data():
    rng = np.random.default_rng(4)
    x = _easy_hard(20000, 5, 0.6, rng)
    res = bootstrap(["fleiss_kappa", "gwet_ac1", "krippendorff_alpha"], x, n_resamples=999,
                    rng=5)
    for s, fn in enumerate((ag.fleiss_kappa, ag.gwet_ac1, ag.krippendorff_alpha)):
        analytic = fn(x).standard_error
        assert res.standard_error[s] == pytest.approx(analytic, rel=0.10)


@pytest.mark.parametrize("n_sets", [pytest.param(1000, marks=pytest.mark.slow), 250])
def test_percentile_coverage_of_fleiss_kappa_and_alpha(n_sets):
    # As scipy tests its own bootstrap: over 1,000 simulated data sets the 95%
    # percentile intervals cover the population value π within binomial error.
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(2024)
    pi = 0.6
    hits = np.zeros(2, dtype=int)
    for s in range(n_sets):
        x = _easy_hard(300, 3, pi, rng)
        res = bootstrap(["fleiss_kappa", "krippendorff_alpha"], x, n_resamples=999, rng=s)
        hits += (res.interval.low <= pi) & (pi <= res.interval.high)
    for h in hits:
        assert scipy.stats.binomtest(int(h), n_sets, 0.95).pvalue > 0.01, h
        lo, hi = proportion_confint(int(h), n_sets, alpha=0.01, method="wilson")
        assert lo <= 0.95 <= hi


# ---------------------------------------------------------------- kernel references
_MASK = (1 << 64) - 1
_PHI = 0x9E3779B97F4A7C15


def _mix_py(z):
    # SplitMix64's finaliser in Python integers (Steele, Lea & Flood 2014)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _poisson_py(seed, key, rep):
    h = _mix_py((seed + _PHI) & _MASK)
    h = _mix_py(h ^ ((key + 2 * _PHI) & _MASK))
    h = _mix_py(h ^ ((rep + 3 * _PHI) & _MASK))
    u = (h >> 11) / 2.0**53
    k, term, cdf = 0, np.exp(-1.0), np.exp(-1.0)
    while u >= cdf and k < 24:  # inversion of the Poisson(1) CDF, term by term
        k += 1
        term /= k
        cdf += term
    return k


def test_keyed_poisson_matches_a_pure_python_reference():
    keys = np.array([0, 1, 2**40 + 7, 2**63 + 5, 2**64 - 1], dtype=np.uint64)
    w = _resample.poisson_weights(2**62 + 3, keys, 40, first=5)
    ref = [[_poisson_py(2**62 + 3, int(k), 5 + b) for k in keys] for b in range(40)]
    assert w.tolist() == ref


def test_serial_and_parallel_builds_agree():
    from _goldnoise_lib.resampling import _kernels

    rng = np.random.default_rng(0)
    freq = rng.integers(1, 50, size=30)
    rows = rng.random((30, 7))
    seeds = _resample.replicate_seeds(1, 64)
    starts = np.array([0, 30], dtype=np.int64)
    outs = []
    for build in _kernels.multinomial_sums:
        out = np.zeros((64, 7))
        build(seeds, freq.astype(np.int64), starts, rows, out)
        outs.append(out)
    assert outs[0].tobytes() == outs[1].tobytes()
    h = _resample.item_hashes(3, np.arange(1000, dtype=np.uint64))
    groups = rng.integers(0, 9, size=1000)
    counts = []
    for build in _kernels.poisson_counts:
        out = np.zeros((16, 9), dtype=np.int64)
        build(h, groups, np.uint64(0), _kernels.POISSON_CDF, out)
        counts.append(out)
    assert np.array_equal(counts[0], counts[1])
    w = _resample.poisson_weights(3, np.arange(1000), 16)
    ref = np.stack([np.bincount(groups, weights=w[b], minlength=9) for b in range(16)])
    assert np.array_equal(counts[0], ref)


def test_count_table_alpha_and_fleiss_equal_the_wide_data():
    # A count table carries what Fleiss' κ and α need: same replicates as the wide labels.
    x = np.array([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, 3], [1, 1, 1], [2, 3, 3]] * 4)
    wide = Ratings.from_wide(x)
    counts = Ratings.from_counts(wide.counts, categories=wide.categories)
    a = bootstrap(["fleiss_kappa", "krippendorff_alpha"], wide, n_resamples=200, rng=3)
    b = bootstrap(["fleiss_kappa", "krippendorff_alpha"], counts, n_resamples=200, rng=3)
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=0, atol=1e-14)
    assert a.estimate[1] == pytest.approx(ag.krippendorff_alpha(x).value, abs=1e-12)
    # patterns are ordered by their rows, so the same seed draws the same resamples
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, rtol=0,
                               atol=1e-12)


@pytest.mark.slow
def test_parallel_kernels_load_from_the_cache(tmp_path):
    # cache=True on parallel kernels that draw random numbers: a second process must
    # load them from the cache, not compile them again.
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = (
        "import numpy as np\n"
        "from agreement import bootstrap\n"
        "from _goldnoise_lib.resampling import _kernels as K\n"
        "x = np.random.default_rng(0).integers(0, 3, size=(3000, 5))\n"
        "bootstrap(['fleiss_kappa', 'krippendorff_alpha'], x, n_resamples=2000, rng=0)\n"
        "bootstrap('fleiss_kappa', x, n_resamples=300, scheme='poisson', rng=0)\n"
        "ks = [K.multinomial_sums[1], K.poisson_counts[1]]\n"
        "print(' '.join(f'{sum(k.stats.cache_hits.values())},'\n"
        "               f'{sum(k.stats.cache_misses.values())}' for k in ks))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(root)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env, cwd=root).stdout.split()
    assert first == ["0,1", "0,1"], first  # compiled once, cached
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env, cwd=root).stdout.split()
    assert second == ["1,0", "1,0"], second  # loaded, not compiled


@pytest.mark.parametrize("stats", [["fleiss_kappa", "krippendorff_alpha"], ["cohen_kappa"]])
def test_multinomial_replicates_do_not_depend_on_item_order(stats):
    perm = np.random.default_rng(8).permutation(X2.shape[0])
    r = Ratings.from_wide(X2, categories=CATS[3])
    a = bootstrap(stats, r, n_resamples=100, rng=6, method="bca")
    b = bootstrap(stats, r.take(perm), n_resamples=100, rng=6, method="bca")
    assert a.bootstrap_distribution.tobytes() == b.bootstrap_distribution.tobytes()
    np.testing.assert_allclose(a.interval.low, b.interval.low, atol=1e-14)


def test_acceleration_skips_undefined_leave_one_out_values():
    jk = np.array([[0.1], [0.2], [np.nan], [0.4]])
    ref = acceleration(np.array([[0.1], [0.2], [0.4]]))
    assert acceleration(jk)[0] == pytest.approx(ref[0], abs=1e-15)
    assert np.isnan(acceleration(np.array([[0.3], [0.3]]))[0])
    # weights stand for repeated rows
    assert acceleration(np.array([[0.1], [0.5]]), [3, 1])[0] == pytest.approx(
        acceleration(np.array([[0.1], [0.1], [0.1], [0.5]]))[0], abs=1e-15)


def test_kernels_give_the_same_bits_without_jit(tmp_path):
    # The kernels run as plain Python under NUMBA_DISABLE_JIT=1 (NumPy's own legacy
    # generator, seeded per replicate, takes the place of Numba's): same replicates.
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = (
        "import warnings, numpy as np\n"
        "warnings.simplefilter('ignore')  # uint64 wrap-around warns in plain Python\n"
        "from agreement import bootstrap\n"
        "x = np.random.default_rng(0).integers(0, 3, size=(60, 3))\n"
        "a = bootstrap(['fleiss_kappa', 'krippendorff_alpha'], x, n_resamples=20, rng=1)\n"
        "b = bootstrap('gwet_ac1', x, n_resamples=20, rng=1, scheme='poisson')\n"
        "print(a.bootstrap_distribution.tobytes().hex(), b.bootstrap_distribution.tobytes().hex())\n"
    )
    outs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable, "PYTHONPATH": str(root)}
        outs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   check=True, env=env, cwd=root).stdout)
    assert outs[0] == outs[1]


from budget import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=60),
       st.floats(-5, 5, allow_nan=False), st.sampled_from([0.5, 0.8, 0.95]))
def test_interval_properties(values, estimate, level):
    dist = np.array(values)[:, None]
    est = np.array([estimate])
    pct = confidence_intervals(est, dist, method="percentile", confidence_level=level)
    basic = confidence_intervals(est, dist, method="basic", confidence_level=level)
    # percentile limits lie within the replicates; basic is their reflection about θ̂
    assert dist.min() - 1e-12 <= pct.low[0] <= pct.high[0] <= dist.max() + 1e-12
    assert basic.low[0] == pytest.approx(2 * estimate - pct.high[0], abs=1e-12)
    assert basic.high[0] == pytest.approx(2 * estimate - pct.low[0], abs=1e-12)
    # NaN replicates are left out, not counted as values
    padded = np.vstack([dist, [[np.nan]]])
    again = confidence_intervals(est, padded, method="percentile", confidence_level=level)
    assert (again.low[0], again.high[0]) == (pct.low[0], pct.high[0])
    assert again.n_used[0] == len(values)
    clipped = confidence_intervals(est, dist, method="basic", confidence_level=level,
                                   bounds=[(-1.0, 1.0)])
    assert -1.0 <= clipped.low[0] <= clipped.high[0] <= 1.0
    beyond = confidence_intervals(np.array([0.99]), np.full((50, 1), 0.9), method="basic",
                                  confidence_level=level, bounds=[(-np.inf, 1.0)])
    assert (beyond.low[0], beyond.high[0]) == (1.0, 1.0) and beyond.clipped[0]


def test_the_cores_two_entry_points_draw_the_same_resamples():
    # bootstrap_sums (rows summed by the kernel) and bootstrap_refit (the statistic recomputed
    # from each resample's counts) draw the same multinomial counts from the same seed, so a
    # mean gets the same replicates either way; the blocks of bootstrap_refit change nothing.
    from _goldnoise_lib.resampling import bootstrap_refit, bootstrap_sums

    x = np.random.default_rng(3).normal(size=150)
    rows = np.column_stack([np.ones(150), x])
    by_sums = bootstrap_sums(rows, lambda s: s[..., 1:] / s[..., :1], names=["mean"],
                             n_resamples=300, rng=5)

    def mean(counts):
        return (counts @ x / counts.sum(axis=1))[:, None]

    for block in (1, 7, None):
        by_refit = bootstrap_refit(mean, 150, names=["mean"], estimate=[x.mean()],
                                   n_resamples=300, rng=5, block=block)
        np.testing.assert_allclose(by_refit.bootstrap_distribution,
                                   by_sums.bootstrap_distribution, rtol=0, atol=1e-12)
        assert by_refit.estimate[0] == pytest.approx(by_sums.estimate[0], abs=1e-15)


def test_bootstrap_refit_resamples_within_strata():
    from _goldnoise_lib.resampling import bootstrap_refit

    strata = np.repeat([0, 1], [30, 70])
    seen = []

    def share(counts):
        seen.append(counts)
        return (counts[:, :30].sum(axis=1) / counts.sum(axis=1))[:, None]

    res = bootstrap_refit(share, 100, names=["share"], estimate=[0.3], n_resamples=50,
                          rng=0, strata=strata, bounds=[[0.0, 1.0]])
    counts = np.concatenate(seen)
    assert (counts[:, :30].sum(axis=1) == 30).all() and (counts.sum(axis=1) == 100).all()
    assert (res.bootstrap_distribution == 0.3).all() and res.notes == ()
