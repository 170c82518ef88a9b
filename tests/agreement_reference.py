"""Slow reference implementations of the agreement coefficients, from their definitions.

Plain Python loops over items, annotators and categories, written from the formulas in
SPEC §1 and Gwet (2014) / irrCAC 1.0 (point estimates and Gwet's linearised variance),
Fleiss, Cohen & Everitt (1969) for Cohen's κ, and Light (1971) — independently of the
package's per-item column layouts and kernels, to check them.

``data`` is a list of rows (items), each a list of category codes ``0..m-1`` or ``None``
(missing); ``w`` an m × m list of lists of agreement weights (identity if None).
"""

from __future__ import annotations

import math

COEFFICIENTS = ("percent_agreement", "fleiss_kappa", "scott_pi", "cohen_kappa",
                "conger_kappa", "light_kappa", "brennan_prediger", "gwet_ac1")


def identity(m):
    return [[1.0 if a == b else 0.0 for b in range(m)] for a in range(m)]


def _rated(data):
    """Items with at least one rating (Gwet 2014: an item with no rating is dropped)."""
    return [list(row) for row in data if any(x is not None for x in row)]


def _pa_item(row, w):
    xs = [x for x in row if x is not None]
    r = len(xs)
    if r < 2:
        return None
    agree = sum(w[a][b] for ia, a in enumerate(xs) for ib, b in enumerate(xs) if ia != ib)
    return agree / (r * (r - 1))


def _observed(rows, w):
    pas = [_pa_item(row, w) for row in rows]
    paired = [p for p in pas if p is not None]
    return pas, sum(paired) / len(paired), len(paired)


def _pi(rows, m):
    # π_c: the mean over rated items of a_ic / r_i.
    out = [0.0] * m
    for row in rows:
        xs = [x for x in row if x is not None]
        for x in xs:
            out[x] += 1.0 / len(xs)
    return [v / len(rows) for v in out]


def _rater_marginals(rows, m):
    k = len(rows[0])
    margins = {}
    for g in range(k):
        xs = [row[g] for row in rows if row[g] is not None]
        if xs:
            margins[g] = ([xs.count(c) / len(xs) for c in range(m)], len(xs))
    return margins


def _kappa(pa, pe):
    return (pa - pe) / (1.0 - pe)


def count_family(name, data, m, w=None):
    """Percent agreement, Fleiss/Scott, Brennan-Prediger, Gwet: value, PA, PE, SE."""
    w = w or identity(m)
    rows = _rated(data)
    n = len(rows)
    pas, pa, n2 = _observed(rows, w)
    pi = _pi(rows, m)
    total_w = sum(sum(r) for r in w)
    if name == "percent_agreement":
        pe = 0.0
    elif name in ("fleiss_kappa", "scott_pi"):
        pe = sum(w[a][b] * pi[a] * pi[b] for a in range(m) for b in range(m))
    elif name == "brennan_prediger":
        pe = total_w / m**2
    else:
        pe = total_w / (m * (m - 1)) * sum(p * (1 - p) for p in pi)
    kappa = _kappa(pa, pe)
    # Gwet's linearised values (irrCAC 1.0: *.raw functions).
    lin = []
    for row, pa_i in zip(rows, pas, strict=True):
        xs = [x for x in row if x is not None]
        r = len(xs)
        pair = pa_i is not None
        first = (n / n2) * ((pa_i if pair else 0.0) - (pe if pair else 0.0)) / (1 - pe)
        if name in ("fleiss_kappa", "scott_pi"):
            pe_i = sum(sum((w[x][l_] + w[l_][x]) / 2 * pi[l_] for l_ in range(m))
                       for x in xs) / r
        elif name == "gwet_ac1":
            pe_i = total_w / (m * (m - 1)) * sum(1 - pi[x] for x in xs) / r
        else:
            pe_i = pe
        lin.append(first - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe))
    se = math.sqrt(sum((v - kappa) ** 2 for v in lin) / (n * (n - 1))) if n > 1 else math.nan
    return {"value": kappa, "observed": pa, "expected": pe, "se": se, "n": n, "n2": n2}


