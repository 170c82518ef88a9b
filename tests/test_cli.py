"""The `goldnoise` command, run as a user runs it: the installed console script in a subprocess.

Every case checks the exit status (0 done, sections the data do not allow say why; 1 the data
could not be used, one line on stderr; 2 usage error) and that no traceback reaches the user.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreement import UnstableStartsWarning
from goldnoise._cli import MESSAGES
from goldnoise.datasets import load_dawid_skene1979, load_fleiss1971

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"


def _without_notice(err: str) -> str:
    """stderr without the one compiling line (an empty cache, or a new kind of data)."""
    for message in MESSAGES:
        err = err.replace(message + "\n", "", 1)
    return err


def _command() -> list[str]:
    """The console script of this interpreter's environment (else ``python -m goldnoise``)."""
    script = Path(sys.executable).parent / "goldnoise"
    if script.exists():
        return [str(script)]
    found = shutil.which("goldnoise")
    return [found] if found else [sys.executable, "-m", "goldnoise"]


def run(*args: str, cwd: Path | None = None, env: dict | None = None, check_clean: bool = True
        ) -> subprocess.CompletedProcess:
    """Run ``goldnoise *args``; the project's code is the one in this worktree.

    In this process (``goldnoise._cli.main``, its output captured): an interpreter a call
    cost a second of CPU. With ``env`` (modules put first on the path) in a subprocess."""
    if env:
        return run_process(*args, cwd=cwd, env=env, check_clean=check_clean)
    import contextlib
    import io

    from goldnoise._cli import main

    stdout, stderr, here = io.StringIO(), io.StringIO(), Path.cwd()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            if cwd is not None:
                os.chdir(cwd)
            status = main(list(args))
        except SystemExit as exc:  # argparse: --help, usage errors
            status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        finally:
            os.chdir(here)
    out = subprocess.CompletedProcess(["goldnoise", *args], status, stdout.getvalue(),
                                      stderr.getvalue())
    if check_clean:
        assert "Traceback" not in out.stderr, out.stderr
        assert "Warning:" not in out.stderr and "warnings.warn" not in out.stderr, out.stderr
    return out


def run_process(*args: str, cwd: Path | None = None, env: dict | None = None,
                check_clean: bool = True) -> subprocess.CompletedProcess:
    """Run ``goldnoise *args`` as the console script, in its own interpreter."""
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [*(env or {}).pop("_PREPEND", []), str(ROOT)]), **(env or {})}
    full_env.pop("GOLDNOISE_TRACEBACK", None)
    out = subprocess.run([*_command(), *args], capture_output=True, text=True, cwd=cwd,
                         env=full_env, timeout=600)
    if check_clean:
        assert "Traceback" not in out.stderr, out.stderr
        assert "Warning:" not in out.stderr and "warnings.warn" not in out.stderr, out.stderr
    return out


