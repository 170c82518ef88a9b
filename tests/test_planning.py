"""Planning: annotators needed for a target noise bound (SPEC §2.6; paper §5.3)."""

from __future__ import annotations

import numpy as np
import pytest

from agreement import DegenerateDataWarning
from noise_models import AnnotatorsNeededResult, annotators_needed, noise_bound


def test_paper_third_annotator_example():
    # Paper §5.3: 800 of 1000 items easy; two annotators: "up to 13.8% noise" (exact 125/900,
    # truncated in print); a third (p = 0.25): "most likely ... 850 agreed instances, which
    # would not contain more than 7.7% noise". The exact bound of 850 agreed is 64/850 = 7.53%
    # (the exact computation governs).
    plan = annotators_needed(1000, easy_fraction=0.8, gamma=0.05, max_raters=6)
    assert isinstance(plan, AnnotatorsNeededResult)
    t = plan.table.set_index("k")
    assert t.loc[2, "p"] == 0.5 and t.loc[3, "p"] == 0.25
    assert t.loc[2, "expected_agreed"] == 900 and t.loc[3, "expected_agreed"] == 850
    assert t.loc[2, "gamma"] == 125 / 900
    assert t.loc[3, "gamma"] == pytest.approx(64 / 850)
    assert t.loc[3, "gamma"] == noise_bound(1000, 150, 0.25).gamma
    assert list(t["annotations"]) == [1000 * k for k in range(2, 7)]
    # the smallest k with γ <= 5%
    assert plan.n_raters == int(t.index[t["gamma"] <= 0.05][0]) == 4
    assert bool(t.loc[4, "meets_target"]) and not bool(t.loc[3, "meets_target"])


def test_kappa_reads_as_easy_fraction():
    a = annotators_needed(1000, kappa=0.8, gamma=0.05)
    b = annotators_needed(1000, easy_fraction=0.8, gamma=0.05)
    assert a.n_raters == b.n_raters and a.table.equals(b.table)
    neg = annotators_needed(1000, kappa=-0.2, gamma=0.5, max_raters=5)
    assert neg.easy_items == 0.0


def test_rater_shares():
    shares = np.array([[0.3, 0.7], [0.6, 0.4], [0.5, 0.5], [0.9, 0.1]])
    plan = annotators_needed(500, easy_fraction=0.6, rater_shares=shares, gamma=0.02)
    t = plan.table.set_index("k")
    assert list(t.index) == [2, 3, 4]  # stops at the annotators described
    assert t.loc[2, "p"] == pytest.approx(0.3 * 0.6 + 0.7 * 0.4)
    assert t.loc[3, "p"] == pytest.approx(0.3 * 0.6 * 0.5 + 0.7 * 0.4 * 0.5)
    assert t.loc[4, "p"] == pytest.approx(0.3 * 0.6 * 0.5 * 0.9 + 0.7 * 0.4 * 0.5 * 0.1)
    for k in (2, 3, 4):
        agreed = 300 + 200 * t.loc[k, "p"]
        assert t.loc[k, "expected_agreed"] == pytest.approx(agreed)
        d = 500 - int(np.floor(agreed + 0.5))
        assert t.loc[k, "gamma"] == noise_bound(500, d, t.loc[k, "p"]).gamma


def test_target_unmet_and_degenerate():
    plan = annotators_needed(50, easy_fraction=0.5, gamma=0.001, max_raters=4)
    assert plan.n_raters is None and "no k <= 4" in repr(plan)
    with pytest.warns(DegenerateDataWarning, match="no item is expected to be agreed"):
        plan = annotators_needed(1, easy_fraction=0.0, category_shares=[0.25] * 4, gamma=0.5,
                                 max_raters=3)
    assert np.isnan(plan.table["gamma"]).all() and plan.n_raters is None


def test_result_api():
    plan = annotators_needed(1000, easy_fraction=0.8, gamma=0.05, max_raters=5)
    assert plan.to_dict() == {"n_raters": 4, "n": 1000, "easy_items": 800.0, "gamma": 0.05,
                              "alpha": 0.95, "notes": []}
    frame = plan.to_frame()
    frame.loc[0, "k"] = 99
    assert plan.table.loc[0, "k"] == 2  # a copy
    assert "n_raters=4" in repr(plan)


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"gamma": 0.05}, TypeError, "exactly one of `easy_fraction` or `kappa`"),
    ({"easy_fraction": 0.8, "kappa": 0.8, "gamma": 0.05}, TypeError, "exactly one of"),
    ({"easy_fraction": 1.2, "gamma": 0.05}, ValueError, r"`easy_fraction` must be in \[0, 1\]"),
    ({"kappa": 1.5, "gamma": 0.05}, ValueError, r"`kappa` must be in \[-1, 1\]"),
    ({"kappa": "0.8", "gamma": 0.05}, TypeError, "`kappa` must be a number"),
    ({"easy_fraction": 0.8, "gamma": -0.1}, ValueError, r"`gamma` must be in \[0, 1\]"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "max_raters": 1}, ValueError, "`max_raters` must be"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "alpha": 0}, ValueError, "`alpha` must be in"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "category_shares": [0.5, 0.5],
      "rater_shares": [[0.5, 0.5], [0.5, 0.5]]}, TypeError, "not both"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "rater_shares": [[0.5, 0.5]]}, ValueError,
     "at least two rows"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "rater_shares": [[0.5, 0.6], [0.5, 0.5]]},
     ValueError, r"`rater_shares\[0\]` must sum to 1"),
    ({"easy_fraction": 0.8, "gamma": 0.05, "category_shares": [0.7]}, ValueError, "sum to 1"),
])
def test_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        annotators_needed(1000, **kwargs)


def test_trim_stops_where_more_annotators_change_nothing():
    """The table's useful length is the planner's statistic (it lived in the command line):
    the first k with h·p(k) < 1/2, fewer than half a hard item expected to agree by chance.
    100 items, 80 easy: 20 hard; p(k) = 2^(1-k) gives 20·2^(1-k) < 1/2 first at k = 7."""
    full = annotators_needed(100, easy_fraction=0.8, gamma=0.05, max_raters=20)
    trimmed = annotators_needed(100, easy_fraction=0.8, gamma=0.05, max_raters=20, trim=True)
    assert int(full.table["k"].max()) == 20 and full.notes == ()
    assert int(trimmed.table["k"].max()) == 7
    assert 20 * 2.0 ** (1 - 6) >= 0.5 > 20 * 2.0 ** (1 - 7)
    assert "stops at k = 7" in trimmed.notes[0]
    assert trimmed.table.equals(full.table.iloc[:6])
    # no note when the table ends at max_raters anyway
    assert annotators_needed(100, easy_fraction=0.8, gamma=0.05, max_raters=7,
                             trim=True).notes == ()
    with pytest.raises(TypeError, match="trim"):
        annotators_needed(100, easy_fraction=0.8, gamma=0.05, trim="yes")
