"""Kernels against a slow reference from the definitions, and invariances (hypothesis)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest
from agreement_reference import COEFFICIENTS, reference
from hypothesis import given
from hypothesis import strategies as st

import agreement as ag
from _goldnoise_lib import patterns as _patterns
from agreement import Ratings, _kernels
from agreement._coefficients import _plan
from agreement._item_stats import SPECS, count_rows_from_counts
from agreement._weights import weight_matrix

FUNCS = {name: getattr(ag, name) for name in COEFFICIENTS}
TWO_RATERS = {"cohen_kappa", "scott_pi"}


def _ratings(codes: np.ndarray, m: int) -> Ratings:
    data = np.where(codes >= 0, codes, np.nan).astype(float)
    return Ratings.from_wide(data, categories=list(range(m)))


def _as_lists(codes):
    return [[int(x) if x >= 0 else None for x in row] for row in codes]


def _usable(codes, m, name):
    """Data on which the coefficient is defined (the reference does not handle refusals)."""
    rated = codes >= 0
    if not rated.any(axis=0).all() or not (rated.sum(axis=1) >= 2).any():
        return False
    if len(np.unique(codes[rated])) < 2:
        return False
    if name in ("light_kappa",):  # every pair of annotators needs a jointly rated item
        k = codes.shape[1]
        return all((rated[:, a] & rated[:, b]).any() for a in range(k) for b in range(a + 1, k))
    return True


def _random_data(rng, name, n, missing):
    k = 2 if name in TWO_RATERS else int(rng.integers(2, 6))
    m = int(rng.integers(2, 5))
    while True:
        truth = rng.integers(0, m, size=n)
        codes = np.where(rng.random((n, k)) < 0.6, truth[:, None], rng.integers(0, m, (n, k)))
        codes[rng.random((n, k)) < missing] = -1
        if _usable(codes, m, name):
            return codes.astype(np.int8), m


def _custom_weights(rng, m):
    a = rng.random((m, m))
    w = (a + a.T) / 2
    np.fill_diagonal(w, 1.0)
    return w


def _weights_cases(rng, m):
    return [None, "linear", "quadratic", _custom_weights(rng, m)]


def _named_matrix(weights, m):
    return None if weights is None else weight_matrix(weights, _ratings(
        np.arange(m, dtype=np.int8)[:, None].repeat(2, axis=1), m)).matrix.tolist()


# ------------------------------------------------ kernels vs the slow reference
@pytest.mark.parametrize("name", COEFFICIENTS)
@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_against_reference(name, missing):
    # Small data take the direct item kernels, larger ones the pattern histogram:
    # both must agree with the definition to 1e-10 (value, PA, PE and the SE).
    rng = np.random.default_rng(zlib.crc32(f"{name}{missing}".encode()))
    for n in (7, 30, 400):
        codes, m = _random_data(rng, name, n, missing)
        for weights in _weights_cases(rng, m):
            ref = reference(name, _as_lists(codes), m, _named_matrix(weights, m))
            res = FUNCS[name](_ratings(codes, m), weights=weights)
            for ours, theirs in [(res.value, ref["value"]), (res.observed, ref["observed"]),
                                 (res.expected, ref["expected"]),
                                 (res.standard_error, ref["se"])]:
                assert ours == pytest.approx(theirs, rel=1e-10, abs=1e-12)
            assert res.n_items == ref["n"] and res.n_pairable == ref["n2"]


@pytest.mark.parametrize("name", ["fleiss_kappa", "conger_kappa", "light_kappa", "gwet_ac1"])
@pytest.mark.parametrize("weights", [None, "linear"])
def test_many_annotators_against_reference(name, weights):
    # Eight annotators: the column kernels (rater, pair families) and the multiset
    # histogram over columns (count family) against the definition.
    rng = np.random.default_rng(zlib.crc32(f"{name}{weights}".encode()))
    n, k, m = 300, 8, 3
    truth = rng.integers(0, m, size=n)
    codes = np.where(rng.random((n, k)) < 0.6, truth[:, None], rng.integers(0, m, (n, k)))
    codes[rng.random((n, k)) < 0.2] = -1
    codes = codes.astype(np.int8)
    ratings = _ratings(codes, m)
    visit = _plan(SPECS[name].family, ratings, weight_matrix(weights, ratings))
    if not (name == "light_kappa" and weights):  # weighted Light: the row kernels
        assert visit.cols is not None or visit.mult is not None
    ref = reference(name, _as_lists(codes), m, _named_matrix(weights, m))
    res = FUNCS[name](ratings, weights=weights)
    for ours, theirs in [(res.value, ref["value"]), (res.standard_error, ref["se"])]:
        assert ours == pytest.approx(theirs, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("name", ["percent_agreement", "fleiss_kappa", "brennan_prediger",
                                  "gwet_ac1"])
def test_count_table_equals_raw(name):
    rng = np.random.default_rng(11)
    codes, m = _random_data(rng, name, 60, 0.3)
    raw = FUNCS[name](_ratings(codes, m), weights="quadratic")
    counts = FUNCS[name](Ratings.from_counts(_ratings(codes, m).counts), weights="quadratic")
    assert counts.value == pytest.approx(raw.value, abs=1e-13)
    assert counts.standard_error == pytest.approx(raw.standard_error, abs=1e-13)


# The serial/parallel build checks compile parallel kernels no other test needs: they run
# with --slow (the `kernel_builds` fixture); the file runs in one worker (`--dist loadfile`),
# so no build is compiled twice at once.

FAMILIES = {"count": "fleiss_kappa", "rater": "conger_kappa", "pair": "light_kappa"}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("shape", [(3000, 3, 3), (2500, 20, 3),
                                   # int16 codes compile every build again (38 s of CPU on
                                   # an empty cache); the column kernels' test keeps int16
                                   pytest.param((50, 4, 200), marks=pytest.mark.slow)])
def test_kernel_builds_agree(family, shape, kernel_builds):
    # rows, sums and the SS kernel: sums equal the rows' column sums, the SS equals
    # Σ (rows @ beta - center)², for int8 codes and int16 ones (m > 127), with and without
    # weights; with --slow the parallel builds give results identical to the serial ones.
    n, k, m = shape
    if family == "pair" and k > 5:
        k = 5
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, m, size=(n, k)).astype(np.int8 if m < 128 else np.int16)
    w = _custom_weights(rng, m)
    for weighted in (False, True):
        wm = w if weighted else np.eye(m)
        rows = _kernels.item_rows(family, codes, wm, weighted, parallel=False)
        sums_s = _kernels.item_sums(family, codes, wm, weighted, parallel=False)
        np.testing.assert_allclose(sums_s, rows.sum(axis=0), rtol=1e-12, atol=1e-9)
        beta = rng.normal(size=rows.shape[1])
        x = rows @ beta - 0.3
        expected = np.sum(np.where(rows[:, 0] > 0, x * x, 0.0))
        ss_s = _kernels.item_ss(family, codes, wm, weighted, beta, 0.3, parallel=False)
        assert ss_s == pytest.approx(expected, rel=1e-11)
        for parallel in kernel_builds[1:]:
            np.testing.assert_array_equal(
                rows, _kernels.item_rows(family, codes, wm, weighted, parallel=parallel))
            np.testing.assert_array_equal(
                sums_s, _kernels.item_sums(family, codes, wm, weighted, parallel=parallel))
            assert ss_s == _kernels.item_ss(family, codes, wm, weighted, beta, 0.3,
                                            parallel=parallel)


@pytest.mark.parametrize(("family", "weighted"), [("rater", False), ("rater", True),
                                                  ("pair", False)])
@pytest.mark.parametrize("shape", [(9001, 7, 3), (500, 12, 150)])
def test_column_kernels_agree_with_row_kernels(family, weighted, shape, kernel_builds):
    # The column kernels (many annotators) against the row kernels, serial (and with
    # --slow parallel).
    n, k, m = shape
    rng = np.random.default_rng(12)
    codes = rng.integers(-1, m, size=(n, k)).astype(np.int8 if m < 128 else np.int16)
    w = _custom_weights(rng, m) if weighted else np.eye(m)
    sums = _kernels.item_sums(family, codes, w, weighted)
    beta = rng.normal(size=sums.size)
    ss = _kernels.item_ss(family, codes, w, weighted, beta, -0.2)
    results = []
    for parallel in kernel_builds:
        cp = _kernels.ColumnPass(codes)
        col_sums = _kernels.column_sums(family, cp, w, weighted, parallel=parallel)
        col_ss = _kernels.column_ss(family, cp, w, weighted, beta, -0.2, parallel=parallel)
        np.testing.assert_allclose(col_sums, sums, rtol=1e-12, atol=1e-9)
        assert col_ss == pytest.approx(ss, rel=1e-12)
        results.append((col_sums, col_ss))
    for col_sums, col_ss in results[1:]:
        np.testing.assert_array_equal(results[0][0], col_sums)
        assert results[0][1] == col_ss


def test_count_keys_round_trip(kernel_builds):
    # The key of an item's category counts (packed or ranked), and back.
    rng = np.random.default_rng(13)
    codes = rng.integers(-1, 4, size=(20000, 9)).astype(np.int8)
    keys, vectors, mult = _patterns.count_histogram(codes, 4, parallel=False)
    for parallel in kernel_builds[1:]:
        np.testing.assert_array_equal(
            _patterns.count_histogram(codes, 4, parallel=parallel)[2], mult)
    back = _patterns.counts_to_codes(vectors, 9, np.int8)
    counts = np.stack([(codes == c).sum(axis=1) for c in range(4)], axis=1)
    uniq, freq = np.unique(counts, axis=0, return_counts=True)
    back_counts = np.stack([(back == c).sum(axis=1) for c in range(4)], axis=1)
    np.testing.assert_array_equal(back_counts, vectors)
    order = np.lexsort(back_counts.T[::-1])
    np.testing.assert_array_equal(back_counts[order], uniq)
    np.testing.assert_array_equal(mult[order], freq)
    # the per-item keys are the histogram's keys
    per_item, n_bins = _patterns.count_keys(codes, 4)
    assert keys.max() < n_bins
    np.testing.assert_array_equal(np.unique(per_item, return_counts=True)[1], mult)


@pytest.mark.parametrize("kind", ["row", "count"])
def test_pattern_histogram_reproduces_rows(kind, kernel_builds):
    # The histogram route: per-pattern rows weighted by counts = all items' rows.
    rng = np.random.default_rng(8)
    n, k, m = 5000, 4, 3
    codes = rng.integers(-1, m, size=(n, k)).astype(np.int8)
    family = "count"
    rows = _kernels.item_rows(family, codes, np.eye(m), False)
    for parallel in kernel_builds:
        if kind == "row":
            keys, mult = _patterns.row_histogram(codes, m, parallel=parallel)
            small = _patterns.decode_rows(keys, k, m, codes.dtype)
        else:
            _, vectors, mult = _patterns.count_histogram(codes, m, parallel=parallel)
            small = _patterns.counts_to_codes(vectors, k, codes.dtype)
        assert mult.sum() == n
        prow = _kernels.item_rows(family, small, np.eye(m), False)
        np.testing.assert_allclose(mult @ prow, rows.sum(axis=0), rtol=1e-12)


def test_row_keys_round_trip():
    rng = np.random.default_rng(2)
    codes = rng.integers(-1, 4, size=(200, 3)).astype(np.int8)
    keys, mult = _patterns.row_histogram(codes, 4)
    back = _patterns.decode_rows(keys, 3, 4, np.int8)
    uniq, counts = np.unique(codes, axis=0, return_counts=True)
    order = np.lexsort(back.T[::-1])
    np.testing.assert_array_equal(back[order], uniq)
    np.testing.assert_array_equal(mult[order], counts)
    # per-item keys: Σ_j (x_ij + 1) 5^j, from the definition
    expected = ((codes.astype(np.int64) + 1) * 5 ** np.arange(3)).sum(axis=1)
    np.testing.assert_array_equal(_patterns.row_keys(codes, 4), expected)


def test_public_functions_take_both_routes():
    # The same data through the histogram route (many items) and the item kernels
    # (direct): repeat a small data set so that its patterns repeat.
    rng = np.random.default_rng(4)
    codes, m = _random_data(rng, "conger_kappa", 40, 0.2)
    big = np.tile(codes, (50, 1))
    ratings = _ratings(big, m)
    for name in ("fleiss_kappa", "conger_kappa", "light_kappa", "gwet_ac1"):
        spec = SPECS[name]
        assert _plan(spec.family, ratings, weight_matrix(None, ratings)).rows is not None
        res = FUNCS[name](ratings)
        sums = _kernels.item_sums(spec.family, ratings.codes, np.eye(m), False)
        st = ag.item_statistics(ratings, name)
        assert st.finalize(sums).value == pytest.approx(res.value, rel=1e-12)
        assert st.finalize(st.sums()).value == pytest.approx(res.value, rel=1e-12)


def test_count_rows_from_counts_equal_kernel_rows():
    rng = np.random.default_rng(9)
    codes = rng.integers(-1, 4, size=(300, 6)).astype(np.int8)
    r = _ratings(codes, 4)
    w = weight_matrix("quadratic", r)
    np.testing.assert_allclose(count_rows_from_counts(r.counts, w.matrix, True),
                               _kernels.item_rows("count", codes, w.matrix, True), atol=1e-14)


def test_kernels_without_jit():
    # Once under NUMBA_DISABLE_JIT=1: the kernels as plain Python give the same numbers.
    code = """