def conger(data, m, w=None):
    """Conger's κ with Gwet's variance (literal λ_ig of Gwet 2014), and per-item values."""
    w = w or identity(m)
    rows = _rated(data)
    n = len(rows)
    pas, pa, n2 = _observed(rows, w)
    margins = _rater_marginals(rows, m)
    raters = sorted(margins)
    ke = len(raters)
    pe = 0.0
    for g in raters:
        for h in raters:
            if g != h:
                pg, ph = margins[g][0], margins[h][0]
                pe += sum(w[a][b] * pg[a] * ph[b] for a in range(m) for b in range(m))
    pe /= ke * (ke - 1)
    kappa = _kappa(pa, pe)
    pbar = [sum(margins[g][0][c] for g in raters) / ke for c in range(m)]
    lin = []
    for row, pa_i in zip(rows, pas, strict=True):
        lam = 0.0
        for g in raters:
            pg, ng = margins[g]
            eps = 1.0 if row[g] is not None else 0.0
            inner_k = 0.0
            for a in range(m):
                inner = sum(w[a][b] * ((1.0 if row[g] == b else 0.0) - (eps - ng / n) * pg[b])
                            for b in range(m))
                inner_k += (ke * pbar[a] - pg[a]) * inner
            lam += (n / ng) * inner_k
        pe_i = lam / (ke * (ke - 1))
        pair = pa_i is not None
        first = (n / n2) * ((pa_i if pair else 0.0) - (pe if pair else 0.0)) / (1 - pe)
        lin.append(first - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe))
    se = math.sqrt(sum((v - kappa) ** 2 for v in lin) / (n * (n - 1))) if n > 1 else math.nan
    return {"value": kappa, "observed": pa, "expected": pe, "se": se, "n": n, "n2": n2,
            "linearised": lin, "rows": rows}


def cohen(data, m, w=None):
    """Cohen's κ: Fleiss-Cohen-Everitt SE with complete data, else Conger's (Gwet) SE."""
    w = w or identity(m)
    raters = [g for g in range(len(data[0])) if any(row[g] is not None for row in data)]
    two = [[row[g] for g in raters] for row in data]
    out = conger(two, m, w)
    rows = out["rows"]
    if all(x is not None for row in rows for x in row):
        n = len(rows)
        p = [[sum(1 for row in rows if row == [a, b]) / n for b in range(m)] for a in range(m)]
        p1 = [sum(p[a]) for a in range(m)]
        p2 = [sum(p[a][b] for a in range(m)) for b in range(m)]
        kappa, pe = out["value"], out["expected"]
        wr = [sum(p2[b] * w[a][b] for b in range(m)) for a in range(m)]  # w̄_a·
        wc = [sum(p1[a] * w[a][b] for a in range(m)) for b in range(m)]  # w̄_·b
        total = sum(p[a][b] * (w[a][b] - (wr[a] + wc[b]) * (1 - kappa)) ** 2
                    for a in range(m) for b in range(m))
        var = (total - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
        out["se"] = math.sqrt(max(var, 0.0))
    return out


def light(data, m, w=None):
    """Light's κ: mean pairwise Cohen κ; SE from the mean of the pairs' Gwet linearisation."""
    w = w or identity(m)
    rows_all = _rated(data)
    n = len(rows_all)
    k = len(data[0])
    kappas, pas, pes = [], [], []
    u = [0.0] * n
    for g in range(k):
        for h in range(g + 1, k):
            idx = [i for i, row in enumerate(rows_all)
                   if row[g] is not None or row[h] is not None]
            sub = [[rows_all[i][g], rows_all[i][h]] for i in idx]
            if not any(a is not None and b is not None for a, b in sub):
                continue
            if not all(any(row[c] is not None for row in sub) for c in (0, 1)):
                continue
            res = conger(sub, m, w)
            if not (1 - res["expected"]) > 1e-12:
                continue
            kappas.append(res["value"])
            pas.append(res["observed"])
            pes.append(res["expected"])
            for i, v in zip(idx, res["linearised"], strict=True):
                u[i] += (n / len(idx)) * (v - res["value"])
    npairs = len(kappas)
    value = sum(kappas) / npairs
    se = math.sqrt(sum((x / npairs) ** 2 for x in u) / (n * (n - 1))) if n > 1 else math.nan
    n2 = sum(1 for row in rows_all if sum(x is not None for x in row) >= 2)
    return {"value": value, "observed": sum(pas) / npairs, "expected": sum(pes) / npairs,
            "se": se, "n": n, "n2": n2}


def reference(name, data, m, w=None):
    """Dispatch to the reference of coefficient ``name``."""
    if name == "conger_kappa":
        return conger(data, m, w)
    if name == "cohen_kappa":
        return cohen(data, m, w)
    if name == "light_kappa":
        return light(data, m, w)
    return count_family(name, data, m, w)
