"""The public API is pinned: a name appears or disappears only on purpose.

As scipy does, each package's ``__init__`` is a curated re-export and
``__all__`` is its public surface; nothing private may leak into it, and
the top-level ``goldnoise`` namespace re-exports all of it.
"""

from __future__ import annotations

import importlib
import itertools

import pytest

PUBLIC = {
    "agreement": {
        "AgreementResult", "ConfidenceInterval", "ConvergenceWarning", "DegenerateDataWarning",
        "EstimationWarning", "FinalizedCoefficient", "GoldnoiseWarning", "ItemStatistics",
        "Ratings", "ShapeError", "agreement_table", "as_ratings", "brennan_prediger",
        "cohen_kappa", "conger_kappa", "fleiss_kappa", "gwet_ac1", "item_statistics",
        "krippendorff_alpha", "light_kappa", "percent_agreement", "scott_pi",
        "LabelWarning", "TestResult", "UnstableStartsWarning", "category_kappas",
        "named_weights",
        "CoefficientInfo", "coefficient_info",
        # larger than memory: partial -> combine -> finalize
        "STATISTICS", "ChunkedRatings", "PartialSums", "combine_sums", "finalize_sums",
        "partial_sums", "ratings_chunk", "ratings_schema",
        # spans (named entities, segments)
        "SpanAgreementResult", "Spans", "decode_tags", "read_brat", "read_conll", "read_jsonl",
        "read_labelstudio", "span_agreement", "token_agreement", "token_ratings",
        "SpanRatings", "candidate_ratings", "MATCHES",
        "DocumentStatistics", "UnitizingAlphaResult", "document_statistics", "unitizing_alpha",
        # judges: the Alternative Annotator Test (SPEC §10)
        "AltTestResult", "alt_test",
        # rating scales (SPEC §11)
        "ICCResult", "icc", "ConcordanceResult", "lin_ccc", "KendallWResult", "kendall_w",
        "SCALE_STATISTICS",
        # the bootstrap over items and documents (the resampling core's public faces)
        "BootstrapResult", "bootstrap", "bootstrap_rows", "span_intervals",
        "PoissonParts", "poisson_combine", "poisson_finalize", "poisson_partial",
    },
    "noise_models": {
        "AnnotatorsNeededResult", "AttractorResult", "ChanceAgreementResult",
        "ChanceMarginResult", "EasyHardModel", "ErrorBracketResult", "FitNoiseBoundResult",
        "HardCountPosterior", "KappaAuditResult", "KappaRangeResult", "LabelEntropyResult",
        "LatentClassFit", "LatentClassModel", "NoiseBoundResult", "NoiseRateResult",
        "SoftLabels", "TVDistanceResult", "TransitionHeterogeneityResult",
        "VerifiedSampleBoundResult", "agreed_error_bracket", "annotators_needed",
        "attractor_class", "audit_kappa", "chance_agreement", "chance_margin",
        "hard_count_posterior", "instance_dependence_report", "kappa_range", "label_entropy",
        "max_disagreements", "noise_bound", "noise_rate", "noise_transition_heterogeneity",
        "sample_hard_labels", "sample_size_needed", "tv_distance", "verified_sample_bound",
        # honest posteriors (SPEC §5)
        "CalibrationResult", "PosteriorCheckResult", "calibration", "posterior_check",
        # spans as items (SPEC §7)
        "SpanNoiseResult", "span_noise",
        # annotator reliability with intervals (SPEC §5)
        "annotator_accuracy", "annotator_intervals",
        # a judge beside the annotators: its audit, the swap test, prediction-powered
        # estimates (SPEC §10)
        "JudgeAuditResult", "SwapTestResult", "judge_audit", "swap_test",
        "JudgeEstimateResult", "PPIResult", "judge_estimate", "labelled_sample", "ppi_mean",
        # which items humans label; pairwise preferences and rankings (SPEC §11)
        "ActiveSampleResult", "active_sample", "Comparisons", "PreferenceAuditResult",
        "RankingResult", "as_comparisons", "comparisons_from_ratings", "position_bias",
        "preference_audit", "rank_systems",
        # larger than memory: partial -> combine -> finalize
        "ChanceSums", "EMState", "EStepSums", "SoftLabelSums", "chance_combine",
        "chance_finalize", "chance_items", "chance_partial", "em_combine", "em_finalize",
        "em_partial", "soft_combine", "soft_finalize", "soft_partial",
    },
    "simulation": {
        "SimulatedAnnotations", "simulate_annotations",
        "gamma_coverage", "verified_sample_coverage",
        # model scores, noising, detection, cross-check
        "CrosscheckResult", "DetectedErrorRateResult", "DetectionResult", "ModelScores",
        "NoisyLabels", "Ranking", "ScorePrecisionWarning", "crosscheck", "crowd_majority",
        "detected_error_rate", "detection_metrics", "detection_replicates",
        "dissenting_label", "dissenting_worker", "ensemble", "item_loss",
        "label_error_ranking", "load_scores", "mix_protocols", "perturb_class_conditional",
        "perturb_uniform",
        # planning an agreement study
        "StudyPlan", "StudyTradeoff", "simulate_study", "study_tradeoff",
        "study_size_for_minimum", "study_size_for_power", "study_size_for_width",
        "JudgePlan", "judge_plan",
        # the seed benchmarks' noise constructions
        "SeparabilityResult", "loss_separability", "overlap_coefficient", "perturb_similar",
        "voter_labels",
        # re-annotation, expert checks and the certificate
        "ResidualErrorResult", "next_batch", "residual_errors", "verification_batch",
        "POLICIES",
        "PolicyComparisonResult", "ReplayResult", "compare_policies", "replay",
        # label consistency across subsets of span annotations (SPEC §7)
        "SubsetConsistencyResult", "subset_consistency",
        # spans and sequences (SPEC §7)
        "SimulatedSpans", "simulate_spans",
    },
}

