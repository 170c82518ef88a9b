"""Result objects show as HTML tables in notebooks (``_repr_html_``)."""

from __future__ import annotations

import html
import math

import numpy as np
import pytest

import goldnoise as gn
from goldnoise.datasets import load_dawid_skene1979, load_fleiss1971


def _anaesthesia():
    long = load_dawid_skene1979()
    long["rater"] = long["observer"].astype(str) + "." + long["replicate"].astype(str)
    return gn.Ratings.from_long(long, item="patient", rater="rater", label="rating")


def _results():
    fleiss = gn.Ratings.from_wide(load_fleiss1971())
    r = _anaesthesia()
    with pytest.warns(gn.UnstableStartsWarning):  # these 45 patients: see test_honest_posteriors
        fit = gn.LatentClassModel("confusion", rng=0).fit(r)
    soft = gn.SoftLabels.from_ratings(r)
    return {
        "AgreementResult": gn.fleiss_kappa(fleiss),
        "NoiseBoundResult": gn.noise_bound(1000, 100, 0.5),
        "ChanceAgreementResult": gn.chance_agreement(fleiss),
        "KappaAuditResult": gn.audit_kappa(0.8, n=1000, n_raters=2, p=0.5),
        "KappaRangeResult": gn.kappa_range(1000, 660, 5),
        "ChanceMarginResult": gn.chance_margin(L=900, R=125),
        "AnnotatorsNeededResult": gn.annotators_needed(1000, easy_fraction=0.8, gamma=0.05,
                                                       max_raters=5),
        "LatentClassFit": fit,
        "FitNoiseBoundResult": gn.EasyHardModel(rng=0).fit(r).noise_bound(),
        "ErrorBracketResult": gn.agreed_error_bracket(r, model=fit),
        "VerifiedSampleBoundResult": gn.verified_sample_bound(10_000, 500, 4),
        "NoiseRateResult": gn.noise_rate(soft),
        "TransitionHeterogeneityResult": gn.noise_transition_heterogeneity(soft),
        "TVDistanceResult": gn.tv_distance(soft, soft),
        "AttractorResult": gn.attractor_class(soft),
        "LabelEntropyResult": gn.label_entropy(soft),
        "BootstrapResult": gn.bootstrap(["fleiss_kappa", "gwet_ac1"], fleiss, n_resamples=50, rng=0),
    }


@pytest.fixture(scope="module")
def results():
    return _results()


def test_every_result_has_an_html_table(results):
    for cls, obj in results.items():
        assert type(obj).__name__ == cls
        page = obj._repr_html_()
        assert page.startswith("<div>") and "<table>" in page, cls
        assert html.escape(repr(obj)) in page, cls
        for key, value in obj.to_dict().items():
            if isinstance(value, dict):  # per-statistic entries: the to_frame() table
                assert "<table border" in page, cls
                continue
            assert f"<th style='text-align:left'>{html.escape(str(key))}</th>" in page
            if isinstance(value, float) and math.isfinite(value):
                assert f"{value:.6g}" in page, (cls, key)


def test_tables_of_several_rows_are_shown(results):
    plan = results["AnnotatorsNeededResult"]._repr_html_()
    assert plan.count("<table") == 2 and "expected_agreed" in plan
    fit = results["LatentClassFit"]._repr_html_()
    assert "label_posterior" in fit and "..." in fit  # 45 items, the first ones shown
    one_row = results["NoiseBoundResult"]._repr_html_()
    assert one_row.count("<table") == 1


def test_values_are_the_objects_own(results):
    page = results["NoiseBoundResult"]._repr_html_()
    assert "0.138889" in page and ">125<" in page
    assert np.isclose(results["NoiseBoundResult"].gamma, 125 / 900)
