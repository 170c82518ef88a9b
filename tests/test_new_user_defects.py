"""What a new user still ran into (issue 44): each test fails on the code before its fix."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _one_line_error(status, out, err, message):
    assert status in (1, 2), err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


# ------------------------------------------------------------------ judge (items 1, 3, 4, 5)
QUICK = ("--margin", "0.05", "--resamples", "50", "--latent-resamples", "0")
WHO = ("a", "b", "c", "gpt")


def _judged(n=30):
    """(item, rater, label) rows: three humans and a candidate, 85% right on two labels."""
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, n)
    return [(i, who, ["neg", "pos"][t if rng.random() < 0.85 else 1 - t])
            for i, t in enumerate(truth) for who in WHO]


def _mturk(path, rows):
    pd.DataFrame([{"HITId": f"H{i}", "WorkerId": who, "AssignmentStatus": "Approved",
                   "Answer.sentiment": lab} for i, who, lab in rows]).to_csv(path, index=False)
    return path


def _labelstudio(path, rows):
    tasks = {}
    for i, who, lab in rows:
        tasks.setdefault(i, []).append(
            {"completed_by": {"id": who}, "result": [
                {"type": "choices", "from_name": "mood", "to_name": "text",
                 "value": {"choices": [lab]}}]})
    path.write_text(json.dumps([{"id": i, "annotations": a} for i, a in tasks.items()]))
    return path


def _long(path, rows, **columns):
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"]).assign(**columns)
    frame.to_csv(path, index=False)
    return path


def _humans_line(out):
    return json.loads(out)["sections"]["humans"]["values"]


@pytest.mark.parametrize("tool", ["mturk", "labelstudio"])
def test_judge_reads_a_tools_export(tmp_path, capsys, tool):
    rows = _judged()
    path = (_mturk(tmp_path / "batch.csv", rows) if tool == "mturk"
            else _labelstudio(tmp_path / "ls.json", rows))
    status, out, err = _run(capsys, "judge", path, "--from", tool, "--candidates", "gpt",
                            *QUICK, "--format", "json")
    assert status == 0, err
    got = _humans_line(out)
    status, out, err = _run(capsys, "judge", _long(tmp_path / "long.csv", rows),
                            "--candidates", "gpt", *QUICK, "--format", "json")
    assert status == 0, err
    expected = _humans_line(out)
    assert got["humans"] == ["a", "b", "c"]
    assert got["value"] == pytest.approx(expected["value"], abs=1e-12)
    # a layout given with --from is still refused
    _one_line_error(*_run(capsys, "judge", path, "--from", tool, "--layout", "long",
                          "--candidates", "gpt", *QUICK), "--from reads the tool's own layout")


def test_judge_kind_column_of_an_export_without_one(tmp_path, capsys):
    path = _labelstudio(tmp_path / "ls.json", _judged())
    _one_line_error(*_run(capsys, "judge", path, "--from", "labelstudio", "--kind-column",
                          "kind", "--candidates", "gpt", *QUICK),
                    "a labelstudio export has none")


@pytest.mark.parametrize(("extra", "named"), [
    (("--labelled", "no-such-file.txt"), "--labelled"),
    (("--labelled-share", "0.3"), "--labelled-share"),
    (("--truth", "majority"), "--truth"),
])
def test_judge_estimate_options_without_estimate(tmp_path, capsys, extra, named):
    path = _long(tmp_path / "r.csv", _judged())
    status, out, err = _run(capsys, "judge", path, "--candidates", "gpt", *QUICK, *extra)
    _one_line_error(status, out, err, f"{named} shapes the prediction-powered estimate")
    assert "add --estimate CATEGORY" in err


def test_judge_rater_of_two_kinds(tmp_path, capsys):
    rows = _judged()
    kinds = ["llm" if who == "gpt" or (who == "a" and i % 2) else "human"
             for i, who, _ in rows]
    path = _long(tmp_path / "r.csv", rows, rater_kind=kinds)
    _one_line_error(*_run(capsys, "judge", path, "--candidates", "gpt", *QUICK),
                    "gives rater 'a' more than one kind")


def test_judge_one_label_is_not_barely_agreeing(tmp_path, capsys):
    rows = [(i, who, "x") for i in range(20) for who in WHO]
    path = _long(tmp_path / "same.csv", rows)
    status, out, err = _run(capsys, "judge", path, "--candidates", "gpt", *QUICK)
    _one_line_error(status, out, err, "every human rating is the same label ('x'): the humans "
                    "agree completely")
    assert "barely" not in err and "--coefficient percent_agreement" in err
    status, out, err = _run(capsys, "judge", path, "--candidates", "gpt", *QUICK,
                            "--coefficient", "percent_agreement")
    assert status == 0, err
    assert "barely" not in out and "gpt: replace" in out


def test_judge_undefined_agreement_is_not_low(tmp_path, capsys):
    # each item rated by one human (and the candidate): no pair of humans to compare
    rng = np.random.default_rng(1)
    rows = [row for i in range(30) for row in ((i, "abc"[i % 3], rng.choice(["x", "y"])),
                                               (i, "gpt", rng.choice(["x", "y"])))]
    status, out, err = _run(capsys, "judge", _long(tmp_path / "r.csv", rows), "--candidates",
                            "gpt", *QUICK)
    assert status == 0, err
    assert "barely" not in out
    assert "the humans' coefficient is undefined: a judge cannot be validated" in out
    assert "gpt: not validated -- the humans' alpha is undefined" in out


# ------------------------------------------------------------------ bound at huge N (item 2)
def _nb_bound_reference(n, d, p, alpha):
    """Smallest j with F(j) > alpha·F(n − d), F the CDF of NB(d + 1, 1 − p) failures, from
    the pmf's recursion P(0) = (1 − p)^(d+1), P(j) = P(j − 1)·p·(d + j)/j at 60 digits."""
    import mpmath

    with mpmath.workdps(60):
        pm, big_n = mpmath.mpf(p), n - d
        pmf = (1 - pm) ** (d + 1)
        terms = [pmf]
        while len(terms) <= big_n and (len(terms) < 10 or terms[-1] > mpmath.mpf(10) ** -80):
            j = len(terms)
            pmf = pmf * pm * (d + j) / j
            terms.append(pmf)
        cdf = list(mpmath.fsum(terms[:k + 1]) for k in range(len(terms)))
        target = alpha * cdf[-1]
        return next(j for j, f in enumerate(cdf) if f > target)


