"""Numba kernels that encode labels and long rows into the integer code matrix.

The readers of :mod:`agreement._encoding` (and :meth:`~agreement.Ratings.from_long`)
call these: integrality and range scans, offset and remap coding of small integer
labels, a dense factorisation of ids, and the scatter of long rows into the
items × annotators matrix. Conventions as in :mod:`agreement._kernels`: private,
compiled lazily (``cache=True``), importing this module compiles nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from _goldnoise_lib.threads import kernel_input


@njit(cache=True)
def _lookup_codes(values, offset, table, out):
    # Map integer-valued labels through a dense lookup table; NaN -> -1.
    flat_in = values.ravel()
    flat_out = out.ravel()
    for t in range(flat_in.size):
        v = flat_in[t]
        if v != v:  # NaN marks a missing rating
            flat_out[t] = -1
        else:
            flat_out[t] = table[np.int64(v) - offset]
    return out


def lookup_codes(values: np.ndarray, offset: int, table: np.ndarray, dtype) -> np.ndarray:
    """Code an integer-valued float array through ``table[v - offset]``."""
    out = np.empty(values.shape, dtype=dtype)
    return _lookup_codes(np.ascontiguousarray(values, dtype=np.float64), offset, table, out)


# Fast coding of integral labels (Ratings._encode_integral): one scan for the
# range, one pass that writes ``v - min`` (NaN, a missing rating, -> -1) and
# marks the values present, and, only when some value in the range is absent,
# a remap of the small integer codes. Written without data-dependent branches
# so that randomly placed NaNs cost nothing.
@njit(cache=True, error_model="numpy")
def _scan_integral(flat):
    # (a non-missing label is fractional, min, max) over the non-NaN labels;
    # min = +inf when every label is missing.
    lo = np.inf
    hi = -np.inf
    bad = False
    for t in range(flat.size):
        v = flat[t]
        ok = v == v
        lo = min(lo, v if ok else np.inf)
        hi = max(hi, v if ok else -np.inf)
        bad |= ok and (v != np.floor(v))
    return bad, lo, hi


@njit(cache=True, error_model="numpy")
def _offset_codes(flat, lo, span, out):
    present = np.zeros(span + 1, dtype=np.bool_)  # slot 0 takes the NaNs
    for t in range(flat.size):
        v = flat[t]
        c = np.int64(v - lo) if v == v else -1
        out[t] = c
        present[c + 1] = True
    return present[1:]


@njit(cache=True, error_model="numpy")
def _remap_codes(raw, table, out):
    ext = np.empty(table.size + 1, dtype=out.dtype)  # slot 0 keeps -1 at -1
    ext[0] = -1
    for c in range(table.size):
        ext[c + 1] = table[c]
    for t in range(raw.size):
        out[t] = ext[raw[t] + 1]
    return out


@njit(cache=True, error_model="numpy")
def _offset_small(flat, lo, out):
    # One vectorisable pass for a range of at most 62 values: codes v - lo
    # (NaN -> -1), whether any label is fractional, and the values present as
    # the bits 1..span of a mask (bit 0 takes the NaNs).
    bad = False
    mask = np.uint64(0)
    one = np.uint64(1)
    for t in range(flat.size):
        v = flat[t]
        d = v - lo if v == v else -1.0
        c = np.int64(d)
        bad |= d != c
        out[t] = c
        mask |= one << np.uint64(c + 1)
    return bad, mask


@njit(cache=True, error_model="numpy")
def _offset_small_int(flat, lo, out):
    # _offset_small for integer labels: no NaN, no fractions, no float round trip.
    mask = np.uint64(0)
    one = np.uint64(1)
    for t in range(flat.size):
        c = np.int64(flat[t]) - lo
        out[t] = c
        mask |= one << np.uint64(c + 1)
    return mask


@njit(cache=True, error_model="numpy")
def _small_int_codes(flat, out):
    # Speculative single pass for integer labels 0..61: the label is its own
    # provisional code; min, max and the presence mask come along. The caller
    # keeps the codes only if 0 <= min and max <= 61 (clamping keeps the shift
    # and the int8 store defined whatever the labels).
    lo = flat[0]
    hi = flat[0]
    mask = np.uint64(0)
    one = np.uint64(1)
    for t in range(flat.size):
        v = flat[t]
        lo = min(lo, v)
        hi = max(hi, v)
        c = min(max(np.int64(v), np.int64(0)), np.int64(61))
        out[t] = c
        mask |= one << np.uint64(c + 1)
    return lo, hi, mask


# Below this many labels or ids, the readers' one-pass helpers run in NumPy: their work
# is exact integer work, the same result, and a first run reading a crowd file (2,400 to
# 16,000 ratings) compiles none of them (about 0.5 s of CPU); at a million rows the
# single Numba pass is several times faster than NumPy's reductions and sort.
SMALL_PASS = 1 << 16


def small_int_codes(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer labels all in 0..61: int8 codes equal to the labels and the values present."""
    if flat.size <= SMALL_PASS:
        lo, hi = int(flat.min()), int(flat.max())
        if not (0 <= lo and hi <= 61):
            return None
        out = flat.astype(np.int8)
        present = np.zeros(hi + 1, dtype=bool)
        present[out] = True
        return out, present
    out = np.empty(flat.size, dtype=np.int8)
    lo, hi, mask = _small_int_codes(flat, out)
    if not (0 <= lo and hi <= 61):
        return None
    mask = int(mask)
    present = np.array([(mask >> (c + 1)) & 1 for c in range(int(hi) + 1)], dtype=bool)
    return out, present


