"""``goldnoise.audit()``: the audit as a public function, and the command line as its renderer.

The JSON report of ``goldnoise audit FILE --format json`` must equal
``goldnoise.audit(ratings).to_dict()`` for the same ratings built by a Python user
(not through the command line's reader), and the text the command prints must
equal ``summary()``. The command line's modules hold no statistics: they parse,
call the public API and render.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import goldnoise
from goldnoise import Ratings, audit
from goldnoise._cli import main
from goldnoise.report import REPORT_SCHEMA, SCHEMA_ID

CLI = Path(goldnoise.__file__).parent / "_cli"


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def _examples() -> dict[str, str]:
    """The bundled examples' names and descriptions as ``goldnoise examples`` prints them."""
    rows = json.loads(_cli("examples", "--format", "json"))["sections"]["examples"]["tables"][
        "examples"]["rows"]
    return {row["name"]: row["description"] for row in rows}


def _fleiss() -> Ratings:
    wide = Ratings.from_wide(goldnoise.datasets.load_fleiss1971())
    return Ratings.from_counts(wide.counts_frame())


def _dawid_skene() -> Ratings:
    frame = goldnoise.datasets.load_dawid_skene1979()
    frame = frame.assign(rater=frame["observer"].astype(str) + "." +
                         frame["replicate"].astype(str))
    return Ratings.from_long(frame, item="patient", rater="rater", label="rating")


def _validate(report: dict) -> None:
    from test_cli import _validate as strict  # the strict validator of the schema's subset

    strict(report, REPORT_SCHEMA)


@pytest.mark.parametrize(("name", "ratings", "options", "argv"), [
    ("fleiss1971", _fleiss, {}, []),
    ("dawid_skene1979", _dawid_skene, {}, []),
    ("dawid_skene1979", _dawid_skene,
     {"bootstrap": 40, "threshold": 0.6, "model": "confusion", "hard": "marginal",
      "n_starts": 3, "rng": 7, "alpha": 0.9, "confidence_level": 0.9},
     ["--bootstrap", "40", "--threshold", "0.6", "--model", "confusion", "--hard", "marginal",
      "--starts", "3", "--seed", "7", "--alpha", "0.9", "--confidence-level", "0.9"]),
    ("dawid_skene1979", _dawid_skene, {"latent": False, "level": "ordinal", "rng": 0},
     ["--no-latent", "--level", "ordinal"]),
])
def test_to_dict_is_the_json_report_of_the_command_line(name, ratings, options, argv):
    options = {"rng": 0, **options}
    res = audit(ratings(), source=_examples()[name], **options)
    cli = json.loads(_cli("audit", "--example", name, "--format", "json", *argv))
    assert res.to_dict() == json.loads(json.dumps(res.to_dict(), allow_nan=False))
    # The JSON text writes non-finite numbers as null: compare through the same writer.
    assert json.loads(res.render("json")) == cli
    assert cli["schema"] == SCHEMA_ID
    text = _cli("audit", "--example", name, *argv)
    assert res.summary() == text


def test_result_fields_are_the_library_results():
    res = audit(_dawid_skene(), rng=0)
    from noise_models import audit_kappa, noise_bound

    assert res.gamma == noise_bound(_dawid_skene()).gamma == float(res)
    assert res.bound.gamma == res.gamma
    assert res.kappa_audit.kappa == pytest.approx(audit_kappa(_dawid_skene()).kappa)
    assert res.agreement.loc["Fleiss' kappa", "value"] == pytest.approx(
        goldnoise.fleiss_kappa(_dawid_skene()).value)
    assert res.fit is not None and res.fit.model.annotators == "spam"
    assert res.bracket is not None and res.bracket.n_agreed == int(_dawid_skene().agreed.sum())
    assert list(res.sections) == ["data", "agreement", "noise_bound", "kappa_audit", "margin",
                                  "latent_class", "hard_items", "bracket", "posterior_check"]
    assert res.to_frame().index.name == "coefficient"
    assert "<table>" in res._repr_html_()
    assert repr(res) == "AuditResult(gamma=0.0625, 9 sections)"


def test_gold_section_from_a_mapping():
    r = _dawid_skene()
    gold = dict(zip(r.items, r.majority_labels(), strict=True))
    res = audit(r, gold=gold, rng=0)
    acc = res.sections["gold"].values["accuracy"]
    assert acc["majority vote (ties: first category)"] == 1.0


def test_undefined_sections_say_why():
    r = Ratings.from_wide([["a", "b"], ["b", "a"], ["a", "b"]])
    res = audit(r, rng=0)
    assert np.isnan(res.gamma)
    assert res.sections["noise_bound"].status == "undefined"
    assert "unanimous" in res.sections["noise_bound"].reason
    assert "noise_bound" in repr(res)