@pytest.mark.parametrize(("n", "d", "p"), [
    (10**20, 10**19, 1e-30), (10**17, 10**16, 1e-30), (10**20, 10**19, 1e-21),
    (10**20, 10**19, 1e-17), (10**19, 2**53 + 5, 3e-15)])
def test_bound_at_huge_counts_and_tiny_p(n, d, p, capsys):
    from noise_models import noise_bound

    result = noise_bound(n, d, p)
    assert result.t0 - d == _nb_bound_reference(n, d, p, 0.95)
    status, out, err = _run(capsys, "bound", f"{n:g}", f"{d:g}" if d % 10 == 0 else d, p)
    assert status == 0 and "Traceback" not in err, err
    assert f"at most t0 = {result.t0}" in out


# ------------------------------------------------------------------ inconsistent inputs (item 4)
@pytest.mark.parametrize("verb", ["audit", "next", "verify"])
def test_gold_column_that_differs_within_an_item(tmp_path, capsys, verb):
    rows = [(i, who, lab) for i, who, lab in _judged() if who != "gpt"]
    gold = [lab for _, _, lab in rows]  # each row's own label: differs where they disagree
    path = _long(tmp_path / "r.csv", rows, gold=gold)
    size = () if verb == "audit" else ("--size", "3")
    _one_line_error(*_run(capsys, verb, path, "--layout", "long", "--gold", "gold", *size),
                    "the gold column 'gold' differs between the rows of")