#: goldnoise's own names, beside the re-exports of the four packages.
GOLDNOISE_OWN = {"AuditResult", "audit", "datasets", "report"}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_all_is_pinned(package):
    module = importlib.import_module(package)
    assert set(module.__all__) == PUBLIC[package]
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        assert not name.startswith("_")
        assert getattr(module, name) is not None


def test_goldnoise_reexports_everything():
    import goldnoise

    expected = set().union(*PUBLIC.values()) | GOLDNOISE_OWN
    assert set(goldnoise.__all__) == expected
    for name in expected - GOLDNOISE_OWN:
        owner = next(p for p, names in PUBLIC.items() if name in names)
        assert getattr(goldnoise, name) is getattr(importlib.import_module(owner), name)


def _duplicates(names):
    return sorted({n for n in names if list(names).count(n) > 1})


def test_every_all_is_duplicate_free():
    # Every package's and subpackage's __all__ as imported (goldnoise's is built from the
    # packages' lists), and every module's literal __all__ (with its `+=` parts).
    import ast
    import pathlib
    import pkgutil

    root = pathlib.Path(__file__).resolve().parents[1]
    found = {}
    for top in (*PUBLIC, "goldnoise", "_goldnoise_lib"):
        package = importlib.import_module(top)
        packages = [top] + [info.name for info in pkgutil.walk_packages(
            package.__path__, f"{top}.") if info.ispkg and info.name != "goldnoise.dask"]
        for name in packages:
            found[name] = _duplicates(getattr(importlib.import_module(name), "__all__", []))
        for path in sorted((root / top).rglob("*.py")):
            names = []
            for node in ast.parse(path.read_text()).body:
                target = getattr(node, "target", None) or (getattr(node, "targets", None)
                                                           or [None])[0]
                if getattr(target, "id", None) == "__all__" and isinstance(
                        node.value, (ast.List, ast.Tuple)):
                    names += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            found[str(path.relative_to(root))] = _duplicates(names)
    assert {k: v for k, v in found.items() if v} == {}
    assert _duplicates(["a", "b", "a"]) == ["a"]  # the check sees a duplicate


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_public_callables_have_docstrings_with_examples(package):
    module = importlib.import_module(package)
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        doc = getattr(obj, "__doc__", None) or ""
        if callable(obj) and not isinstance(obj, type) and "Examples" not in doc:
            missing.append(name)
    assert missing == []


def test_goldnoise_own_names():
    import goldnoise
    from goldnoise.report import REPORT_SCHEMA, SCHEMA_ID

    assert goldnoise.audit.__doc__ and "Examples" in goldnoise.audit.__doc__
    assert REPORT_SCHEMA["properties"]["schema"]["const"] == SCHEMA_ID
    assert set(goldnoise.report.__all__) == {
        "REPORT_SCHEMA", "SCHEMA_ID", "Column", "Figure", "Report", "Section", "Table",
        "render", "render_html_fragment"}


def test_each_public_name_has_one_home():
    # A name is public in one of the three packages (goldnoise re-exports them all): the
    # bootstrap's names beside what they resample (agreement, noise_models), not also in
    # simulation.
    import agreement
    import noise_models
    import simulation

    homes = [set(agreement.__all__), set(noise_models.__all__), set(simulation.__all__)]
    assert [sorted(a & b) for a, b in itertools.combinations(homes, 2)] == [[], [], []]
    assert agreement.span_intervals is importlib.import_module("agreement.spans").span_intervals
    assert noise_models.annotator_intervals is importlib.import_module(
        "noise_models.latent_class").annotator_intervals
