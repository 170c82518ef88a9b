"""One protocol over every public result class (issue: one result protocol).

Every public class of the four packages that derives from
``_goldnoise_lib.results.Result`` is built here through the public function that
returns it, on a small example, and must: be frozen, give ``float()`` when it names
a headline, give a JSON-ready ``to_dict()``, a DataFrame ``to_frame()``, a str
``summary()``, an HTML ``_repr_html_()``, and -- where it defines one --
``confidence_interval(0.9)`` inside (or equal to) ``confidence_interval(0.99)``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import agreement
import goldnoise
import noise_models
import simulation
from _goldnoise_lib.results import ConfidenceInterval, Result

PACKAGES = (agreement, noise_models, simulation, goldnoise)


def _public_result_classes() -> dict[str, type]:
    out = {}
    for pkg in PACKAGES:
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if isinstance(obj, type) and issubclass(obj, Result):
                out[name] = obj
    return out


def _ratings() -> np.ndarray:
    x = np.random.default_rng(0).integers(0, 2, size=(60, 3))
    x[:30] = x[:30, :1]  # 30 unanimous items
    return x


def _soft():
    return noise_models.SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]],
                                   [0, 0, 1, 1])


def _scores_and_truth():
    rng = np.random.default_rng(3)
    truth = np.zeros(80, dtype=bool)
    truth[:16] = True
    scores = pd.Series(rng.normal(size=80) + 1.5 * truth, index=np.arange(80))
    return scores, pd.Series(truth, index=np.arange(80))


def _model_scores():
    return simulation.ModelScores.from_arrays([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]],
                                              kind="probs", items=["a", "b", "c"],
                                              classes=["neg", "pos"])


def _crosscheck():
    sim = simulation.simulate_annotations(200, 5, model="M2", error_rates=0.25,
                                          hard_share=0.0, rng=0)
    labels = sim.ratings.categories[sim.ratings.counts.argmax(axis=1)]
    rng = np.random.default_rng(1)
    p = np.full((200, 2), 0.2)
    p[np.arange(200), sim.true_class] = 0.8
    p = p + rng.uniform(0, 0.1, p.shape)
    p /= p.sum(axis=1, keepdims=True)
    s = simulation.ModelScores.from_arrays(p, kind="probs", items=sim.ratings.items,
                                           classes=sim.ratings.categories)
    return simulation.crosscheck(s, labels, sim.ratings)


def _detected_error_rate():
    scores, truth = _scores_and_truth()
    ranking = simulation.Ranking.from_scores(scores)
    return simulation.detected_error_rate(ranking, truth, top_fraction=0.25)


def _judge_values():
    g = np.random.default_rng(5)
    truth = g.random(300) < 0.4
    judge = np.where(g.random(300) < 0.9, truth, ~truth)
    return truth[:60], judge[:60], judge[60:]


def _judge_table():
    g = np.random.default_rng(6)
    truth = (g.random(200) < 0.4).astype(int)
    table = pd.DataFrame({k: np.where(g.random(200) < 0.1, 1 - truth, truth)
                          for k in ("a", "b", "judge")})
    table.loc[60:, ["a", "b"]] = np.nan
    return table


def _judge_panel():
    # three humans and a judge on 60 items, each wrong one time in five
    g = np.random.default_rng(7)
    truth = g.integers(0, 3, 60)
    wide = np.column_stack([np.where(g.random(60) < 0.2, g.integers(0, 3, 60), truth)
                            for _ in range(4)])
    return agreement.Ratings.from_wide(wide, raters=["h1", "h2", "h3", "judge"])


def _pool_and_truth():
    g = np.random.default_rng(0)
    truth = g.integers(0, 2, 60)
    x = np.where(g.random((60, 5)) < 0.8, truth[:, None], 1 - truth[:, None])
    return x, pd.Series(truth)


#: One small example per public result class, through its public function.
def _votes():
    g = np.random.default_rng(0)
    rows = [(u, "x", "y", h, "a" if g.random() < 0.7 else "b", "human")
            for u in range(30) for h in ("h1", "h2", "h3")]
    rows += [(u, "x", "y", "judge", "a", "llm") for u in range(30)]
    rows += [(30 + u, "y", "z", "h1", "a" if u % 3 else "b", "human") for u in range(9)]
    return pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "rater_kind"])


def _audit_votes():  # preference_audit's docstring example
    g = np.random.default_rng(0)
    rows = []
    for u in range(150):
        better = "a" if g.random() < 0.6 else "b"
        for h in ("h1", "h2", "h3"):
            w = better if g.random() < 0.85 else ("tie" if g.random() < 0.5 else
                                                  {"a": "b", "b": "a"}[better])
            rows.append((u, "x", "y", h, w, "human"))
        rows.append((u, "x", "y", "judge", better if g.random() < 0.75 else "a", "llm"))
    return pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "rater_kind"])


EXAMPLES = {
    "AgreementResult": lambda: agreement.fleiss_kappa(_ratings()),
    "SpanAgreementResult": lambda: agreement.span_agreement(agreement.Spans(pd.DataFrame({
        "document": ["d", "d", "d"], "start": [0, 0, 7], "end": [4, 4, 9],
        "label": ["PER", "PER", "ORG"], "annotator": ["a", "b", "b"]}))),
    "SpanRatings": lambda: agreement.candidate_ratings(agreement.Spans(pd.DataFrame({
        "document": ["d", "d", "d"], "start": [0, 0, 7], "end": [4, 4, 9],
        "label": ["PER", "PER", "ORG"], "annotator": ["a", "b", "b"]})), match="overlap"),
    "SpanNoiseResult": lambda: noise_models.span_noise(_spans_for_noise()),
    "SubsetConsistencyResult": lambda: simulation.subset_consistency(
        agreement.Spans(pd.DataFrame({
            "document": ["d1", "d2", "d3", "d1", "d2"], "start": [0, 0, 0, 0, 0],
            "end": [4, 4, 4, 4, 3], "label": ["PER"] * 5,
            "annotator": ["A", "A", "A", "B", "B"]})),
        agreement.Spans(pd.DataFrame({
            "document": ["d1", "d2", "d3"], "start": [0, 0, 0], "end": [4, 4, 4],
            "label": ["PER"] * 3, "annotator": ["gold"] * 3})),
        conditions=["A", "B"], n_resamples=50, rng=0),
    "UnitizingAlphaResult": lambda: agreement.unitizing_alpha(agreement.Spans(pd.DataFrame({
        "document": ["d", "d", "d"], "start": [0, 0, 7], "end": [4, 4, 9],
        "label": ["PER", "PER", "ORG"], "annotator": ["a", "b", "b"]}), lengths={"d": 12})),
    "SimulatedSpans": lambda: simulation.simulate_spans(5, rng=0),
    "ChanceAgreementResult": lambda: noise_models.chance_agreement(_ratings()),
    "AnnotatorsNeededResult": lambda: noise_models.annotators_needed(
        1000, easy_fraction=0.8, gamma=0.2),
    "ChanceMarginResult": lambda: noise_models.chance_margin(R=100, L=1000),
    "NoiseBoundResult": lambda: noise_models.noise_bound(300, 100, 0.5),
    "KappaRangeResult": lambda: noise_models.kappa_range(100, 70, 3),
    "KappaAuditResult": lambda: noise_models.audit_kappa(_ratings()),
    "NoiseRateResult": lambda: noise_models.noise_rate(_soft()),
    "TransitionHeterogeneityResult": lambda: noise_models.noise_transition_heterogeneity(
        _soft()),
    "TVDistanceResult": lambda: noise_models.tv_distance([[0.5, 0.5], [1.0, 0.0]],
                                                         [[0.7, 0.3], [1.0, 0.0]]),
    "AttractorResult": lambda: noise_models.attractor_class(_soft()),
    "LabelEntropyResult": lambda: noise_models.label_entropy(_soft()),
    "LatentClassFit": lambda: noise_models.EasyHardModel(rng=0).fit(_ratings()),
    "FitNoiseBoundResult": lambda: noise_models.EasyHardModel(rng=0).fit(
        _ratings()).noise_bound(),
    "ErrorBracketResult": lambda: noise_models.agreed_error_bracket(_ratings()),
    "VerifiedSampleBoundResult": lambda: noise_models.verified_sample_bound(1000, 100, 2),
    "ResidualErrorResult": lambda: simulation.residual_errors(
        noise_models.LatentClassModel("one-coin", rng=0).fit(_ratings()),
        noise_models.LatentClassModel("one-coin", rng=0).fit(_ratings()).labels.iloc[:5]),
    "ReplayResult": lambda: simulation.replay(
        _pool_and_truth()[0], truth=_pool_and_truth()[1], policy="uncertainty",
        batch_size=10, rounds=2, model=noise_models.LatentClassModel("one-coin", rng=0),
        rng=0),
    "PolicyComparisonResult": lambda: simulation.compare_policies(
        _pool_and_truth()[0], truth=_pool_and_truth()[1], policies=["uniform", "random"],
        seeds=2, batch_size=10, rounds=2,
        model=noise_models.LatentClassModel("one-coin", rng=0)),
    "PosteriorCheckResult": lambda: noise_models.posterior_check(
        noise_models.LatentClassModel("one-coin", rng=0).fit(_ratings()), rng=0),
    "CalibrationResult": lambda: noise_models.calibration(
        noise_models.LatentClassModel("one-coin", rng=0).fit(_ratings()),
        noise_models.LatentClassModel("one-coin", rng=0).fit(_ratings()).labels.iloc[:10],
        rng=0),
    "PPIResult": lambda: noise_models.ppi_mean(*_judge_values()),
    "JudgeEstimateResult": lambda: noise_models.judge_estimate(_judge_table(), "judge",
                                                               category=1),
    "ActiveSampleResult": lambda: noise_models.active_sample([0.1, 0.5, 0.9, 0.3], budget=2,
                                                             rng=0),
    "RankingResult": lambda: noise_models.rank_systems(_votes()),
    "PreferenceAuditResult": lambda: noise_models.preference_audit(
        _audit_votes(), model="one-coin", n_resamples=10, rng=1),
    "AltTestResult": lambda: agreement.alt_test(_judge_panel(), "judge", epsilon=0.1),
    "ICCResult": lambda: agreement.icc([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
                                        [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]),
    "ConcordanceResult": lambda: agreement.lin_ccc([[1.0, 1.2], [2.0, 2.1], [3.0, 3.3],
                                                    [4.0, 3.8], [5.0, 5.4]]),
    "KendallWResult": lambda: agreement.kendall_w([[1, 2, 1], [2, 1, 3], [3, 3, 2],
                                                   [4, 4, 4]]),
    "JudgeAuditResult": lambda: goldnoise.judge_audit(_judge_panel(), ["judge"], margin=0.1,
                                                      n_resamples=50, latent_resamples=5,
                                                      rng=0),
    "SwapTestResult": lambda: noise_models.swap_test(_judge_panel(), ["judge"], margin=0.1,
                                                   n_resamples=50, rng=0),
    "SimulatedAnnotations": lambda: simulation.simulate_annotations(50, 3, rng=0),
    "BootstrapResult": lambda: agreement.bootstrap(["fleiss_kappa", "gwet_ac1"], _ratings(),
                                                    n_resamples=199, rng=0),
    "CrosscheckResult": _crosscheck,
    "DetectionResult": lambda: simulation.detection_metrics(*_scores_and_truth(),
                                                            n_resamples=199, rng=0),
    "DetectedErrorRateResult": _detected_error_rate,
    "ModelScores": _model_scores,
    "NoisyLabels": lambda: simulation.dissenting_label(
        np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]]), [0, 1, 0, 1], rate=0.5,
        rng=0),
    "Ranking": lambda: simulation.label_error_ranking(_model_scores(), ["neg", "neg", "neg"]),
    "AuditResult": lambda: goldnoise.audit(_ratings()),
    "SeparabilityResult": lambda: simulation.loss_separability(
        np.random.default_rng(0).normal(size=60) + np.r_[np.zeros(40), np.ones(20)], None,
        np.r_[np.zeros(40, bool), np.ones(20, bool)], n_resamples=200, rng=0),
    "StudyPlan": lambda: simulation.study_size_for_minimum(0.8, significance=0.05,
                                                           n_categories=4),
    "JudgePlan": lambda: simulation.judge_plan(target=0.03, correlation=0.6, sd=0.45,
                                               within_sd=0.3, n_judged=10_000),
    "StudyTradeoff": lambda: simulation.study_tradeoff("fleiss_kappa", expected=0.6,
                                                       target=0.1, raters=[2, 4], n_sims=100,
                                                       n_bootstrap_sims=0, rng=0),
}

def _spans_for_noise():
    # 30 documents, 3 entities each, 3 annotators; annotator c mislabels one in five.
    rows = []
    for d in range(30):
        for e, start in enumerate((0, 10, 20)):
            for a in "abc":
                label = "PER" if (d + e) % 2 else "ORG"
                if a == "c" and (d * 3 + e) % 5 == 0:
                    label = "LOC"
                rows.append((f"d{d}", start, start + 4, label, a))
    return agreement.Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
                                                       "annotator"]))


CLASSES = _public_result_classes()


def _private_keys(value, where="") -> list[str]:
    """The keys starting with ``_`` at any depth of a ``to_dict()``."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if str(k).startswith("_"):
                out.append(f"{where}.{k}")
            out += _private_keys(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _private_keys(v, f"{where}[{i}]")
    return out


def test_every_public_result_class_has_an_example():
    missing = sorted(set(CLASSES) - set(EXAMPLES))
    assert not missing, (f"public result classes without an example here: {missing}; add a "
                         "small one to EXAMPLES (built through the public function)")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_result_protocol(name):
    if name not in CLASSES:
        pytest.skip(f"{name} is not a public Result class")
    res = EXAMPLES[name]()
    cls = CLASSES[name]
    assert type(res) is cls
    assert dataclasses.is_dataclass(res)
    # frozen
    field = dataclasses.fields(res)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(res, field, getattr(res, field))
    # the headline
    if cls._headline:
        assert float(res) == pytest.approx(float(getattr(res, cls._headline)), nan_ok=True)
    else:
        with pytest.raises(TypeError):
            float(res)
    # to_dict: JSON-ready, stable
    d = res.to_dict()
    assert isinstance(d, dict) and d
    json.dumps(d, allow_nan=True)
    # to_frame, summary, notebook view
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    # no private key or column: not at any depth of to_dict, not in the frame
    assert not _private_keys(d), _private_keys(d)
    private = [c for c in [*frame.columns, *frame.index.names]
               if isinstance(c, str) and c.startswith("_")]
    assert not private, private
    text = res.summary()
    assert isinstance(text, str) and text
    page = res._repr_html_()
    assert isinstance(page, str) and "<table" in page
    # one meaning of confidence_interval
    if hasattr(res, "confidence_interval"):
        narrow = res.confidence_interval(0.9)
        wide = res.confidence_interval(0.99)
        assert isinstance(narrow, ConfidenceInterval)
        lo9, hi9 = np.asarray(narrow.low, float), np.asarray(narrow.high, float)
        lo99, hi99 = np.asarray(wide.low, float), np.asarray(wide.high, float)
        assert np.all(np.isfinite(lo9)) and np.all(np.isfinite(hi9)), narrow
        assert np.all(lo99 <= lo9) and np.all(hi9 <= hi99)
        assert np.any(lo99 < lo9) or np.any(hi9 < hi99)
        with pytest.raises(ValueError, match="`confidence_level`"):
            res.confidence_interval(1.5)
        with pytest.raises(TypeError, match="`confidence_level`"):
            res.confidence_interval([0.9])


def test_interval_fields_kept_readable():
    """Older spellings keep working: BootstrapResult's field, DetectionResult's metric."""
    boot = EXAMPLES["BootstrapResult"]()
    assert np.array_equal(boot.confidence_interval().low, boot.interval.low)
    assert np.array_equal(boot.confidence_interval(boot.confidence_level).high,
                          boot.interval.high)
    det = EXAMPLES["DetectionResult"]()
    assert det.metric_interval("auroc") == det.intervals["auroc"]
    assert det.confidence_interval() == det.intervals["average_precision"]
    rate = _detected_error_rate()
    assert rate.confidence_interval() == rate.interval
    assert not math.isnan(rate.confidence_interval(0.5).low)


def test_the_declared_shape_writes_the_protocol():
    """The base writes to_dict, to_frame and summary from the declared shape alone."""

    @dataclasses.dataclass(frozen=True)
    class Toy(Result):
        _keys = ("n", "first=items.0", "rows=table.shape.0", "total=table.x.sum", "notes")
        _columns: ClassVar[dict[str, str]] = {"x": "table.x", "k": "table.k", "gone": "missing"}
        _index = "row=table.index"
        _summary = ("Toy of {n} items: {passed:passes|fails} at {level:g%} ({share:.1%})",
                    "  optional {missing:.2f}",
                    ("table", "  {name}: {x:.1f} ({k:d}){flag: flagged|}"),
                    ("table", "{flag:  {name} is flagged|  {name} is not}"),
                    ("items", "  item {}"),
                    ("passed", "  shown because passed"),
                    ("missing", "  never shown"),
                    ("notes", "  note: {}"))

        n: int
        passed: bool
        level: float
        share: float
        table: pd.DataFrame
        items: tuple
        missing: float | None = None
        notes: tuple = ("one", "two")

    table = pd.DataFrame({"x": [1.0, 2.5], "k": [3.0, 4.0], "flag": [True, False]},
                         index=["a", "b"])
    toy = Toy(3, True, 0.95, 0.125, table, ("i", "j"))
    assert toy.summary() == "\n".join([
        "Toy of 3 items: passes at 95% (12.5%)",
        "  a: 1.0 (3) flagged", "  b: 2.5 (4)",
        "  a is flagged", "  b is not",
        "  item i", "  item j",
        "  shown because passed",
        "  note: one", "  note: two"])
    assert toy.to_dict() == {"n": 3, "first": "i", "rows": 2, "total": 3.5,
                             "notes": "one; two"}
    frame = toy.to_frame()
    assert list(frame.columns) == ["x", "k"] and frame.index.name == "row"
    assert frame.index.tolist() == ["a", "b"] and frame["x"].tolist() == [1.0, 2.5]
    failed = dataclasses.replace(toy, passed=False, missing=0.5, items=())
    assert failed.summary().splitlines()[:2] == ["Toy of 3 items: fails at 95% (12.5%)",
                                                 "  optional 0.50"]
    assert "shown because passed" not in failed.summary()


def test_the_declared_rows_nesting_and_template_additions():
    """Per-label rows, nested tables, and the summary's additions to str.format."""

    @dataclasses.dataclass(frozen=True)
    class Toy(Result):
        _keys = ("a", "notes[]", "stats=to_frame", "first=by_name.x.0")
        _nested = "stats"
        _rows: ClassVar[dict[str, str]] = {"a": "the first", "b": "the second"}
        _columns: ClassVar[dict[str, str]] = {
            "label": "@", "value": "{}", "low": "{}_iv.low", "what": "_rows.{}",
            "high": "interval({}).high", "extra": "{}_extra"}
        _summary = ("{kind==big:Big|Small} toy of {items!n} {items!n:item|items}"
                    "(( at {level:.0%}))(({optional:maybe|}))",
                    "  {kind!u} {items!l} {b:.2f} {gap:.2f} {lam==None:no lambda|lambda {lam}}",
                    ("kind==big", "  only for a big toy"), ("kind!=big", "  not big"),
                    ("lam==None", "  lambda missing"),
                    "  table:", "    {table:.1table}",
                    "  gone {optional:.1f}", ("notes", "  note: {}"))

        a: float
        b: float
        a_iv: ConfidenceInterval
        b_iv: ConfidenceInterval
        kind: str
        items: tuple
        table: pd.DataFrame
        by_name: dict
        gap: float = math.nan
        level: float | None = None
        optional: bool | None = None
        lam: float | None = None
        notes: tuple = ("one",)
        a_extra: float = 3.0

        def interval(self, name):
            return getattr(self, f"{name}_iv")

    table = pd.DataFrame({"x": [1.04, 2.0]}, index=pd.Index(["p", "q"], name="row"))
    toy = Toy(0.5, 0.25, ConfidenceInterval(0.1, 0.9), ConfidenceInterval(0.0, 0.5), "big",
              ("i",), table, {"x": (7, 8)})
    assert toy.summary() == "\n".join([
        "Big toy of 1 item", "  BIG ['i'] 0.25 NaN no lambda", "  only for a big toy",
        "  lambda missing", "  table:", "           x", "    row     ", "    p    1.0", "    q    2.0",
        "  note: one"])
    other = dataclasses.replace(toy, kind="small", items=("i", "j"), level=0.9, lam=0.5,
                                optional=True)
    assert other.summary().splitlines()[:3] == [
        "Small toy of 2 items at 90%maybe", "  SMALL ['i', 'j'] 0.25 NaN lambda 0.5",
        "  not big"]
    frame = toy.to_frame()
    assert frame.index.tolist() == [0, 1] and list(frame.columns) == [
        "label", "value", "low", "what", "high", "extra"]
    assert frame["label"].tolist() == ["a", "b"] and frame["low"].tolist() == [0.1, 0.0]
    assert frame["what"].tolist() == ["the first", "the second"]
    assert frame["high"].tolist() == [0.9, 0.5]
    assert frame["extra"].iloc[0] == 3.0 and math.isnan(frame["extra"].iloc[1])  # b has none
    d = toy.to_dict()
    assert d["stats"]["1"]["extra"] != d["stats"]["1"]["extra"]  # NaN
    d["stats"]["1"].pop("extra")
    assert d == {"a": 0.5, "notes": ["one"], "first": 7,
                 "stats": {"0": {"label": "a", "value": 0.5, "low": 0.1, "what": "the first",
                                 "high": 0.9, "extra": 3.0},
                           "1": {"label": "b", "value": 0.25, "low": 0.0,
                                 "what": "the second", "high": 0.5}}}
    json.dumps(d)