def test_spans_tag_column_named_twice(tmp_path, capsys):
    path = tmp_path / "two.conll"
    path.write_text("John B-PER B-PER\nsmiles O O\n\n")
    _one_line_error(*_run(capsys, "spans", path, "--from", "conll", "--tag-column", "1", "1"),
                    "--tag-column names column 1 twice")


def test_consistency_two_controls_for_one_condition(tmp_path, capsys):
    path = tmp_path / "x.conll"
    path.write_text("John B-PER\n\n")
    _one_line_error(*_run(capsys, "consistency", path, "--gold", path, "--control", "A=B",
                          "--control", "A=C"), "--control gives condition 'A' two controls")


# ------------------------------------------------------------------ messages (item 6)
@pytest.mark.parametrize("value", ["inf", "nan"])
def test_an_unbounded_option_says_finite(tmp_path, capsys, value):
    path = _long(tmp_path / "r.csv", _judged())
    with pytest.raises(SystemExit):
        _run(capsys, "judge", path, "--candidates", "gpt", "--margin", value)
    err = capsys.readouterr().err
    assert f"--margin must be a finite number; got {value}" in err and "[-inf" not in err


def test_gold_naming_the_item_column(tmp_path, capsys):
    wide = tmp_path / "w.csv"
    wide.write_text("id,a,b,c\n1,x,x,y\n2,y,y,y\n3,x,y,x\n4,x,x,x\n")
    _one_line_error(*_run(capsys, "next", wide, "--item", "id", "--gold", "id", "--size", 2),
                    "--item and --gold both name column 'id'")
    long = tmp_path / "l.csv"
    long.write_text("id,rater,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    _one_line_error(*_run(capsys, "next", long, "--layout", "long", "--gold", "id", "--size",
                          1), "--gold 'id' is the column of item ids")


def _verified_with_gold(tmp_path, capsys):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    frame = pd.DataFrame({c: np.where(rng.random(60) < 0.8, truth, 1 - truth) for c in "abc"})
    frame.insert(0, "item", range(60))
    frame["gold"] = [truth[i] if i < 10 else None for i in range(60)]
    frame.to_csv(tmp_path / "g.csv", index=False)
    status, _out, err = _run(capsys, "verify", tmp_path / "g.csv", "--item", "item", "--gold",
                             "gold", "--size", 8, "--out", tmp_path / "batch.csv", "--quiet")
    assert status == 0, err
    batch = pd.read_csv(tmp_path / "batch.csv")
    pd.DataFrame({"item": batch["item"], "label": 0}).to_csv(tmp_path / "v.csv", index=False)
    return ("certify", tmp_path / "g.csv", "--item", "item", "--verified", tmp_path / "v.csv",
            "--design", tmp_path / "batch.csv")


def test_certify_without_the_gold_verify_had(tmp_path, capsys):
    argv = _verified_with_gold(tmp_path, capsys)
    status, out, err = _run(capsys, *argv)
    _one_line_error(status, out, err, "and the --gold that verify was given")
    assert "verification_batch" not in err
    status, out, err = _run(capsys, *argv, "--gold", "gold", "--look", "1000000000000")
    _one_line_error(status, out, err, "--look 1000000000000 spends an error level of 5e-26")
    assert "`alpha`" not in err
    status, out, err = _run(capsys, *argv, "--gold", "gold", "--look", "3")
    assert status == 0, err


def test_study_assurance_messages(capsys):
    with pytest.raises(SystemExit):
        _run(capsys, "study", "fleiss_kappa", "--expected", "0.6", "--half-width", "0.1",
             "--assurance", "1")
    assert "--assurance must be in (0, 1); got 1" in capsys.readouterr().err
    _one_line_error(*_run(capsys, "study", "fleiss_kappa", "--expected", "0.6", "--null",
                          "0.4", "--power", "0.8", "--assurance", "0.8"),
                    "it goes with --half-width or --width only")