SMALL_SPAN = 62


@njit(cache=True, error_model="numpy")
def _int_range(flat):
    # min and max of integer labels in one pass (integer reductions vectorise).
    lo = flat[0]
    hi = flat[0]
    for t in range(flat.size):
        v = flat[t]
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def int_range(flat: np.ndarray) -> tuple[int, int]:
    """Min and max of a non-empty integer array, in one pass."""
    if flat.size <= SMALL_PASS:
        return int(flat.min()), int(flat.max())
    lo, hi = _int_range(kernel_input(flat))
    return int(lo), int(hi)


def offset_small(flat: np.ndarray, lo: int, span: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes ``v - lo`` (int8, NaN -> -1) and the values present, for ``span <= 62``.

    ``lo`` and ``lo + span - 1`` must be the exact min and max of the non-NaN
    labels. None if some label is fractional.
    """
    out = np.empty(flat.size, dtype=np.int8)
    flat = kernel_input(flat)  # read-only or not: one specialisation
    if flat.dtype.kind in "iu":
        mask = int(_offset_small_int(flat, lo, out))
    else:
        bad, mask = _offset_small(flat, float(lo), out)
        if bad:
            return None
        mask = int(mask)
    present = np.array([(mask >> (c + 1)) & 1 for c in range(span)], dtype=bool)
    return out, present


def scan_integral(flat: np.ndarray) -> tuple[bool, float, float]:
    """Whether every non-missing label is integral, and the labels' min and max.

    ``inf`` labels pass as integral and show in the range; all-missing gives
    ``min = inf``.
    """
    bad, lo, hi = _scan_integral(flat)
    return not bool(bad), float(lo), float(hi)


def offset_codes(flat: np.ndarray, lo: int, span: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """``v - lo`` for each label (-1 for NaN) and the mask of the values present."""
    out = np.empty(flat.size, dtype=dtype)
    present = _offset_codes(flat, lo, span, out)
    return out, present


def remap_codes(raw: np.ndarray, table: np.ndarray, dtype) -> np.ndarray:
    """``table[c]`` for each code ``c >= 0``; -1 stays -1."""
    return _remap_codes(raw, table, np.empty(raw.size, dtype=dtype))



@njit(cache=True, error_model="numpy")
def _dense_factorize(values, lo, span, codes, uniq):
    """``pd.factorize`` of integers in ``lo .. lo + span - 1`` by a lookup table: codes in
    order of first appearance; returns the number of distinct values."""
    table = np.full(span, -1, dtype=np.int32)
    nxt = 0
    for r in range(values.size):
        v = values[r]
        c = table[v - lo]
        if c < 0:
            c = nxt
            table[v - lo] = c
            uniq[c] = v
            nxt += 1
        codes[r] = c
    return nxt


def dense_factorize(values: np.ndarray, wide: int = 1) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes (intp) and distinct values of integer ids, as ``pd.factorize`` gives them,
    when their range is at most ``wide`` × their number (the int32 table is then at most
    ``wide`` / 2 × the codes); None otherwise."""
    if values.dtype.kind not in "iu" or values.size == 0:
        return None
    lo, hi = int_range(values)
    span = int(hi) - int(lo) + 1
    if span > max(wide * values.size, 1 << 16) or span >= 2**31:
        return None
    if values.size <= SMALL_PASS:  # the same codes by a sort: first appearances in order
        uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(order.size, dtype=np.intp)
        rank[order] = np.arange(order.size)
        return rank[inverse.ravel()], uniq[order]
    codes = np.empty(values.size, dtype=np.intp)
    uniq = np.empty(min(span, values.size), dtype=values.dtype)
    m = _dense_factorize(values, lo, span, codes, uniq)
    return codes, uniq[:m].copy()


@njit(cache=True, error_model="numpy")
def _scatter_long(item_codes, rater_codes, label_codes, out):
    """``out[item, rater] = label`` row by row; the first repeated cell's row, or -1.

    ``out`` starts at -2 (no row yet) so that a repeated (item, annotator) is seen
    even when the first of its rows has a missing label (-1). Cells left at -2 are
    set to -1 (not rated) at the end.
    """
    n = item_codes.size
    for r in range(n):
        i = item_codes[r]
        j = rater_codes[r]
        if out[i, j] != -2:
            return r
        out[i, j] = label_codes[r]
    flat = out.reshape(-1)
    for c in range(flat.size):
        if flat[c] == -2:
            flat[c] = -1
    return -1


def scatter_long(item_codes: np.ndarray, rater_codes: np.ndarray, label_codes: np.ndarray,
                 n_items: int, n_raters: int) -> np.ndarray | None:
    """Items × annotators codes from long rows (codes of each column), or None when
    an (item, annotator) pair repeats. The codes keep ``label_codes``' dtype."""
    if item_codes.size <= SMALL_PASS:
        cells = np.sort(np.asarray(item_codes, dtype=np.int64) * n_raters + rater_codes)
        if (cells[1:] == cells[:-1]).any():
            return None
        out = np.full((n_items, n_raters), -1, dtype=label_codes.dtype)
        out[item_codes, rater_codes] = label_codes
        return out
    out = np.full((n_items, n_raters), -2, dtype=label_codes.dtype)
    first = _scatter_long(item_codes, rater_codes, label_codes, out)
    return None if first >= 0 else out
