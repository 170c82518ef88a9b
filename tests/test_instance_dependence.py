"""Instance dependence of label noise from soft labels (SPEC §2.8, CILN paper).

Reference: Islam, Kristiadi & Milani (2026), *Benchmarking Instance-Dependent
Label Noise with Controlled Corruptions* (CILN), §II-B eq. (1), §IV-A2 (nth),
Table III (attractor class, purity). Every statistic is checked against a
direct implementation written from the paper's definition.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import noise_models
from agreement import DegenerateDataWarning, Ratings, ShapeError
from noise_models import (
    AttractorResult,
    LabelEntropyResult,
    NoiseRateResult,
    SoftLabels,
    TransitionHeterogeneityResult,
    TVDistanceResult,
    attractor_class,
    instance_dependence_report,
    label_entropy,
    noise_rate,
    noise_transition_heterogeneity,
    sample_hard_labels,
    tv_distance,
)
from noise_models.instance import _kernels as kernels

# --------------------------------------------------------------------------- references


def nth_direct(p: np.ndarray, y: np.ndarray) -> float:
    """CILN §IV-A2, written as printed: (1/N) Σ_k Σ_{i∈I_k} ‖p̄_i − p̄(·|y=k)‖²."""
    total = 0.0
    for k in np.unique(y):
        rows = p[y == k]
        total += float(((rows - rows.mean(axis=0)) ** 2).sum())
    return total / len(p)


def nth_exact(p: np.ndarray, y: np.ndarray) -> Fraction:
    """nth of the float inputs in exact rational arithmetic (slow; small data only)."""
    total = Fraction(0)
    for k in np.unique(y):
        rows = [[Fraction(float(v)) for v in row] for row in p[y == k]]
        mean = [sum(col, Fraction(0)) / len(rows) for col in zip(*rows, strict=True)]
        total += sum(sum((v - m) ** 2 for v, m in zip(row, mean, strict=True)) for row in rows)
    return total / len(p)


def tv_direct(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.array([0.5 * sum(abs(a - b) for a, b in zip(pi, qi, strict=True))
                     for pi, qi in zip(p, q, strict=True)])


def random_soft(rng, n, k, *, concentration=0.5, n_labels=None):
    p = rng.dirichlet(np.full(k, concentration), size=n)
    y = rng.integers(0, k if n_labels is None else n_labels, size=n)
    return p, y


def ccn(rng, n, k):
    """Class-conditional noise: every instance of class k has row T[k]."""
    t = rng.dirichlet(np.ones(k), size=k)
    y = rng.integers(0, k, size=n)
    return t, t[y], y


# --------------------------------------------------------------------------- nth
# nth of class-conditional noise is 0 up to rounding: the computed class mean
# differs from T[k] by at most (chunk rows)·ε per coordinate ≈ 1638·1.1e-16 ≈
# 2e-13 (K = 10), so nth ≤ K·(2e-13)² ≈ 4e-25. We assert ≤ 1e-24; observed
# values are ~1e-30.
CCN_TOL = 1e-24


# 15,000 × 10 stays below the parallel builds' size; 60,000 × 10 takes them (with --slow).
@pytest.mark.parametrize(("n", "k"), [(50, 2), (1000, 3), (15_000, 10),
                                      pytest.param(60_000, 10, marks=pytest.mark.slow)])
def test_nth_zero_for_class_conditional_noise(n, k):
    rng = np.random.default_rng(n + k)
    t, p, y = ccn(rng, n, k)
    res = noise_transition_heterogeneity(SoftLabels(p, y))
    assert 0.0 <= res.nth <= CCN_TOL
    np.testing.assert_allclose(res.transition.to_numpy(), t, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(res.class_counts.to_numpy(), np.bincount(y, minlength=k))


def test_nth_positive_and_exact_for_one_deviating_instance():
    # Class k: N_k rows equal to T[k] but one at T[k] + d (Σd = 0). Then
    # Σ_{i∈I_k}‖p_i − p̄_k‖² = ‖d‖²(N_k − 1)/N_k exactly (a two-point variance).
    rng = np.random.default_rng(3)
    t, p, y = ccn(rng, 400, 4)
    t[1] = [0.4, 0.3, 0.2, 0.1]
    p = t[y].copy()
    i = int(np.flatnonzero(y == 1)[0])
    d = np.array([0.05, -0.05, 0.02, -0.02])
    p[i] += d
    n1 = int((y == 1).sum())
    expected = float(d @ d) * (n1 - 1) / n1 / len(y)
    res = noise_transition_heterogeneity(SoftLabels(p, y))
    assert res.nth > 0
    assert res.nth == pytest.approx(expected, rel=1e-12)
    assert res.class_nth.iloc[1] == pytest.approx(expected, rel=1e-12)


# Below the parallel builds' 200,000 cells; the two larger ones take them (with --slow).
@pytest.mark.parametrize(("n", "k", "n_labels"), [
    (7, 3, None), (500, 5, None), (19_000, 10, None), (19_001, 10, 7), (3000, 40, None),
    pytest.param(20_000, 10, None, marks=pytest.mark.slow),
    pytest.param(30_011, 10, 7, marks=pytest.mark.slow),
])
def test_nth_matches_direct_numpy(n, k, n_labels):
    rng = np.random.default_rng(n * k)
    p, y = random_soft(rng, n, k, n_labels=n_labels)
    res = noise_transition_heterogeneity(SoftLabels(p, y))
    assert res.nth == pytest.approx(nth_direct(p, y), rel=1e-12, abs=1e-15)
    assert float(res.class_nth.sum()) == pytest.approx(res.nth, rel=1e-12)
    for c in range(k):
        rows = p[y == c]
        if len(rows):
            np.testing.assert_allclose(res.transition.iloc[c], rows.mean(axis=0),
                                       rtol=1e-12, atol=1e-15)
            assert res.class_spread.iloc[c] == pytest.approx(
                ((rows - rows.mean(0)) ** 2).sum(1).mean(), rel=1e-12)
        else:
            assert res.transition.iloc[c].isna().all() and np.isnan(res.class_spread.iloc[c])
    if n_labels is not None and n_labels < k:
        assert any("without instances" in note for note in res.notes)


def test_nth_matches_pure_python_reference():
    rng = np.random.default_rng(11)
    p, y = random_soft(rng, 60, 3)
    exact = nth_exact(p, y)
    assert noise_transition_heterogeneity(SoftLabels(p, y)).nth == pytest.approx(
        float(exact), rel=1e-13)


def test_nth_stable_where_the_expansion_cancels():
    # Tiny within-class spread around large means: Σ‖p_i‖² − N_k‖p̄_k‖²
    # loses most of its digits; the kernel keeps them (exact reference in
    # rational arithmetic).
    rng = np.random.default_rng(5)
    t, _, y = ccn(rng, 1500, 3)
    d = rng.normal(size=(len(y), 3)) * 1e-7
    d -= d.mean(axis=1, keepdims=True)
    p = t[y] + d
    exact = float(nth_exact(p, y))
    ours = noise_transition_heterogeneity(SoftLabels(p, y)).nth
    expansion = sum((p[y == k] ** 2).sum() - (y == k).sum() * (p[y == k].mean(0) ** 2).sum()
                    for k in range(3)) / len(y)
    assert abs(ours - exact) <= 1e-12 * exact
    assert abs(expansion - exact) > 1e3 * abs(ours - exact)  # the pitfall is real


@given(st.integers(1, 200), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_nth_invariant_to_permuting_instances_and_classes(n, k, seed):
    rng = np.random.default_rng(seed)
    p, y = random_soft(rng, n, k)
    base = noise_transition_heterogeneity(SoftLabels(p, y)).nth
    perm = rng.permutation(n)
    assert noise_transition_heterogeneity(SoftLabels(p[perm], y[perm])).nth == \
        pytest.approx(base, rel=1e-12, abs=1e-15)
    # relabel classes jointly: column c moves to sigma[c], label y to sigma[y]
    sigma = rng.permutation(k)
    q = np.empty_like(p)
    q[:, sigma] = p
    res = noise_transition_heterogeneity(SoftLabels(q, sigma[y]))
    assert res.nth == pytest.approx(base, rel=1e-12, abs=1e-15)


def test_nth_large_values_and_bound():
    # One-hot rows spread over classes: within-class spread is maximal-ish;
    # nth is at most 2 (the largest squared distance of two distributions).
    rng = np.random.default_rng(8)
    y = rng.integers(0, 4, 5000)
    p = np.eye(4)[rng.integers(0, 4, 5000)]
    nth = noise_transition_heterogeneity(SoftLabels(p, y)).nth
    assert nth == pytest.approx(nth_direct(p, y), rel=1e-12)
    assert 0.7 < nth <= 2.0  # 1 − Σ_c π_c² = 0.75 for uniform one-hot rows


# --------------------------------------------------------------------------- kernel builds
@pytest.mark.slow  # compiles the parallel build (5 s of CPU on an empty cache)
def test_class_moments_serial_parallel_and_threads_bit_identical():
    rng = np.random.default_rng(21)
    p, y = random_soft(rng, 123_457, 10)
    y32 = y.astype(np.int32)
    serial = kernels.class_moments(p, y32, 10, parallel=False)
    parallel = kernels.class_moments(p, y32, 10, parallel=True)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = kernels.class_moments(p, y32, 10, parallel=True)
    finally:
        numba.set_num_threads(old)
    for a, b, c in zip(serial, parallel, one, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("name", ["tv_rows", "entropy_rows", "sample_rows", "check_rows"])
def test_row_kernels_serial_and_parallel_builds_agree(name):
    rng = np.random.default_rng(22)
    p, _ = random_soft(rng, 5003, 7)
    q, _ = random_soft(rng, 5003, 7)
    u = rng.random(5003)
    p[4000, 3] = -1e-3  # a bad row for the validation kernel
    args = {"tv_rows": (p, q), "entropy_rows": (np.abs(p),), "sample_rows": (np.abs(p), u),
            "check_rows": (p, 1e-6, kernels.N_BLOCKS)}[name]
    for a in args:  # read-only, as SoftLabels hands them over: the one specialisation
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    serial = getattr(kernels, f"_{name}_serial")(*args)
    parallel = getattr(kernels, f"_{name}_parallel")(*args)
    np.testing.assert_array_equal(serial, parallel)
    if name == "check_rows":
        assert serial[serial >= 0].tolist() == [4000]


def test_sampling_identical_for_any_thread_count():
    rng = np.random.default_rng(2)
    p, y = random_soft(rng, 60_000, 10)
    soft = SoftLabels(p, y)
    a = sample_hard_labels(soft, rng=5)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = sample_hard_labels(soft, rng=5)
    finally:
        numba.set_num_threads(old)
    pd.testing.assert_series_equal(a, b)


def test_kernels_without_jit():
    # Same Python functions run interpreted (NUMBA_DISABLE_JIT=1).
    code = textwrap.dedent("""
        import numpy as np
        from noise_models.instance import _kernels as K
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(4), size=700); y = rng.integers(0, 4, 700).astype(np.int32)
        cnt, mean, m2 = K.class_moments(p, y, 4)
        print(repr(float(m2.sum() / 700)))
        print(K.first_bad_row(p, 1e-9))
        print(repr(float(K.tv_rows(p, p[::-1].copy()).sum())))
        print(repr(float(K.entropy_rows(p).sum())))
        print(K.sample_rows(p, rng.random(700)).sum())
    """)
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, cwd=root).stdout.split("\n")
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=700)
    y = rng.integers(0, 4, 700).astype(np.int32)
    assert float(out[0]) == pytest.approx(nth_direct(p, y), rel=1e-13)
    assert out[1] == "(-1, 0)"
    assert float(out[2]) == pytest.approx(kernels.tv_rows(p, p[::-1].copy()).sum(), rel=1e-13)
    assert float(out[3]) == pytest.approx(stats.entropy(p, axis=1).sum(), rel=1e-12)
    assert int(out[4]) == int(kernels.sample_rows(p, rng.random(700)).sum())


# --------------------------------------------------------------------------- noise rate
def test_noise_rate_matches_definition():
    rng = np.random.default_rng(4)
    p, y = random_soft(rng, 5000, 6)
    res = noise_rate(SoftLabels(p, y))
    assert res.rate == pytest.approx(np.mean([1 - p[i, y[i]] for i in range(len(y))]),
                                     rel=1e-12)
    for k in range(6):
        assert res.class_rates.iloc[k] == pytest.approx(1 - p[y == k, k].mean(), rel=1e-12)
    assert float(res) == res.rate


def test_noise_rate_symmetric_noise_is_delta():
    # CILN §II-A: symmetric noise with rate δ, T = (1−δ)I + δ/(K−1)(1−I).
    k, delta = 10, 0.3
    t = np.full((k, k), delta / (k - 1))
    np.fill_diagonal(t, 1 - delta)
    y = np.arange(1000) % k
    soft = SoftLabels(t[y], y)
    assert noise_rate(soft).rate == pytest.approx(delta, abs=1e-14)
    assert noise_transition_heterogeneity(soft).nth <= CCN_TOL


def test_noise_rate_empty_class_is_nan_in_table_only():
    soft = SoftLabels([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0]], [0, 1])
    res = noise_rate(soft)
    assert res.rate == pytest.approx(0.15)
    assert np.isnan(res.class_rates.iloc[2]) and res.class_counts.iloc[2] == 0


# --------------------------------------------------------------------------- TV distance
def test_tv_self_zero_symmetric_bounded_and_direct():
    rng = np.random.default_rng(9)
    p, y = random_soft(rng, 3000, 5)
    q, _ = random_soft(rng, 3000, 5, concentration=0.2)
    a, b = SoftLabels(p, y), SoftLabels.from_array(q)
    assert tv_distance(a, a).mean == 0.0 and (tv_distance(a, a).values == 0).all()
    ab, ba = tv_distance(a, b), tv_distance(b, a)
    np.testing.assert_array_equal(ab.values.to_numpy(), ba.values.to_numpy())
    assert (ab.values <= 1.0).all() and (ab.values >= 0.0).all()
    direct = tv_direct(p, q)
    np.testing.assert_allclose(ab.values.to_numpy(), direct, rtol=1e-13, atol=1e-15)
    assert ab.mean == pytest.approx(direct.mean(), rel=1e-12)
    assert ab.std == pytest.approx(direct.std(ddof=1), rel=1e-10)
    assert ab.sem == pytest.approx(direct.std(ddof=1) / math.sqrt(3000), rel=1e-10)


def test_tv_disjoint_supports_is_one():
    res = tv_distance([[1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [0.5, 0.5]])
    assert res.values.tolist() == [1.0, 0.0]


@given(st.integers(2, 50), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_tv_to_one_hot_labels_equals_noise_rate(n, k, seed):
    # ½(|1 − p_y| + Σ_{c≠y} p_c) = 1 − p_y: mean TV to one-hot reference
    # labels is exactly δ.
    rng = np.random.default_rng(seed)
    p, y = random_soft(rng, n, k)
    soft = SoftLabels(p, y)
    tv = tv_distance(soft, np.eye(k)[y]).values.to_numpy()
    np.testing.assert_allclose(tv, 1 - p[np.arange(n), y], rtol=0, atol=1e-14)
    assert tv.mean() == pytest.approx(noise_rate(soft).rate, abs=1e-14)


def test_tv_aligns_names_and_refuses_mismatch():
    rng = np.random.default_rng(1)
    p, _ = random_soft(rng, 20, 3)
    q, _ = random_soft(rng, 20, 3)
    ids = [f"img{i}" for i in range(20)]
    a = pd.DataFrame(p, index=ids, columns=["x", "y", "z"])
    b = pd.DataFrame(q, index=ids, columns=["x", "y", "z"])
    shuffled = b.iloc[rng.permutation(20)][["z", "x", "y"]]
    pd.testing.assert_series_equal(tv_distance(a, b).values, tv_distance(a, shuffled).values)
    assert list(tv_distance(a, shuffled).values.index) == ids
    # positional when one side is a plain array
    np.testing.assert_array_equal(tv_distance(a, q).values.to_numpy(),
                                  tv_distance(a, b).values.to_numpy())
    with pytest.raises(ValueError, match=r"classes of `reference`.*aligned by name"):
        tv_distance(a, b.rename(columns={"z": "w"}))
    with pytest.raises(ValueError, match="instances of `reference`"):
        tv_distance(a, b.rename(index={"img0": "other"}))
    with pytest.raises(ShapeError, match="shape"):
        tv_distance(a, q[:10])
    with pytest.raises(ValueError, match="`reference` row 2 sums to"):
        bad = q.copy()
        bad[2, 0] += 0.1
        tv_distance(a, bad)
    with pytest.raises(TypeError, match="from_ratings"):
        tv_distance(a, Ratings.from_counts([[1, 1, 1]]))


def test_tv_single_instance_warns():
    with pytest.warns(DegenerateDataWarning, match="one instance"):
        res = tv_distance([[0.5, 0.5]], [[1.0, 0.0]])
    assert res.mean == 0.5 and np.isnan(res.std) and np.isnan(res.sem)


# --------------------------------------------------------------------------- attractor
def paper_attractor(noisy_labels, true_labels, k):
    """Table III with hard labels: largest rise in label frequency; purity by counting."""
    clean = np.bincount(true_labels, minlength=k) / len(true_labels)
    noisy = np.bincount(noisy_labels, minlength=k) / len(noisy_labels)
    a = int(np.argmax(noisy - clean))
    assigned = noisy_labels == a
    return a, 100 * (noisy[a] - clean[a]), float((true_labels[assigned] == a).mean())


def test_attractor_with_hard_labels_matches_counting_definition():
    rng = np.random.default_rng(12)
    k, n = 10, 4000
    y = rng.integers(0, k, n)
    # pull 30% of the labels towards class 6 ("frog"), keep the rest
    noisy = np.where(rng.random(n) < 0.3, 6, y)
    soft = SoftLabels(np.eye(k)[noisy], y)
    a, gain, purity = paper_attractor(noisy, y, k)
    res = attractor_class(soft)
    assert res.attractor == a == 6
    assert res.gain_pp == pytest.approx(gain, rel=1e-12)
    assert res.purity == pytest.approx(purity, rel=1e-12)
    assert res.assigned == pytest.approx((noisy == 6).sum())
    assert float(res.gains_pp.sum()) == pytest.approx(0.0, abs=1e-9)


def test_attractor_soft_is_expectation_of_sampled_hard_labels():
    rng = np.random.default_rng(13)
    p, y = random_soft(rng, 3000, 4)
    p[:, 2] += 1.0
    p /= p.sum(axis=1, keepdims=True)
    soft = SoftLabels(p, y)
    res = attractor_class(soft)
    assert res.attractor == 2
    shares = p.mean(axis=0)
    assert res.gain_pp == pytest.approx(100 * (shares[2] - np.mean(y == 2)), rel=1e-12)
    assert res.purity == pytest.approx(p[y == 2, 2].sum() / p[:, 2].sum(), rel=1e-12)


def test_attractor_clean_options():
    soft = SoftLabels([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.5]], [0, 1, 2],
                      classes=["ant", "bee", "cat"])
    # the paper's clean distribution is the true labels' shares (uniform here)
    uniform = pd.Series([1 / 3] * 3, index=["cat", "ant", "bee"])  # aligned by name
    by_series = attractor_class(soft, uniform)
    assert by_series.attractor == "bee" and by_series.gain_pp == pytest.approx(100 / 3)
    # noisy shares 1/6, 2/3, 1/6 against 0.2, 0.6, 0.2: gains −3.3, +6.7, −3.3 pp
    by_array = attractor_class(soft, [0.2, 0.6, 0.2])
    assert by_array.attractor == "bee"
    assert by_array.gain_pp == pytest.approx(100 * (2 / 3 - 0.6), rel=1e-12)
    np.testing.assert_allclose(by_array.gains_pp, [-10 / 3, 20 / 3, -10 / 3], rtol=1e-12)
    # purity: of the label mass on "bee" (0.5 + 1 + 0.5), instance 2's is true
    assert by_array.purity == pytest.approx(0.5)


def test_attractor_clean_soft_labels_and_errors():
    soft = SoftLabels([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.5]], [0, 1, 2],
                      classes=["ant", "bee", "cat"])
    clean = SoftLabels([[0.0, 1.0, 0.0]] * 3, [1, 1, 1], classes=["ant", "bee", "cat"])
    res = attractor_class(soft, clean)
    assert res.attractor == "ant" and res.gain_pp == pytest.approx(100 / 6)
    assert "mean of the `clean` soft labels" in res.notes[0]
    with pytest.raises(ShapeError, match=r"distribution over the 3 classes"):
        attractor_class(soft, [0.5, 0.5])
    with pytest.raises(ValueError, match="`clean` row 0 sums to"):
        attractor_class(soft, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="classes of `clean`"):
        attractor_class(soft, pd.Series([0.5, 0.5, 0.0], index=["a", "b", "c"]))
    with pytest.raises(TypeError, match="`clean` must be None"):
        attractor_class(soft, "uniform")


# --------------------------------------------------------------------------- entropy
def test_label_entropy_matches_scipy():
    rng = np.random.default_rng(14)
    p, y = random_soft(rng, 2000, 7)
    res = label_entropy(SoftLabels(p, y), base=2)
    assert res.entropy == pytest.approx(stats.entropy(p.mean(0), base=2), rel=1e-12)
    assert res.max_entropy == pytest.approx(math.log2(7))
    assert res.instance_mean == pytest.approx(stats.entropy(p, base=2, axis=1).mean(),
                                              rel=1e-12)
    assert res.normalized == pytest.approx(res.entropy / math.log2(7))
    assert float(res.to_frame()["entropy_term"].sum()) == pytest.approx(res.entropy)
    nats = label_entropy(SoftLabels(p, y))
    assert nats.entropy == pytest.approx(res.entropy * math.log(2), rel=1e-12)


def test_label_entropy_extremes_and_base_errors():
    soft = SoftLabels(np.eye(4)[[0, 1, 2, 3]], [0, 1, 2, 3])
    res = label_entropy(soft)
    assert res.entropy == pytest.approx(math.log(4)) and res.instance_mean == 0.0
    concentrated = label_entropy(SoftLabels(np.eye(4)[[2, 2, 2]], [0, 1, 3]))
    assert concentrated.entropy == 0.0
    with pytest.raises(ValueError, match="`base` must be a finite number > 0 and != 1"):
        label_entropy(soft, base=1)
    with pytest.raises(TypeError, match="`base` must be a number"):
        label_entropy(soft, base="2")


# --------------------------------------------------------------------------- sampling
def test_sample_from_soft_labels_follows_pbar():
    rng = np.random.default_rng(15)
    pbar = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    soft = SoftLabels(np.tile(pbar, (20_000, 1)), np.zeros(20_000, dtype=int))
    labels = sample_hard_labels(soft, rng)
    counts = np.bincount(labels.cat.codes, minlength=5)
    assert counts[4] == 0  # a class of probability 0 is never drawn
    assert stats.chisquare(counts[:4], pbar[:4] * 20_000).pvalue > 1e-3


def test_sample_voters_protocol_takes_a_voters_prediction():
    # Three voters on identical instances; voter predictions are 0, 0, 2.
    one = np.array([[0.6, 0.4, 0.0], [0.5, 0.1, 0.4], [0.2, 0.3, 0.5]])
    n = 30_000
    voters = np.repeat(one[:, None, :], n, axis=1)
    labels = sample_hard_labels(voters, rng=np.random.default_rng(16))
    counts = np.bincount(labels.cat.codes, minlength=3)
    assert counts[1] == 0  # class 1 is nobody's prediction, though p̄(1) = 0.27
    assert stats.chisquare(counts[[0, 2]], [2 * n / 3, n / 3]).pvalue > 1e-3
    # Drawing from the average instead gives p̄ — the documented difference.
    soft = SoftLabels.from_voters(voters, np.zeros(n, dtype=int))
    avg = np.bincount(sample_hard_labels(soft, rng=1).cat.codes, minlength=3)
    assert avg[1] > 0.25 * n


def test_sample_voter_frames_and_ratings():
    ids = ["a", "b", "c"]
    v1 = pd.DataFrame([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], index=ids, columns=["no", "yes"])
    v2 = v1.iloc[::-1]  # same content, other order: aligned by id
    labels = sample_hard_labels([v1, v2], rng=0)
    assert list(labels.index) == ids and labels.tolist() == ["no", "yes", "no"]
    assert list(labels.cat.categories) == ["no", "yes"]
    r = Ratings.from_wide([["x", "x", "x"], ["y", None, "y"]])
    assert sample_hard_labels(r, rng=3).tolist() == ["x", "y"]
    # counts path: frequencies a[i, c] / r[i]
    rc = Ratings.from_counts(np.tile([[3, 1]], (20_000, 1)))
    counts = np.bincount(sample_hard_labels(rc, rng=4).cat.codes, minlength=2)
    assert stats.binomtest(int(counts[1]), 20_000, 0.25).pvalue > 1e-3


def test_sample_reproducible_and_errors():
    rng = np.random.default_rng(0)
    p, y = random_soft(rng, 100, 3)
    soft = SoftLabels(p, y)
    pd.testing.assert_series_equal(sample_hard_labels(soft, 7), sample_hard_labels(soft, 7))
    with pytest.raises(TypeError, match="`rng` must be None"):
        sample_hard_labels(soft, rng="seed")
    with pytest.raises(TypeError, match="`soft_or_voters` must be"):
        sample_hard_labels(pd.Series([1, 2]))
    with pytest.raises(ShapeError, match="three-dimensional"):
        sample_hard_labels(p)
    with pytest.raises(ValueError, match="no rating to draw from"):
        sample_hard_labels(Ratings.from_counts([[1, 0], [0, 0]]))


# --------------------------------------------------------------------------- SoftLabels
def test_soft_labels_frames_in_and_out():
    frame = pd.DataFrame([[0.7, 0.3], [0.1, 0.9], [0.5, 0.5]], index=["u", "v", "w"],
                         columns=["neg", "pos"])
    labels = pd.Series(["pos", "neg", "neg"], index=["v", "u", "w"])  # aligned by id
    soft = SoftLabels(frame, labels)
    np.testing.assert_array_equal(soft.labels, [0, 1, 0])
    assert list(soft.classes) == ["neg", "pos"] and list(soft.instances) == ["u", "v", "w"]
    out = soft.to_frame()
    pd.testing.assert_frame_equal(out[["neg", "pos"]], frame, check_names=False)
    assert out["label"].tolist() == ["neg", "pos", "neg"]
    assert soft.class_counts.tolist() == [2, 1]
    # integer codes with named classes
    np.testing.assert_array_equal(SoftLabels(frame, [1, 0, 1]).labels, [1, 0, 1])
    with pytest.raises(ValueError, match="`label_column`='pos' is also a class name"):
        soft.to_frame(label_column="pos")


def test_soft_labels_read_only_and_input_untouched():
    p = np.array([[0.25, 0.75], [0.5, 0.5]])
    before = p.copy()
    soft = SoftLabels(p, [1, 0])
    assert not soft.probs.flags.writeable and not soft.labels.flags.writeable
    view = SoftLabels(p, [1, 0], copy=False)
    assert np.shares_memory(view.probs, p) and p.flags.writeable
    np.testing.assert_array_equal(p, before)
    with pytest.raises(ValueError, match="read-only"):
        soft.probs[0, 0] = 1.0


def test_soft_labels_integer_classes_use_names():
    soft = SoftLabels([[0.5, 0.5], [0.2, 0.8]], [3, 7], classes=[3, 7])
    np.testing.assert_array_equal(soft.labels, [0, 1])
    with pytest.raises(ValueError, match=r"out of range at row 1: 0 is not among"):
        SoftLabels([[0.5, 0.5], [0.2, 0.8]], [3, 0], classes=[3, 7])
    with pytest.raises(ValueError, match=r"out of range at row 0: 9 is not among"):
        SoftLabels([[0.5, 0.5], [0.2, 0.8]], [9, 7], classes=[3, 7])
    # class names too far apart for a lookup table: hashed lookup, same answer
    wide = SoftLabels([[0.5, 0.5], [0.2, 0.8]], [10**7, 0], classes=[0, 10**7])
    np.testing.assert_array_equal(wide.labels, [1, 0])


@pytest.mark.parametrize(("probs", "labels", "kwargs", "exc", "match"), [
    ([[0.5, 0.6]], [0], {}, ValueError, r"row 0 sums to 1\.1, not 1"),
    ([[1.2, -0.2]], [0], {}, ValueError, r"row 0 has a negative entry \(-0\.2"),
    ([[np.nan, 1.0]], [0], {}, ValueError, "row 0 holds NaN or inf"),
    ([[0.5, 0.5], [np.inf, 0.0]], [0, 0], {}, ValueError, "row 1 holds NaN or inf"),
    ([[0.5, 0.5]], [2], {}, ValueError, r"out of range at row 0: 2 is not among"),
    ([[0.5, 0.5]], [-1], {"classes": ["a", "b"]}, ValueError,
     r"out of range at row 0: code -1 but there are 2 classes"),
    ([[0.5, 0.5]], ["c"], {"classes": ["a", "b"]}, ValueError, "not a class at row 0"),
    ([[0.5, 0.5]], [0.5], {"classes": ["a", "b"]}, ValueError, "class names or integer codes"),
    ([[0.5, 0.5]], [np.nan], {}, ValueError, "`labels` is missing at row 0"),
    ([[0.5, 0.5]], [0, 1], {}, ShapeError, "`labels` has 2 entries but `probs` has 1 rows"),
    ([[0.5, 0.5]], [[0]], {}, ShapeError, "`labels` must be one-dimensional"),
    ([0.5, 0.5], [0], {}, ShapeError, "`probs` must be two-dimensional"),
    ([[1.0], [1.0]], [0, 0], {}, ShapeError, "at least two classes"),
    (np.empty((0, 3)), [], {}, ShapeError, "no rows"),
    ([[0.5, 0.5]], [0], {"classes": ["a"]}, ShapeError, "`classes` has 1 entries"),
    ([[0.5, 0.5], [0.5, 0.5]], [0, 0], {"instances": ["x", "x"]}, ValueError,
     "`instances` has duplicate"),
    ([["a", "b"]], [0], {}, TypeError, "`probs` must hold numbers"),
    ([[0.5, 0.5]], [0], {"atol": -1}, ValueError, "`atol` must be a finite number >= 0"),
    ([[0.5, 0.5]], [0], {"atol": "1e-6"}, TypeError, "`atol` must be a non-negative number"),
    ([[0.5, 0.5]], None, {}, TypeError, r"`labels` is required.*from_array"),
])
def test_soft_labels_validation(probs, labels, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SoftLabels(probs, labels, **kwargs)


def test_soft_labels_tolerance_and_named_rows():
    SoftLabels([[0.5, 0.5 + 5e-7]], [0])  # within the default atol = 1e-6
    with pytest.raises(ValueError, match=r"tolerance `atol`=1e-09"):
        SoftLabels([[0.5, 0.5 + 5e-7]], [0], atol=1e-9)
    frame = pd.DataFrame([[0.5, 0.5], [0.5, 0.4]], index=["img7", "img9"])
    with pytest.raises(ValueError, match=r"row 1 \(instance 'img9'\) sums to"):
        SoftLabels(frame, [0, 1])
    with pytest.raises(ValueError, match="do not also pass `classes`"):
        SoftLabels(frame, [0, 1], classes=["a", "b"])
    with pytest.raises(ValueError, match="index of `labels` does not match"):
        SoftLabels(frame.iloc[:1], pd.Series([0], index=["zzz"]))
    with pytest.raises(TypeError, match="`soft` must be a SoftLabels"):
        noise_rate(frame)


def test_from_array_plurality_labels():
    soft = SoftLabels.from_array([[0.2, 0.8], [0.5, 0.5], [0.9, 0.1]])
    np.testing.assert_array_equal(soft.labels, [1, 0, 0])
    assert "1 ties broken to the lowest class" in soft.notes[0]


def test_from_voters_is_eq1_and_validates_each_voter():
    rng = np.random.default_rng(17)
    voters = rng.dirichlet(np.ones(4), size=(5, 300))
    y = rng.integers(0, 4, 300)
    soft = SoftLabels.from_voters(voters, y)
    np.testing.assert_allclose(soft.probs, voters.mean(axis=0), rtol=1e-15, atol=1e-16)
    bad = voters.copy()
    bad[3, 10] = [1.5, -0.5, 0.0, 0.0]  # the average could still look fine
    with pytest.raises(ValueError, match=r"voter 3, row 10 has a negative entry"):
        SoftLabels.from_voters(bad, y)
    with pytest.raises(ShapeError, match="three-dimensional"):
        SoftLabels.from_voters(voters[0], y)
    with pytest.raises(ShapeError, match="`labels` has 299 entries"):
        SoftLabels.from_voters(voters, y[:-1])
    frames = {f"v{m}": pd.DataFrame(voters[m]) for m in range(2)}
    frames["v1"] = frames["v1"].rename(columns={3: 9})
    with pytest.raises(ValueError, match="voter 1 does not have the same instances and classes"):
        SoftLabels.from_voters(frames, y)


def test_from_ratings_vote_shares_majority_and_empty_items():
    r = Ratings.from_wide([["a", "b", "b"], ["a", "b", None], [None, None, None],
                           ["c", "c", "a"]], items=["i1", "i2", "i3", "i4"])
    with pytest.raises(ValueError, match=r"1 item\(s\) of `ratings` have no rating.*empty=\"drop\""):
        SoftLabels.from_ratings(r)
    soft = SoftLabels.from_ratings(r, empty="drop")
    assert list(soft.instances) == ["i1", "i2", "i4"]
    np.testing.assert_allclose(soft.probs, [[1 / 3, 2 / 3, 0], [0.5, 0.5, 0], [1 / 3, 0, 2 / 3]])
    assert soft.reference_labels.tolist() == ["b", "a", "c"]  # tie a/b → lowest class
    assert any("1 ties" in note for note in soft.notes)
    assert any("1 item(s) without a rating dropped" in note for note in soft.notes)
    given_labels = SoftLabels.from_ratings(r, ["a", "b", "c", "a"], empty="drop")
    assert given_labels.reference_labels.tolist() == ["a", "b", "a"]
    with pytest.raises(ValueError, match="`empty` must be one of"):
        SoftLabels.from_ratings(r, empty="skip")
    with pytest.raises(TypeError, match=r"`ratings` must be an agreement\.Ratings"):
        SoftLabels.from_ratings(np.ones((2, 2)))


# --------------------------------------------------------------------------- results, report
def test_results_repr_dict_frame():
    soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1],
                      classes=["a", "b"])
    nr, het = noise_rate(soft), noise_transition_heterogeneity(soft)
    tv, att, ent = tv_distance(soft, soft), attractor_class(soft), label_entropy(soft)
    for res, cls in [(nr, NoiseRateResult), (het, TransitionHeterogeneityResult),
                     (tv, TVDistanceResult), (att, AttractorResult), (ent, LabelEntropyResult)]:
        assert isinstance(res, cls) and repr(res).startswith(cls.__name__ + "(")
        assert isinstance(res.to_dict(), dict) and isinstance(res.to_frame(), pd.DataFrame)
    assert "δ = 0.2500" in repr(nr)
    assert het.to_dict()["nth"] == pytest.approx(0.02)
    assert list(het.to_frame().columns) == ["count", "nth", "spread"]
    assert tv.to_frame().shape == (4, 1)


def test_report_collects_the_statistics():
    rng = np.random.default_rng(18)
    p, y = random_soft(rng, 500, 4)
    q, _ = random_soft(rng, 500, 4)
    soft = SoftLabels(p, y)
    rep = instance_dependence_report(soft, reference=q, clean=[0.25] * 4)
    v = rep["value"]
    assert v["noise_rate"] == noise_rate(soft).rate
    assert v["nth"] == noise_transition_heterogeneity(soft).nth
    assert v["tv_mean"] == tv_distance(soft, q).mean
    assert v["attractor"] == attractor_class(soft, [0.25] * 4).attractor
    assert v["label_entropy"] == label_entropy(soft).entropy
    assert list(rep.columns) == ["value", "description"]
    assert "tv_mean" not in instance_dependence_report(soft).index


def test_public_api():
    expected = {"SoftLabels", "noise_rate", "noise_transition_heterogeneity", "tv_distance",
                "attractor_class", "label_entropy", "sample_hard_labels",
                "instance_dependence_report", "NoiseRateResult",
                "TransitionHeterogeneityResult", "TVDistanceResult", "AttractorResult",
                "LabelEntropyResult"}
    assert expected <= set(noise_models.__all__)
    for name in expected:
        assert getattr(noise_models, name).__module__.startswith("noise_models.")


# --------------------------------------------------------------------------- real data
@pytest.mark.shared_data
def test_cifar10h_soft_labels(shared_data):
    # Peterson et al. (2019), CIFAR-10H: 10,000 CIFAR-10 test images, ~50 human
    # labels each (CC BY-NC-SA 4.0; tests only). The file has no CIFAR-10
    # ground truth, so the reference label is the human majority vote. The
    # CILN paper prints no δ or nth for CIFAR-10H itself (it is the TV
    # reference), so the pinned values are this implementation's, each
    # confirmed here by the direct implementation of the formula.
    counts = pd.read_csv(shared_data / "cifar10h_counts.csv", index_col=0)
    soft = SoftLabels.from_ratings(Ratings.from_counts(counts))
    assert soft.n_instances == 10_000 and list(soft.classes)[:2] == ["airplane", "automobile"]
    p, y = soft.probs, soft.labels
    delta = noise_rate(soft).rate
    nth = noise_transition_heterogeneity(soft).nth
    assert delta == pytest.approx(np.mean(1 - p[np.arange(len(y)), y]), rel=1e-12)
    assert nth == pytest.approx(nth_direct(p, y), rel=1e-12)
    assert delta == pytest.approx(CIFAR10H_DELTA, abs=5e-7)
    assert nth == pytest.approx(CIFAR10H_NTH, abs=5e-7)
    # human labels drawn one per image disagree with the majority at rate δ
    drawn = sample_hard_labels(soft, rng=2019).cat.codes.to_numpy()
    miss = int((drawn != y).sum())
    assert stats.binomtest(miss, len(y), delta).pvalue > 1e-3
    # TV to the one-hot majority labels is δ; to itself 0
    assert tv_distance(soft, np.eye(10)[y]).mean == pytest.approx(delta, abs=1e-12)
    assert tv_distance(soft, counts / counts.to_numpy().sum(1, keepdims=True)).mean == \
        pytest.approx(0.0, abs=1e-15)


# Computed by this implementation and by nth_direct (above) on
# cifar10h_counts.csv, majority-vote reference labels; printed to 6 decimals.
CIFAR10H_DELTA = 0.045563
CIFAR10H_NTH = 0.012939