def test_judge_labelled_file_not_utf8(tmp_path, capsys):
    path = _long(tmp_path / "r.csv", _judged())
    labelled = tmp_path / "ids.txt"
    labelled.write_bytes("1\n2\ncaf\xe9\n".encode("latin-1"))
    _one_line_error(*_run(capsys, "judge", path, "--candidates", "gpt", *QUICK, "--estimate",
                          "pos", "--labelled", labelled), "is not UTF-8 text")


def test_judge_example_of_counts_and_candidates_twice(tmp_path, capsys):
    status, out, err = _run(capsys, "judge", "--example", "fleiss1971", "--candidates", "1",
                            *QUICK)
    _one_line_error(status, out, err, "--example fleiss1971 holds counts of labels per item")
    assert "Ratings.from_wide" not in err
    path = _long(tmp_path / "r.csv", _judged())
    _one_line_error(*_run(capsys, "judge", path, "--candidates", "gpt", "gpt", *QUICK),
                    "--candidates names 'gpt' twice")


def test_semicolon_file_without_sep(tmp_path, capsys):
    path = tmp_path / "semi.csv"
    path.write_text("item;a;b;c\n1;x;x;y\n2;y;y;y\n3;x;y;x\n")
    _one_line_error(*_run(capsys, "audit", path), "add --sep ';'")
    status, _out, err = _run(capsys, "audit", path, "--sep", ";", "--item", "item",
                             "--no-latent")
    assert status == 0, err


def test_fit_hints_name_only_the_verbs_options():
    from goldnoise._cli import build_parser
    from goldnoise._cli._common import in_cli_words

    unstable = ("spam: 3 of 10 EM starts end ... the seed). The fit returned is the best "
                "start's. Compare the starts with `fit.unstable_starts()` (their labels are "
                "in `fit.start_labels`), raise `n_starts` (`--starts` on the command line), "
                "or pin the optimum down with known labels (`gold=`).")
    collapsed = ("try a more constrained model (e.g. annotators='spam' or 'one-coin') or a "
                 "larger `prior_strength`.")
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for verb in ("judge", "spans"):  # verbs without --starts, --gold or --model
        options = frozenset(o for a in sub.choices[verb]._actions for o in a.option_strings)
        for text in (unstable, collapsed):
            said = in_cli_words(text, options=options)
            assert "--starts N" in said or "goldnoise fit --model" in said, said
            assert "fit." not in said and "`" not in said and "=" not in said, said
            named = set(re.findall(r"--[a-z-]+", re.sub(r"\(goldnoise fit [^)]*\)", "",
                                                         said)))
            assert named <= options, (verb, named - options)


# ------------------------------------------------------------------ a long study (item 7)
def test_a_long_studys_estimate_is_said_off_a_terminal(capsys, monkeypatch):
    from simulation.study import _cost

    monkeypatch.delenv("GOLDNOISE_PROGRESS", raising=False)
    _cost.announce("study_size (fleiss_kappa)", 1500.0, 4000, None)  # stderr: no terminal
    assert capsys.readouterr().err == ("study_size (fleiss_kappa): about 4,000 simulated "
                                       "studies, estimated 25 min 0 s (from a timed pilot)\n")
    _cost.announce("quick", _cost.ANNOUNCE_SECONDS / 2, 10, None)
    _cost.announce("off", 1500.0, 10, False)
    monkeypatch.setenv("GOLDNOISE_PROGRESS", "0")
    _cost.announce("silenced", 1500.0, 10, None)
    assert capsys.readouterr().err == ""
    # through the command line, into a pipe (capsys): the line comes before the report
    monkeypatch.delenv("GOLDNOISE_PROGRESS")
    monkeypatch.setattr(_cost, "ANNOUNCE_SECONDS", 0.0)
    status, _out, err = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                            "--half-width", "0.2", "--raters", "3", "--sims", "20")
    assert status == 0, err
    assert "study_size_for_width (fleiss_kappa): about" in err and "simulated studies, estimated" in err