def test_bootstrap_without_lights_kappa_beyond_the_engines_limit():
    # 101 annotators: the bootstrap engine refuses Light's κ (one column per pair, at most
    # 100 annotators); the audit says so and bootstraps the others from the same resamples.
    from agreement import bootstrap

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 40)
    x = np.where(rng.random((40, 101)) < 0.8, truth[:, None], rng.integers(0, 3, (40, 101)))
    r = Ratings.from_wide(x)
    section = audit(r, rng=0, bootstrap=20, latent=False).sections["bootstrap"]
    rows = {row["coefficient"]: row for row in section.tables[0].rows}
    assert "Light's kappa" not in rows and "Fleiss' kappa" in rows
    assert any(n.startswith("Light's kappa not bootstrapped, its analytic interval stands: "
                            "`light_kappa` is bootstrapped for at most 100 annotators")
               for n in section.notes)
    names = {"Percent agreement": "percent_agreement", "Fleiss' kappa": "fleiss_kappa",
             "Conger's kappa": "conger_kappa", "Brennan-Prediger": "brennan_prediger",
             "Gwet's AC1": "gwet_ac1"}
    alone = bootstrap(list(names.values()), r, n_resamples=20, rng=0)
    assert [rows[name]["bootstrap_se"] for name in names] == list(alone.standard_error)


def test_bad_options_are_refused():
    r = _dawid_skene()
    with pytest.raises(ValueError, match="`model` must be one of"):
        audit(r, model="mace")
    with pytest.raises(TypeError, match="`gold` must map item ids"):
        audit(r, gold=[1, 2, 3])
    with pytest.raises(ValueError, match="`threshold` must be a κ value"):
        audit(r, threshold=2.0)
    with pytest.raises(ValueError, match="`hard`"):
        audit(r, hard="sometimes")


def test_input_is_not_mutated():
    frame = goldnoise.datasets.load_dawid_skene1979()
    before = frame.copy()
    r = Ratings.from_long(frame, item="patient", rater="observer", label="rating",
                          replicates="separate")
    codes = r.codes.copy()
    audit(r, rng=0, bootstrap=20)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(r.codes, codes)


@pytest.mark.shared_data
def test_snow_rte_equals_the_command_line(shared_data):
    path = shared_data / "snow2008_rte_long.csv"
    frame = pd.read_csv(path)
    r = Ratings.from_long(frame, item="item", rater="worker", label="response")
    gold = frame.groupby("item")["gold"].first()
    cli = json.loads(_cli("audit", str(path), "--layout", "long", "--item", "item",
                          "--rater", "worker", "--label", "response", "--gold", "gold",
                          "--format", "json"))
    res = audit(r, gold=gold, rng=0, source=str(path))
    assert json.loads(res.render("json")) == cli
    assert res.sections["gold"].status == "ok"


def test_report_schema_validates_the_reports():
    _validate(audit(_dawid_skene(), rng=0, bootstrap=20).to_dict())


# ------------------------------------------------------------ goldnoise holds no statistics
#: Where a reduction in goldnoise/ is not a statistic of the ratings.
ALLOWED = {
    "_input.py": "recognising a file's layout (count tables, proportions, label columns)",
    "plan.py:run": "the largest k of the plan's own table, for the prose",
    "simulate.py:_id_label_series": "counting the rows of a labels file that lack a value",
    "_sections.py:posterior_figure": "the axis range of a figure (the posterior's quantiles)",
    "_latent.py:_unstable_line": "the largest share of the fit's own unstable-starts table, "
                                 "for the prose",
}
#: The Dask plumbing (reading and shuffling partitions) and the judge (moving to
#: noise_models.judge) are not checked here.
SKIPPED = ("_judge", "dask", "_dask.py")
REDUCTIONS = {"sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "median",
              "quantile", "einsum", "divide", "bincount", "nansum", "nanmean", "average"}
#: Distribution functions: an interval or a test written by hand.
DISTRIBUTIONS = {"ppf", "cdf", "sf", "isf", "logcdf", "logsf", "ndtri", "ndtr"}
RATINGS_ARRAYS = {"counts", "codes", "ratings_per_item"}
GOLDNOISE = Path(goldnoise.__file__).parent


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = func
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            where = f"{path.name}:{name}"
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                modules = ([a.name for a in child.names] if isinstance(child, ast.Import)
                           else [child.module or ""])
                found.extend(f"{where} line {child.lineno}: import {m}" for m in modules
                             if m.startswith("scipy"))
            if path.name in ALLOWED or where in ALLOWED:
                continue
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and (
                    child.func.attr in REDUCTIONS or child.func.attr in DISTRIBUTIONS):
                found.append(f"{where} line {child.lineno}: .{child.func.attr}()")
            if isinstance(child, ast.Attribute) and child.attr in RATINGS_ARRAYS:
                found.append(f"{where} line {child.lineno}: .{child.attr}")
            visit(child, name)

    visit(tree, "<module>")
    return found