def one_line_error(out: subprocess.CompletedProcess, status: int, *needles: str) -> None:
    assert out.returncode == status, (out.returncode, out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("goldnoise: error: "), out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert out.stdout == ""


def report_json(*args: str, cwd: Path | None = None) -> dict:
    out = run(*args, "--format", "json", cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ------------------------------------------------------------------ small files
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    f: dict[str, Path] = {}

    def write(name: str, text: str | bytes) -> None:
        f[name] = d / name
        (f[name].write_bytes if isinstance(text, bytes) else f[name].write_text)(text)

    write("empty.csv", "")
    write("header.csv", "item,a,b,c\n")
    write("binary.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    write("ragged.csv", "item,a,b\n1,x,y\n2,x,y,z,w\n3,x,y\n")
    write("allmissing.csv", "item,a,b\n1,,\n2,,\n3,,\n")
    write("onecat.csv", "item,a,b,c\n1,x,x,x\n2,x,x,x\n3,x,x,x\n4,x,x,x\n")
    write("single.csv", "item,a,b,c\n1,x,y,x\n")
    write("long_bad.csv", "item,who,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    # No item is agreed by every annotator (the MACE example's shape): 40 items x 6.
    rng = np.random.default_rng(5)
    rows = []
    for i in range(40):
        labels = rng.integers(0, 3, size=6)
        labels[i % 6] = (labels[(i + 1) % 6] + 1) % 3  # at least one disagreement
        rows.append([i + 1, *labels])
    pd.DataFrame(rows, columns=["item", *[f"a{j}" for j in range(6)]]).to_csv(
        d / "no_unanimous.csv", index=False)
    f["no_unanimous.csv"] = d / "no_unanimous.csv"
    # Fleiss (1971) wide with its item column, and variants of the same table.
    wide = load_fleiss1971(names=False)
    wide.to_csv(d / "fleiss.csv")
    f["fleiss.csv"] = d / "fleiss.csv"
    wide.to_csv(d / "fleiss_semicolon.txt", sep=";")
    f["fleiss_semicolon.txt"] = d / "fleiss_semicolon.txt"
    wide.to_csv(d / "fleiss.tsv", sep="\t")
    f["fleiss.tsv"] = d / "fleiss.tsv"
    with gzip.open(d / "fleiss.csv.gz", "wt") as fh:
        wide.to_csv(fh)
    f["fleiss.csv.gz"] = d / "fleiss.csv.gz"
    long = wide.reset_index().melt(id_vars="subject", var_name="rater", value_name="label")
    long.to_json(d / "fleiss.ndjson", orient="records", lines=True)
    f["fleiss.ndjson"] = d / "fleiss.ndjson"
    long.to_parquet(d / "fleiss_long.parquet")
    f["fleiss_long.parquet"] = d / "fleiss_long.parquet"
    # Dawid & Skene (1979) long: observer 1 rated each patient three times.
    ds = load_dawid_skene1979()
    ds.to_csv(d / "ds_long.csv", index=False)
    f["ds_long.csv"] = d / "ds_long.csv"
    # A crowd file: 14 workers, each item rated by exactly 3, with a gold column.
    crowd = []
    for i in range(60):
        truth = i % 2
        for w in rng.choice(14, size=3, replace=False):
            label = truth if rng.random() < 0.8 else 1 - truth
            crowd.append({"item": f"q{i}", "worker": f"w{w}", "response": label, "gold": truth})
    pd.DataFrame(crowd).to_csv(d / "crowd.csv", index=False)
    f["crowd.csv"] = d / "crowd.csv"
    pd.DataFrame({"item": [f"q{i}" for i in range(60)], "gold": [i % 2 for i in range(60)]}
                 ).to_csv(d / "crowd_key.csv", index=False)
    f["crowd_key.csv"] = d / "crowd_key.csv"
    return f


# ------------------------------------------------------------------ the main job
def test_audit_bundled_example_prints_every_defined_section():
    out = run("audit", "--example", "fleiss1971")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "30 items, 6 annotators, 5 categories, 180 ratings" in text
    assert "Fleiss' kappa                   0.4302  0.0542  [0.3194, 0.5411]" in text
    assert "gamma = 0.0000" in text
    # A count table cannot be fitted: the section says why instead of disappearing.
    assert "Latent-class fit" in text and "count table" in text
    assert "Result(" not in text


def test_audit_json_matches_the_api():
    from agreement import Ratings, fleiss_kappa
    from noise_models import noise_bound

    report = report_json("audit", "--example", "fleiss1971", "--alpha", "0.9")
    wide = Ratings.from_wide(load_fleiss1971())
    ratings = Ratings.from_counts(wide.counts_frame())
    expected = noise_bound(ratings, alpha=0.9)
    values = report["sections"]["noise_bound"]["values"]
    assert values["gamma"] == pytest.approx(expected.gamma, rel=1e-12)
    assert values["t0"] == expected.t0 and values["agreed"] == 5
    rows = {r["coefficient"]: r for r in
            report["sections"]["agreement"]["tables"]["coefficients"]["rows"]}
    assert rows["Fleiss' kappa"]["value"] == pytest.approx(fleiss_kappa(ratings).value)


# ------------------------------------------------------------------ JSON schema
def _validate(instance, schema, path="$"):
    """The subset of JSON Schema that REPORT_SCHEMA uses, checked strictly."""
    types = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    if "const" in schema:
        assert instance == schema["const"], path
    if "enum" in schema:
        assert instance in schema["enum"], path
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = False
        for t in allowed:
            if t == "number":
                ok |= isinstance(instance, (int, float)) and not isinstance(instance, bool)
            else:
                ok |= isinstance(instance, types[t])
        assert ok, f"{path}: {instance!r} is not {allowed}"
    if isinstance(instance, dict):
        for key in schema.get("required", []):
            assert key in instance, f"{path}: missing {key}"
        props = schema.get("properties", {})
        for key, value in instance.items():
            if key in props:
                _validate(value, props[key], f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                _validate(value, schema["additionalProperties"], f"{path}.{key}")
            else:
                assert schema.get("additionalProperties", True) is not False, f"{path}.{key}"
    if isinstance(instance, list) and "items" in schema:
        for i, value in enumerate(instance):
            _validate(value, schema["items"], f"{path}[{i}]")


def _numbers(obj) -> list[float]:
    if isinstance(obj, bool) or obj is None:
        return []
    if isinstance(obj, (int, float)):
        return [float(obj)]
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v)]
    return []


def _strings(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [*obj.keys(), *(x for v in obj.values() for x in _strings(v))]
    if isinstance(obj, list):
        return [x for v in obj for x in _strings(v)]
    return []


def _carried(token: str, numbers: list[float], strings: str) -> bool:
    """Whether a number printed in the text is a JSON number (at its printed precision)."""
    is_pct = token.endswith("%")
    text = token.rstrip("%")
    value = float(text)
    decimals = len(text.split(".")[1]) if "." in text else 0
    for x in numbers:
        shown = 100 * x if is_pct else x
        if math.isfinite(shown) and abs(shown - value) <= 0.5 * 10 ** -decimals + 1e-12:
            return True
        if not is_pct and f"{x:.3g}" == text:
            return True
    return re.search(rf"(?<![\d.]){re.escape(token)}(?![\d])", strings) is not None


@pytest.mark.parametrize("argv", [
    ("audit", "--example", "dawid_skene1979"),
    ("audit", "--example", "fleiss1971", "--threshold", "0.67"),
    ("bound", "1000", "100", "0.5"),
    ("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05", "--max-raters", "6"),
    ("fit", "--example", "dawid_skene1979", "--model", "confusion"),
    ("examples",),
])
def test_json_schema_and_every_number_of_the_text(argv, tmp_path):
    from goldnoise.report import REPORT_SCHEMA, SCHEMA_ID

    # One run: the text on stdout, the JSON of the same report in --out.
    out = run(*argv, "--out", str(tmp_path / "report.json"))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    _validate(report, REPORT_SCHEMA)
    assert report["schema"] == SCHEMA_ID and report["command"] == argv[0]
    numbers = _numbers(report)
    strings = "\n".join(_strings(report))
    body = "\n".join(line for line in text.splitlines()[1:]
                     if not line.strip().startswith("..."))  # "... 25 more rows"
    for token in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?%?", body):
        assert _carried(token, numbers, strings), f"{token} of the text is not in the JSON"


def test_json_has_no_nan_and_plan_carries_the_per_k_table():
    report = report_json("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05",
                         "--max-raters", "5")
    rows = report["sections"]["plan"]["tables"]["per_k"]["rows"]
    assert [r["k"] for r in rows] == [2, 3, 4, 5]
    assert [r["agreed"] for r in rows] == [900, 850, 825, 813]
    assert all(r["agreed"] + r["disagreed"] == 1000 for r in rows)
    assert rows[3]["mean_agreed"] == 812.5
    assert report["sections"]["plan"]["values"]["n_raters"] == 4


# ------------------------------------------------------------------ readable answers
def test_bound_and_plan_print_sentences_not_reprs():
    bound = run("bound", "1000", "100", "0.5")
    assert bound.returncode == 0
    assert "at most 125 of the 900 agreed items are hidden coin-flips: gamma = 0.1389" in \
        bound.stdout
    assert "Result(" not in bound.stdout
    plan = run("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05")
    assert plan.returncode == 0
    assert "hire 4 annotators" in plan.stdout and "Result(" not in plan.stdout


def test_plan_max_raters_is_capped_and_counts_are_whole():
    out = report_json("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05",
                      "--max-raters", "100000")
    rows = out["sections"]["plan"]["tables"]["per_k"]["rows"]
    assert len(rows) <= 20  # stops once more annotators change nothing
    assert any("the table stops at k" in n for n in out["sections"]["plan"]["notes"])
    assert all(isinstance(r["agreed"], int) and r["agreed"] + r["disagreed"] == 1000
               for r in rows)


def test_plan_warnings_become_one_note():
    # 20 equally likely categories, no easy item: from k = 2 on no item is expected to be
    # agreed on. The library warns; the command says it once, as a note, and stops there.
    out = run("plan", "10", "--easy-fraction", "0", "--gamma", "0.05",
              "--category-shares", *(["0.05"] * 20), "--max-raters", "50")
    assert out.returncode == 0, out.stderr
    # nothing on stderr but, on an empty kernel cache, the one-line compiling notice
    assert _without_notice(out.stderr) == ""
    notes = [line for line in out.stdout.splitlines() if "no item is expected" in line]
    assert notes == ["  * with k = 2 no item is expected to be agreed on, so there is no gold "
                     "standard to bound (gamma undefined)"]


def test_version_and_help(capsys):
    from goldnoise import __version__
    from goldnoise._cli import VERBS, main

    out = run_process("--version")  # the console script itself, once
    assert out.returncode == 0 and out.stdout.strip() == f"goldnoise {__version__}"
    top = run_process("--help").stdout
    for verb in VERBS:  # each verb's help in this process (a subprocess each cost 0.6 s CPU)
        assert verb in top
        with pytest.raises(SystemExit) as exc:
            main([verb, "--help"])
        assert exc.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: goldnoise {verb}")


def test_every_option_has_help_and_shows_its_default():
    from goldnoise._cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():
        formatter = p._get_formatter()
        for action in p._actions:
            if not action.option_strings or action.dest == "help":
                continue
            assert action.help, f"{name} {action.option_strings} has no help"
            shown = formatter._get_help_string(action)
            if action.default not in (None, False):
                assert "default" in shown.lower(), f"{name} {action.option_strings}"


def test_broken_pipe_is_quiet(tmp_path):
    # `goldnoise ... | head -c 10`: the reader stops early; no BrokenPipeError traceback.
    command = " ".join([*_command(), "fit", "--example", "dawid_skene1979", "--format",
                        "json"])
    out = subprocess.run(f"set -o pipefail; {command} 2>{tmp_path / 'err'} | head -c 10",
                         shell=True, executable="/bin/bash", capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    err = (tmp_path / "err").read_text()
    assert len(out.stdout) == 10
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert out.returncode == 0


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(("argv", "needle"), [
    ((), "required"),
    (("audit",), "give a FILE of ratings or --example"),
    (("audit", "--example", "fleiss1971", "--alpha", "1.5"), "--alpha must be in (0, 1)"),
    (("audit", "--example", "nope"), "invalid choice"),
    (("bound", "10", "20", "0.5"), "D = 20 disagreed items is more than N = 10"),
    (("bound", "10", "10", "0.5"), "every item was disagreed on"),
    (("bound", "10", "2", "1.5"), "P must be in [0, 1]"),
    (("plan", "100", "--gamma", "0.05"), "one of the arguments --easy-fraction --kappa"),
    (("plan", "100", "--gamma", "0.05", "--easy-fraction", "0.5", "--category-shares", "0.2",
      "0.2"), "must add up to 1"),
    (("audit", "--example", "fleiss1971", "--out", "report.weird"), "cannot tell the format"),
])
def test_usage_errors_exit_2(argv, needle, tmp_path):
    out = run(*argv, cwd=tmp_path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr
    assert out.stdout == ""
    # one line, not argparse's usage block: the problem, then where the usage is
    one_line_error(out, 2, needle)
    if needle in ("required", "invalid choice"):  # argparse's own checks
        assert out.stderr.rstrip().endswith("--help)")


def test_file_and_example_together_is_a_usage_error(files):
    out = run("audit", str(files["fleiss.csv"]), "--example", "fleiss1971")
    one_line_error(out, 2, "not both")


@pytest.mark.parametrize(("name", "extra", "needles"), [
    ("missing.csv", (), ("no such file",)),
    ("empty.csv", (), ("is empty",)),
    ("header.csv", (), ("header but no rows",)),
    ("binary.csv", (), ("not a text table",)),
    ("ragged.csv", (), ("line 3 has 5 fields where the header has 3", "quote a value")),
    ("allmissing.csv", ("--item", "item"), ("every label is missing",)),
    ("fleiss.csv", ("--item", "nope"), ("--item 'nope' is not a column", "subject")),
    ("long_bad.csv", ("--layout", "long"), ("--rater",)),
    ("long_bad.csv", ("--layout", "long", "--rater", "who", "--label", "lab"),
     ("--label 'lab' is not a column",)),
    ("fleiss.csv", ("--item", "subject", "--gold", "nothing"),
     ("neither a column", "nor a file")),
])
def test_unusable_data_exit_1_with_one_line(files, tmp_path, name, extra, needles):
    path = files.get(name, tmp_path / name)
    one_line_error(run("audit", str(path), *extra), 1, *needles)


def test_unsupported_suffix(tmp_path):
    (tmp_path / "ratings.xlsx").write_text("x")
    one_line_error(run("audit", str(tmp_path / "ratings.xlsx")), 2, "unsupported file type")


# ------------------------------------------------------------------ no dead ends
def test_no_unanimous_item_keeps_every_section(files):
    out = run("audit", str(files["no_unanimous.csv"]), "--item", "item")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Fleiss' kappa" in text and "Krippendorff's alpha (nominal)" in text
    assert "none of the 40 items has unanimous labels" in text
    assert "Latent-class fit (spam with item difficulty)" in text
    assert "labels likely wrong" in text
    assert "no item has unanimous labels, so there are no agreed labels to bracket" in text
    assert "`d` equals `n`" not in text + out.stderr


def test_one_category_says_why(files):
    out = run("audit", str(files["onecat.csv"]), "--item", "item")
    assert out.returncode == 0, out.stderr
    assert "Percent agreement" in out.stdout
    assert "with a single category agreement says nothing about noise" in out.stdout
    assert "with one category there is nothing to estimate" in out.stdout


def test_single_item(files):
    out = run("audit", str(files["single.csv"]), "--item", "item")
    assert out.returncode == 0, out.stderr
    assert "1 item, 3 annotators, 2 categories, 3 ratings" in out.stdout
    assert "not computed" in out.stdout


# ------------------------------------------------------------------ shapes and hints
def test_forgotten_item_column(files):
    out = run("audit", str(files["fleiss.csv"]))
    one_line_error(out, 1, "column 'subject'", "add --item subject")


def test_forgotten_long_layout(files):
    out = run("audit", str(files["crowd.csv"]))
    one_line_error(out, 1, "one row per rating", "--layout long --item item --rater worker "
                   "--label response --gold gold")


def test_long_file_with_a_coder_column(tmp_path):
    # Artstein & Poesio (2008): columns coder, item, label -- one row per rating, not coders
    # x units, although its first column names coders.
    path = DATA / "artstein_poesio2008_example_long.csv"
    one_line_error(run("audit", str(path)), 1,
                   "add --layout long --item item --rater coder --label label")
    report = report_json("audit", str(path), "--layout", "long", "--no-latent")
    rows = {r["coefficient"]: r["value"] for r in
            report["sections"]["agreement"]["tables"]["coefficients"]["rows"]}
    # Artstein & Poesio (2008), running example: A_o 0.88, pi 0.7995, S 0.82.
    assert rows["Percent agreement"] == pytest.approx(0.88, abs=5e-3)
    assert rows["Brennan-Prediger"] == pytest.approx(0.82, abs=5e-3)


def test_count_table_with_an_item_column_and_unnamed_index(tmp_path):
    path = DATA / "wikipedia_fleiss_10subjects_14raters_counts.csv"
    one_line_error(run("audit", str(path), "--layout", "counts"), 1,
                   "not a category's counts: add --item subject")
    report = report_json("audit", str(path), "--layout", "counts", "--item", "subject")
    rows = {r["coefficient"]: r["value"] for r in
            report["sections"]["agreement"]["tables"]["coefficients"]["rows"]}
    assert rows["Fleiss' kappa"] == pytest.approx(0.210, abs=5e-4)  # Wikipedia's example
    # A pandas index written without a name: the hint quotes the column for the shell.
    load_fleiss1971(names=False).reset_index(drop=True).to_csv(tmp_path / "unnamed.csv")
    one_line_error(run("audit", str(tmp_path / "unnamed.csv")), 1, "--item 'Unnamed: 0'")


def test_coders_by_units_hint_and_transpose():
    path = DATA / "krippendorff2011_C_4coders_12units.csv"
    one_line_error(run("audit", str(path)), 1, "coders x units", "--transpose")
    report = report_json("audit", str(path), "--transpose", "--level", "interval",
                         "--no-latent")
    rows = {r["coefficient"]: r["value"] for r in
            report["sections"]["agreement"]["tables"]["coefficients"]["rows"]}
    # Krippendorff (2011), example C: alpha nominal 0.743, interval 0.849.
    assert rows["Krippendorff's alpha (nominal)"] == pytest.approx(0.743, abs=5e-4)
    assert rows["Krippendorff's alpha (interval)"] == pytest.approx(0.849, abs=5e-4)
    assert report["sections"]["data"]["values"]["categories"] == ["1", "2", "3", "4", "5"]


def test_several_rater_columns_are_joined(files):
    from_file = report_json("audit", str(files["ds_long.csv"]), "--layout", "long", "--item",
                            "patient", "--rater", "observer", "replicate", "--label", "rating",
                            "--no-latent")
    bundled = report_json("audit", "--example", "dawid_skene1979", "--no-latent")
    assert from_file["sections"]["data"]["values"]["n_raters"] == 7
    for key in ("agreement", "noise_bound"):
        assert from_file["sections"][key]["values"] == bundled["sections"][key]["values"]


@pytest.mark.parametrize(("name", "extra"), [
    ("fleiss.csv", ("--item", "subject")),
    ("fleiss.tsv", ("--item", "subject")),
    ("fleiss.csv.gz", ("--item", "subject")),
    ("fleiss_semicolon.txt", ("--item", "subject", "--sep", ";")),
    ("fleiss_semicolon.txt", ("--item", "subject")),  # .txt: separator sniffed
    ("fleiss.ndjson", ("--layout", "long", "--item", "subject")),
    ("fleiss_long.parquet", ("--layout", "long", "--item", "subject")),
])
def test_file_types_give_the_same_answer(files, name, extra):
    report = report_json("audit", str(files[name]), *extra, "--no-latent")
    values = report["sections"]["noise_bound"]["values"]
    assert values["agreed"] == 5 and values["d"] == 25
    rows = {r["coefficient"]: r["value"] for r in
            report["sections"]["agreement"]["tables"]["coefficients"]["rows"]}
    assert rows["Fleiss' kappa"] == pytest.approx(0.4302, abs=5e-5)


def test_no_false_note_on_equal_ratings_per_item(files):
    out = run("audit", str(files["crowd.csv"]), "--layout", "long", "--no-latent")
    assert out.returncode == 0, out.stderr
    assert "every item has 3 ratings" in out.stdout
    assert "vary" not in out.stdout
    assert "column 'gold' is not used; if it holds gold labels, add --gold gold" in out.stdout


def test_level_nominal_by_default(files, tmp_path):
    # Numeric labels are categories unless declared ordered.
    default = run("audit", str(files["fleiss.csv"]), "--item", "subject", "--no-latent")
    assert "alpha (ordinal)" not in default.stdout and "alpha (interval)" not in default.stdout
    ordinal = run("audit", str(files["fleiss.csv"]), "--item", "subject", "--no-latent",
                  "--level", "ordinal")
    assert "Krippendorff's alpha (ordinal)" in ordinal.stdout
    # Declared order: an ordered categorical column (string categories keep their order
    # through Parquet).
    wide = load_fleiss1971(names=False)
    levels = pd.CategoricalDtype(["one", "two", "three", "four", "five"], ordered=True)
    names = dict(enumerate(levels.categories, start=1))
    declared = pd.DataFrame({c: wide[c].map(names).astype(levels) for c in wide.columns},
                            index=wide.index)
    declared.to_parquet(tmp_path / "ordered.parquet")
    auto = run("audit", str(tmp_path / "ordered.parquet"), "--no-latent")
    assert "alpha (ordinal)" in auto.stdout and "alpha (interval)" in auto.stdout


# ------------------------------------------------------------------ latent classes and gold
def test_audit_latent_section_and_gold(files):
    report = report_json("audit", str(files["crowd.csv"]), "--layout", "long", "--gold", "gold")
    lc = report["sections"]["latent_class"]
    assert lc["status"] == "ok" and lc["values"]["model"] == "spam with item difficulty"
    annotators = lc["tables"]["annotators"]["rows"]
    assert len(annotators) == 14
    assert {"annotator", "n_ratings", "competence", "agreement_with_labels",
            "gold_accuracy"} <= set(annotators[0])
    assert report["sections"]["hard_items"]["status"] == "ok"
    bracket = report["sections"]["bracket"]
    assert bracket["status"] == "ok"
    assert 0 <= bracket["values"]["optimistic"] <= bracket["values"]["pessimistic"] <= 1
    gold = report["sections"]["gold"]["values"]
    assert gold["items_with_gold"] == 60
    # Against the API: majority vote accuracy on the same data.
    crowd = pd.read_csv(files["crowd.csv"])
    votes = crowd.groupby("item")["response"].mean()
    truth = crowd.groupby("item")["gold"].first()
    majority = (votes > 0.5).astype(int).where(votes != 0.5, 0)
    assert gold["accuracy"]["majority vote (ties: first category)"] == pytest.approx(
        float((majority == truth).mean()))
    from_file = report_json("audit", str(files["crowd.csv"]), "--layout", "long", "--gold",
                            str(files["crowd_key.csv"]))
    assert from_file["sections"]["gold"]["values"] == gold


@pytest.mark.parametrize("model", ["spam", "confusion", "one-coin", "easy-hard"])
def test_fit_writes_labels_and_annotators(model, tmp_path):
    from agreement import Ratings
    from noise_models import EasyHardModel, LatentClassModel

    out = run("fit", "--example", "dawid_skene1979", "--model", model, "--out",
              str(tmp_path / "labels.csv"))
    assert out.returncode == 0, out.stderr
    labels = pd.read_csv(tmp_path / "labels.csv")
    assert list(labels.columns) == ["item", "label", "label_posterior", "posterior_hard",
                                    "n_ratings"]
    annotators = pd.read_csv(tmp_path / "labels.annotators.csv")
    assert len(labels) == 45 and len(annotators) == 7
    long = load_dawid_skene1979()
    long["rater"] = long["observer"].astype(str) + "." + long["replicate"].astype(str)
    r = Ratings.from_long(long, item="patient", rater="rater", label="rating")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the default hard component: item difficulty with spam, none with the others
        api = (EasyHardModel(rng=0) if model == "easy-hard" else
               LatentClassModel(model, "difficulty" if model == "spam" else None, rng=0)
               ).fit(r)
    # Dawid-Skene's near-best starts disagree on 2 of the 45 patients: the API warns, the
    # command prints the warning as a note (with the command line's remedy) and goes on
    unstable = model == "confusion"
    assert [w.category for w in caught] == ([UnstableStartsWarning] if unstable else [])
    assert ("depends on the starts" in out.stdout) == unstable
    assert ("--starts" in out.stdout) == unstable
    np.testing.assert_array_equal(labels["label"].to_numpy(), api.labels.to_numpy())
    np.testing.assert_allclose(labels["label_posterior"], api.label_posterior, rtol=1e-9)
    assert "Per annotator" in out.stdout
    # a model without a hard component shows the easy/hard model's P(hard), and says whose
    borrowed = model not in ("easy-hard", "spam")
    assert ("P(hard, M1)" in out.stdout) == borrowed
    assert ("calls every item with a disagreement hard" in out.stdout) == borrowed


def test_fit_with_gold_in_the_fit(tmp_path):
    # --gold-in-fit hands the gold labels to the EM as known classes, as fit(..., gold=)
    # does in Python; --gold alone only compares. Simulated: 300 items, 4 of 4 annotators.
    from noise_models import LatentClassModel

    g = np.random.default_rng(3)
    truth = g.integers(0, 3, 300)
    x = np.where(g.random((300, 4)) < 0.65, truth[:, None], g.integers(0, 3, (300, 4)))
    long = pd.DataFrame([(i, f"a{j}", int(x[i, j])) for i in range(300) for j in range(4)],
                        columns=["item", "rater", "label"])
    long.to_csv(tmp_path / "r.csv", index=False)
    gold = pd.DataFrame({"item": np.arange(0, 300, 5), "gold": truth[::5]})
    gold.to_csv(tmp_path / "g.csv", index=False)
    base = ["fit", str(tmp_path / "r.csv"), "--layout", "long", "--item", "item", "--rater",
            "rater", "--label", "label", "--gold", str(tmp_path / "g.csv")]
    out = run(*base, "--gold-in-fit", "--out", str(tmp_path / "known.csv"))
    assert out.returncode == 0, out.stderr
    known = pd.read_csv(tmp_path / "known.csv").set_index("item")
    np.testing.assert_array_equal(known.loc[gold["item"], "label"], gold["gold"])
    assert (known.loc[gold["item"], "label_posterior"] == 1.0).all()
    assert "took 60 gold labels as known classes" in out.stdout
    api = LatentClassModel("spam", "difficulty", rng=0).fit(
        long.pivot(index="item", columns="rater", values="label"),
        gold=pd.Series(gold["gold"].to_numpy(), index=gold["item"]))
    np.testing.assert_allclose(known["label_posterior"], api.label_posterior, rtol=1e-9)
    out = run(*base, "--out", str(tmp_path / "compared.csv"))
    assert out.returncode == 0 and "fitted (" in out.stdout
    one_line_error(run(*base[:-2], "--gold-in-fit"), 1, "--gold-in-fit needs the known labels")


def test_fit_parquet(tmp_path):
    out = run("fit", "--example", "dawid_skene1979", "--out", str(tmp_path / "l.parquet"), "-q")
    assert out.returncode == 0 and out.stdout == ""
    assert len(pd.read_parquet(tmp_path / "l.parquet")) == 45
    assert len(pd.read_parquet(tmp_path / "l.annotators.parquet")) == 7


def test_fit_of_a_count_table_says_why():
    one_line_error(run("fit", "--example", "fleiss1971"), 1, "count table")


# ------------------------------------------------------------------ formats and files
def test_markdown_and_csv(tmp_path):
    md = run("audit", "--example", "fleiss1971", "--format", "markdown").stdout
    assert md.startswith("# goldnoise audit") and "| coefficient |" in md
    csv_text = run("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05",
                   "--max-raters", "5", "--format", "csv").stdout
    (tmp_path / "plan.csv").write_text(csv_text)
    table = pd.read_csv(tmp_path / "plan.csv")
    assert list(table["k"]) == [2, 3, 4, 5] and list(table["agreed"]) == [900, 850, 825, 813]
    out = run("audit", "--example", "fleiss1971", "--out", str(tmp_path / "a.json"))
    assert out.returncode == 0 and "goldnoise audit" in out.stdout  # text still shown
    assert json.loads((tmp_path / "a.json").read_text())["command"] == "audit"


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_plots_are_pngs_of_the_right_size(tmp_path):
    pytest.importorskip("matplotlib")
    out = run("audit", "--example", "dawid_skene1979", "--plot", str(tmp_path), "-q")
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert names == ["audit_annotator_accuracy.png", "audit_coefficients.png",
                     "audit_hard_count_posterior.png", "audit_hard_posterior.png"]
    assert _png_size(tmp_path / "audit_hard_count_posterior.png") == (640, 400)
    width, height = _png_size(tmp_path / "audit_coefficients.png")
    assert width == 640 and height == round(100 * (1.2 + 0.45 * 7))
    plan = run("plan", "1000", "--easy-fraction", "0.8", "--gamma", "0.05", "--plot",
               str(tmp_path / "plan"), "-q")
    assert plan.returncode == 0
    assert _png_size(tmp_path / "plan" / "plan_gamma_by_k.png") == (640, 400)


def test_without_matplotlib_one_line(tmp_path, monkeypatch):
    # matplotlib cannot be imported: every module of it hidden (None in sys.modules makes
    # `import matplotlib` raise ImportError, as without the package), in this process
    for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = run("audit", "--example", "fleiss1971", "--plot", str(tmp_path / "plots"), "-q")
    assert out.returncode == 0
    assert out.stderr.strip() == ("goldnoise: no plots written: plots need matplotlib: "
                                  "pip install 'goldnoise[plot]'")
    assert not (tmp_path / "plots").exists() or not any((tmp_path / "plots").iterdir())
    page = run("audit", "--example", "fleiss1971", "--report", str(tmp_path / "a.html"), "-q")
    assert page.returncode == 0
    assert "the page has no plots" in (tmp_path / "a.html").read_text()


def test_html_report_is_self_contained(tmp_path):
    pytest.importorskip("matplotlib")
    out = run("audit", "--example", "dawid_skene1979", "--report", str(tmp_path / "a.html"),
              "-q")
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "a.html").read_text()
    assert page.count("<svg") == 4
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?:https?:|//|file:)""", page)
    assert not re.search(r"url\(\s*['\"]?(?:https?:|//)", page) and "@import" not in page
    assert "<link" not in page and "<img" not in page and "<script src" not in page
    block = re.search(r'<script type="application/json" id="goldnoise-report">(.*?)</script>',
                      page, flags=re.S).group(1)
    embedded = json.loads(block.replace("<\\/", "</"))
    assert embedded == report_json("audit", "--example", "dawid_skene1979")


def test_import_is_light():
    # `import goldnoise` must not pay for Numba, scipy, statsmodels, matplotlib or tqdm:
    # they load when first used (benchmarks/bench_import.py times it).
    code = ("import sys, goldnoise; print(sorted(m for m in ('numba', 'scipy', 'statsmodels', "
            "'matplotlib', 'tqdm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.strip() == "[]"