import json, numpy as np, agreement as ag
rng = np.random.default_rng(1)
x = rng.integers(0, 3, size=(40, 4)).astype(float)
x[rng.random(x.shape) < 0.2] = np.nan
out = {}
for f in (ag.fleiss_kappa, ag.conger_kappa, ag.light_kappa, ag.gwet_ac1):
    r = f(x, weights="linear")
    out[f.__name__] = [r.value, r.standard_error]
print(json.dumps(out))
"""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, size=(40, 4)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    for name, (value, se) in got.items():
        res = getattr(ag, name)(x, weights="linear")
        assert res.value == pytest.approx(value, rel=1e-12)
        assert res.standard_error == pytest.approx(se, rel=1e-12)


# ------------------------------------------------------------ hypothesis properties
@st.composite
def codes_matrices(draw, two_raters=False):
    n = draw(st.integers(2, 14))
    k = 2 if two_raters else draw(st.integers(2, 4))
    m = draw(st.integers(2, 4))
    flat = draw(st.lists(st.integers(-1, m - 1), min_size=n * k, max_size=n * k))
    return np.array(flat, dtype=np.int8).reshape(n, k), m


def _evaluate(name, codes, m, weights=None):
    """(value, observed, expected, se) or None when the function refuses the data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.DegenerateDataWarning)
        try:
            res = FUNCS[name](_ratings(codes, m), weights=weights)
        except ValueError:
            return None
    return np.array([res.value, res.observed, res.expected, res.standard_error])


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def _strategy(name):
    return codes_matrices(two_raters=name in TWO_RATERS)


