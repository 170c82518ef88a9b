"""One validation vocabulary (issue: the shared options of every public function).

Each public function declares its shared options -- confidence level, α, rng,
counts, probabilities, resamples, option strings -- as data with
``_goldnoise_lib.validation.validate_params``. This test reads those declarations,
feeds every public function an invalid value for each declared option and expects
the same kind of error (TypeError for a type, ValueError for a value) and the same
message shape (the parameter in backticks first, what arrived at the end).
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

import agreement
import goldnoise
import noise_models
import simulation
from _goldnoise_lib import validation as v

PACKAGES = (agreement, noise_models, simulation, goldnoise)

#: Options that mean the same thing wherever they appear: every public function
#: that has one of these parameters must declare it.
SHARED = {"confidence_level": v.ConfidenceLevel, "alpha": v.Alpha, "rng": v.Rng,
          "n_resamples": v.Resamples}


#: Public methods whose shared-looking parameter means something else.
NOT_SHARED: set[str] = set()


def _public_functions() -> dict[str, object]:
    """Public functions, and the public methods (and ``__init__``) of public classes.

    The generated ``__init__`` of a result dataclass only stores fields: left out.
    """
    out = {}
    for pkg in PACKAGES:
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if inspect.isfunction(obj):
                out.setdefault(name, obj)
            elif inspect.isclass(obj) and obj.__module__.split(".")[0] in {
                    p.__name__ for p in PACKAGES}:
                for mname, meth in vars(obj).items():
                    if not inspect.isfunction(meth):
                        continue
                    if mname.startswith("_") and mname != "__init__":
                        continue
                    if mname == "__init__" and dataclasses.is_dataclass(obj):
                        continue
                    if f"{name}.{mname}" in NOT_SHARED:
                        continue
                    out.setdefault(f"{name}.{mname}", meth)
    return out


FUNCTIONS = _public_functions()


def _cases():
    for fname, func in sorted(FUNCTIONS.items()):
        for param, constraint in getattr(func, "__goldnoise_constraints__", {}).items():
            for bad, error in constraint.invalid_examples():
                yield pytest.param(func, param, bad, error,
                                   id=f"{fname}-{param}-{error.__name__}-{bad!r}")


def test_shared_options_are_declared():
    missing = []
    for fname, func in FUNCTIONS.items():
        declared = getattr(func, "__goldnoise_constraints__", {})
        for param in inspect.signature(func).parameters:
            if param in SHARED:
                if param not in declared:
                    missing.append(f"{fname}({param})")
                elif not isinstance(declared[param], SHARED[param]):
                    missing.append(f"{fname}({param}: {declared[param]!r})")
    assert not missing, (f"public functions without the shared check: {missing}; declare "
                         "them with _goldnoise_lib.validation.validate_params and call "
                         "check_params(function, locals()) first")


def test_declarations_cover_many_functions():
    declared = [f for f in FUNCTIONS.values() if hasattr(f, "__goldnoise_constraints__")]
    assert len(declared) >= 25


@pytest.mark.parametrize(("func", "param", "bad", "error"), list(_cases()))
def test_invalid_shared_option(func, param, bad, error):
    # Every other required argument is a placeholder: the declared options are checked
    # before the function looks at anything else.
    sig = inspect.signature(func)
    declared = func.__goldnoise_constraints__
    kwargs = {name: declared[name].valid_example() if name in declared else object()
              for name, p in sig.parameters.items()
              if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    kwargs[param] = bad
    with pytest.raises(error) as info:
        func(**kwargs)
    message = str(info.value)
    assert message.startswith(f"`{param}`"), message
    assert "got" in message, message


@pytest.mark.parametrize("level", [0.9, np.float32(0.9), np.float64(0.9), 0.5])
def test_confidence_level_accepts_numpy_reals_everywhere(level):
    for func in FUNCTIONS.values():
        constraints = getattr(func, "__goldnoise_constraints__", {})
        if "confidence_level" in constraints:
            assert constraints["confidence_level"].validate(level, "confidence_level") == \
                pytest.approx(float(level))


def test_resamples_rule():
    """0 means no bootstrap; only the bootstrap itself asks for at least one."""
    assert simulation.detection_metrics.__goldnoise_constraints__["n_resamples"].minimum == 0
    assert agreement.bootstrap.__goldnoise_constraints__["n_resamples"].minimum == 1
    res = simulation.detection_metrics([0.1, 0.9, 0.4], [False, True, False], n_resamples=0)
    assert res.n_resamples == 0 and res.intervals == {}
    with pytest.raises(ValueError, match="`n_resamples` must be an integer ≥ 1; got 0"):
        agreement.bootstrap("fleiss_kappa", [[0, 0], [1, 1]], n_resamples=0)


def test_rng_errors():
    with pytest.raises(ValueError, match="`rng` must be None, a non-negative int seed"):
        v.check_rng(-1)
    with pytest.raises(TypeError, match="`rng` must be None"):
        v.check_rng("seed")
    gen = np.random.default_rng(0)
    assert v.check_rng(gen) is gen


def test_validate_params_refuses_unknown_names():
    with pytest.raises(TypeError, match="has no parameter"):
        @v.validate_params(level=v.ConfidenceLevel())
        def f(x):  # pragma: no cover - never called
            return x


def test_numpy_float32_levels_work_through_the_public_api():
    x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1], [0, 0, 0], [1, 1, 0]] * 5)
    res = agreement.fleiss_kappa(x)
    assert res.confidence_interval(np.float32(0.9)) == pytest.approx(
        res.confidence_interval(0.9), abs=1e-6)
    table = agreement.agreement_table(x, confidence_level=np.float32(0.9))
    assert len(table) > 0
    det = simulation.detected_error_rate(
        simulation.Ranking.from_scores(pd.Series(np.linspace(1, 0, 30))),
        pd.Series(np.arange(30) % 3 == 0), top_fraction=0.5,
        confidence_level=np.float32(0.9))
    assert det.confidence_level == pytest.approx(0.9)


def test_candidate_columns_of_the_judge_estimate_and_plan():
    # one rule (the shared validation layer) for which columns are the judge and the humans
    raters = ["h1", "h2", "judge", "other"]
    assert v.check_candidate_columns(raters, "judge", None) == (2, [0, 1, 3])
    assert v.check_candidate_columns(raters, "judge", "h2") == (2, [1])
    assert v.check_candidate_columns(raters, "judge", ["h2", "h1", "h2"]) == (2, [1, 0])
    with pytest.raises(ValueError, match="is not a rater of the pilot"):
        v.check_candidate_columns(raters, "gpt", None, where="the pilot")
    with pytest.raises(ValueError, match="raters not in the ratings"):
        v.check_candidate_columns(raters, "judge", ["h3"])
    with pytest.raises(ValueError, match="its own truth"):
        v.check_candidate_columns(raters, "judge", ["h1", "judge"])
    with pytest.raises(ValueError, match="no human rater"):
        v.check_candidate_columns(["judge"], "judge", None)