def _checked_modules() -> list[Path]:
    return [p for p in sorted(GOLDNOISE.rglob("*.py"))
            if not set(SKIPPED) & {*p.relative_to(GOLDNOISE).parts}]


def test_goldnoise_holds_no_statistics():
    modules = _checked_modules()
    assert CLI / "audit.py" in modules and GOLDNOISE / "_audit" / "_latent.py" in modules
    found = [v for path in modules for v in _violations(path)]
    assert found == [], ("statistics belong in the library (a package's public function); "
                         "goldnoise reads, calls and renders: " f"{found}")
    # every allowed function exists (an exception outlives nothing it excused)
    functions = {f"{p.name}:{n.name}" for p in modules for n in ast.walk(ast.parse(
        p.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)}
    assert {w for w in ALLOWED if ":" in w} <= functions


def test_the_no_statistics_check_sees_a_reduction(tmp_path):
    bad = tmp_path / "verb.py"
    bad.write_text("def run(r):\n    return r.counts.sum(axis=1)\n", encoding="utf-8")
    assert _violations(bad) == ["verb.py:run line 2: .sum()", "verb.py:run line 2: .counts"]
    bad.write_text("from scipy.stats import beta\n\ndef ci(k, n):\n"
                   "    return beta.ppf(0.025, k, n - k + 1)\n", encoding="utf-8")
    assert _violations(bad) == ["verb.py:<module> line 1: import scipy.stats",
                                "verb.py:ci line 4: .ppf()"]


# ------------------------------------------------------------ one place builds a section
#: The packages whose modules are scanned: every one that may build a report.
ROOT = GOLDNOISE.parent
PACKAGES = ("_goldnoise_lib", "agreement", "noise_models", "simulation", "goldnoise")
#: Where a package may build a Section or a Table itself: the report model, which holds the
#: one place every verb uses (section_from_result, report_table). goldnoise.report is its
#: public name and builds nothing.
SECTION_BUILDERS = {"_goldnoise_lib/report.py"}


def _hand_built(path: Path) -> list[str]:
    """Calls of ``Section(...)`` or ``Table(...)``: a section or table built by hand."""
    where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = (node.func.id if isinstance(node.func, ast.Name) else
                    node.func.attr if isinstance(node.func, ast.Attribute) else None)
            if name in ("Section", "Table"):
                found.append(f"{where} line {node.lineno}: {name}()")
    return found


def test_every_verb_builds_its_sections_in_one_place():
    modules = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
               if p.relative_to(ROOT).as_posix() not in SECTION_BUILDERS]
    # the verbs, the audit's sections and the judge audit's report (below goldnoise) are seen
    assert {CLI / "spans.py", GOLDNOISE / "_audit" / "_latent.py",
            ROOT / "noise_models" / "judge" / "_report.py"} <= set(modules)
    # every allowed builder exists (an exception outlives nothing it excused)
    assert all((ROOT / b).is_file() and _hand_built(ROOT / b) for b in SECTION_BUILDERS)
    found = [v for path in modules for v in _hand_built(path)]
    assert found == [], ("build a report's sections with _goldnoise_lib.report's "
                         "section_from_result and its tables with report_table: "
                         f"{found}")


def test_the_one_place_check_sees_a_section_built_by_hand(tmp_path):
    bad = tmp_path / "verb.py"
    bad.write_text("from goldnoise.report import Section, Table\n\ndef run(res):\n"
                   "    s = Section('x', 'X')\n    s.tables.append(report.Table('t', [], []))\n"
                   "    return s\n", encoding="utf-8")
    assert _hand_built(bad) == ["verb.py line 4: Section()", "verb.py line 5: Table()"]


def test_a_bracket_whose_ends_cross_says_so():
    # dog (crowd_gold): the fit expects 0.11% of the 82 unanimous labels wrong, M1's gamma
    # bounds 0 of them: "between 0.11% and 0.00%" read as a range; the section says the
    # ends cross instead
    from goldnoise._audit._latent import bracket_section
    from noise_models import ErrorBracketResult

    def bracket(optimistic, pessimistic):
        return ErrorBracketResult(
            n_items=100, n_agreed=82, optimistic=optimistic, optimistic_errors=82 * optimistic,
            pessimistic=pessimistic, pessimistic_errors=round(82 * pessimistic), alpha=0.95,
            optimistic_model="spam", pessimistic_model="M1", explanation="")

    crossed = " ".join(bracket_section(bracket(0.0011, 0.0), None, 0.95).lines)
    assert "the two ends cross: 0.11%" in crossed and "between" not in crossed
    ordered = " ".join(bracket_section(bracket(0.01, 0.2), None, 0.95).lines)
    assert "between 1.00%" in ordered and "and 20.00%" in ordered and "cross" not in ordered