# ------------------------------------------------------------------ metadata check (item 8)
def _pairwise_metadata_column(frame):
    """The definition, pair by pair: the first column (5+ labels) sharing no value with any
    other column, when two other columns share values; None otherwise."""
    import itertools

    values = {c: {str(v) for v in frame[c].dropna()} for c in frame.columns}
    for col in frame.columns:
        if frame[col].notna().sum() < 5 or not values[col]:
            continue
        others = [c for c in frame.columns if c != col]
        if any(values[col] & values[o] for o in others):
            continue
        if any(values[a] & values[b] for a, b in itertools.combinations(others, 2)):
            return col
    return None


@pytest.mark.parametrize("seed", range(40))
def test_metadata_check_in_one_pass_decides_as_the_pairwise_definition(seed, tmp_path):
    # The check counts in how many columns each value occurs (linear in the cells; the
    # pairwise one was quadratic in the columns: benchmarks/bench_audit_columns.py).
    from goldnoise._cli._errors import DataError
    from goldnoise._cli._input import _metadata_hint

    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 9)), int(rng.integers(3, 7))
    pools = [list(rng.choice(list("abcdefgh"), size=int(rng.integers(1, 3)), replace=False))
             for _ in range(k)]
    frame = pd.DataFrame({f"c{j}": [rng.choice(p) if rng.random() > 0.1 else None
                                    for _ in range(n)] for j, p in enumerate(pools)})
    expected = _pairwise_metadata_column(frame)
    if expected is None:
        _metadata_hint(frame, tmp_path / "f.csv")
    else:
        with pytest.raises(DataError, match=f"column '{expected}' shares no value"):
            _metadata_hint(frame, tmp_path / "f.csv")


# ------------------------------------------------------------------ the earlier list (item 9)
def test_bound_reads_1e300_exactly_and_prints_it_short(capsys):
    status, out, err = _run(capsys, "bound", "1e300", "1e299", "0.5", "--format", "json")
    assert status == 0, err
    values = json.loads(out)["sections"]["noise_bound"]["values"]
    assert values["n"] == 10**300 and values["d"] == 10**299  # not the floats' digits
    status, out, err = _run(capsys, "bound", "1e300", "1e299", "0.5")
    assert status == 0, err
    assert out.startswith("goldnoise bound: N = 1e+300, D = 1e+299, P = 0.5\n")
    assert max(len(w) for w in out.split()) < 30, out  # no 301-digit number anywhere


def _fleiss():
    from agreement import Ratings
    from goldnoise import datasets

    return Ratings.from_wide(datasets.load_krippendorff2011())


def test_next_batch_exclude_names_ids_that_are_not_items():
    from simulation import next_batch

    r = _fleiss()
    with pytest.raises(ValueError, match=r"`exclude` names 1 id\(s\) that are not items.*'x'"):
        next_batch(r, size=2, exclude=[r.items[0], "x"], rng=0)
    batch = next_batch(r, size=2, exclude=[r.items[0]], rng=0)
    assert r.items[0] not in set(batch["item"])


def test_residual_errors_refuses_a_missing_verified_label():
    from simulation import residual_errors

    r = _fleiss()
    labels = r.majority_labels()
    verified = pd.Series([labels.iloc[0], None, labels.iloc[2]], index=r.items[:3],
                         dtype=object)
    with pytest.raises(ValueError, match=r"`verified` has no label for 1 item\(s\)"):
        residual_errors(r, verified)
    residual_errors(r, verified.dropna())


@pytest.mark.parametrize(("text", "message"), [
    ("\n\n", "names no item: give one item id a line"),
    ("item\n1\n2\n3\n", "its first line 'item' is not an item of the ratings, the others are"),
])
def test_judge_labelled_file_empty_or_with_a_header(tmp_path, capsys, text, message):
    path = _long(tmp_path / "r.csv", _judged())
    labelled = tmp_path / "ids.txt"
    labelled.write_text(text)
    _one_line_error(*_run(capsys, "judge", path, "--candidates", "gpt", *QUICK, "--estimate",
                          "pos", "--labelled", labelled), message)