@pytest.mark.parametrize("name", COEFFICIENTS)
@given(data=st.data())
def test_permuting_items_and_annotators(name, data):
    codes, m = data.draw(_strategy(name))
    base = _evaluate(name, codes, m)
    items = data.draw(st.permutations(range(codes.shape[0])))
    raters = data.draw(st.permutations(range(codes.shape[1])))
    assert _same(base, _evaluate(name, codes[list(items)], m))
    assert _same(base, _evaluate(name, codes[:, list(raters)], m))


@pytest.mark.parametrize("name", COEFFICIENTS)
@given(data=st.data())
def test_relabelling_categories(name, data):
    # Nominal coefficients do not depend on the names or order of the categories.
    codes, m = data.draw(_strategy(name))
    perm = np.array(data.draw(st.permutations(range(m))), dtype=np.int8)
    relabelled = np.where(codes >= 0, perm[np.maximum(codes, 0)], -1).astype(np.int8)
    assert _same(_evaluate(name, codes, m), _evaluate(name, relabelled, m))


@pytest.mark.parametrize("name", COEFFICIENTS)
@given(data=st.data())
def test_adding_an_all_missing_annotator(name, data):
    codes, m = data.draw(_strategy(name))
    where = data.draw(st.integers(0, codes.shape[1]))
    wider = np.insert(codes, where, -1, axis=1)
    assert _same(_evaluate(name, codes, m), _evaluate(name, wider, m))


@pytest.mark.parametrize("name", COEFFICIENTS)
@given(data=st.data())
def test_values_in_documented_ranges(name, data):
    # 0 ≤ PA, PE ≤ 1; the coefficient (PA − PE)/(1 − PE) lies in [−PE/(1 − PE), 1]
    # (Light's κ, a mean of pairwise such values, at most 1); SE ≥ 0.
    codes, m = data.draw(_strategy(name))
    weights = data.draw(st.sampled_from([None, "linear", "quadratic"]))
    out = _evaluate(name, codes, m, weights)
    if out is None:
        return
    value, observed, expected, se = out
    if np.isnan(value):  # a documented NaN (degenerate data), with its warning
        return
    assert 0.0 <= observed <= 1.0 + 1e-12
    assert 0.0 <= expected <= 1.0 + 1e-12
    assert value <= 1.0 + 1e-12
    if name != "light_kappa" and expected < 1:
        assert value >= -expected / (1.0 - expected) - 1e-9
    assert np.isnan(se) or se >= 0.0