def test_consistency_empty_score_file(tmp_path, capsys):
    gold = tmp_path / "g.conll"
    gold.write_text("John B-PER\nsmiles O\n\n")
    (tmp_path / "empty.csv").write_text("")
    status, out, err = _run(capsys, "consistency", tmp_path / "empty.csv", "--gold", gold)
    _one_line_error(status, out, err, "empty.csv is empty")
    assert "No columns to parse" not in err and str(gold) not in err


def test_replay_with_truth_on_some_items_says_so(tmp_path, capsys):
    rng = np.random.default_rng(9)
    truth = rng.integers(0, 2, 60)
    x = np.where(rng.random((60, 5)) < 0.8, truth[:, None], 1 - truth[:, None])
    frame = pd.DataFrame(x, index=pd.Index(np.arange(60), name="id"),
                         columns=[f"a{j}" for j in range(5)])
    frame["gold"] = [t if i < 50 else None for i, t in enumerate(truth)]  # 50 of 60
    frame.to_csv(tmp_path / "r.csv")
    status, out, err = _run(capsys, "replay", tmp_path / "r.csv", "--item", "id", "--truth",
                            "gold", "--policies", "uniform", "--seeds", "1", "--model",
                            "one-coin", "--starts", "1", "--calibrate", "none")
    assert status == 0, err
    assert "on 60 items (accuracies over the 50 with a known truth)" in out


def test_bioes_tags_under_the_bio_scheme_get_a_note(tmp_path, capsys):
    from agreement import GoldnoiseWarning
    from agreement.spans import decode_tags

    with pytest.warns(GoldnoiseWarning, match=r"2 tag\(s\) of the BIOES scheme .*S-ORG"):
        assert decode_tags(["S-ORG", "B-PER", "E-PER"]) == [(0, 1, "ORG"), (1, 3, "PER")]
    path = tmp_path / "s.conll"
    path.write_text("Ada S-PER S-PER\nmet O O\nBabbage B-PER B-PER\nsmiled E-PER O\n\n")
    status, out, err = _run(capsys, "spans", path, "--from", "conll")
    assert status == 0, err
    assert "2 tag(s) of the BIOES scheme" in out and "--scheme BIOES" in out
    status, out, err = _run(capsys, "spans", path, "--from", "conll", "--scheme", "BIOES")
    assert status == 0 and "BIOES scheme" not in out, err


@pytest.mark.parametrize("column", ["label", "annotator", "document"])
def test_spans_refuse_a_missing_label_annotator_or_document(column):
    from agreement.spans import Spans

    frame = pd.DataFrame({"document": ["d", "d", "d"], "start": [0, 5, 0], "end": [3, 8, 3],
                          "label": ["PER", "LOC", "PER"], "annotator": ["a", "a", "b"]})
    Spans(frame)
    frame.loc[1, column] = np.nan
    with pytest.raises(ValueError, match=rf"`{column}` is missing in 1 row\(s\) \(first: row 1\)"):
        Spans(frame)


def test_voter_labels_ragged_or_huge():
    from simulation import voter_labels

    with pytest.raises(ValueError, match=r"rows differ in length \(a ragged list\)"):
        voter_labels([[[0.5, 0.5], [1.0]]], n_votes=3, rng=0)
    probs = np.array([[[0.5, 0.5], [0.9, 0.1]]])
    with pytest.raises(ValueError, match=r"`n_votes` is 1,000,000,000,000; at most 10,000,000"):
        voter_labels(probs, n_votes=10**12, rng=0)
    assert voter_labels(probs, n_votes=5, rng=0).probs.shape == (2, 2)


def test_an_assurance_the_simulation_is_too_small_for(capsys):
    status, out, err = _run(capsys, "study", "cohen_kappa", "--expected", "0.6",
                            "--half-width", "0.2", "--assurance", "0.999", "--sims", "100")
    assert status == 0, err
    text = " ".join(out.split())
    assert "100 simulated studies cannot tell an assurance of 0.999 from 1" in text
    assert "simulate 5,000 or more (--sims)" in text
