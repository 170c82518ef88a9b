"""Defects a new user ran into (issue 22): each test fails on the code before the fix."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _counts(tmp_path):
    # Fleiss (1971)'s layout: subject id, one column per diagnosis, 6 ratings a row.
    rng = np.random.default_rng(0)
    rows = [rng.multinomial(6, [0.4, 0.3, 0.2, 0.1, 0.0]) for _ in range(30)]
    frame = pd.DataFrame(rows, columns=["Depression", "PD", "Schizo", "Neurosis", "Other"])
    frame.insert(0, "subject", range(1, 31))
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    return path


def test_count_table_hint_even_with_item(tmp_path, capsys):
    path = _counts(tmp_path)
    for extra in ([], ["--item", "subject"]):
        status, _out, err = _run(capsys, "audit", path, *extra)
        assert status == 1
        assert "looks like a count table" in err and "--layout counts" in err
    status, _out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject")
    assert status == 0, err


def test_out_refuses_to_overwrite_an_input(tmp_path, capsys):
    path = _counts(tmp_path)
    before = path.read_bytes()
    status, _out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject",
                            "--out", path)
    assert status == 2 and "is one of the input files" in err
    assert path.read_bytes() == before
    status, _out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject",
                            "--report", path)
    assert status == 2 and path.read_bytes() == before


def test_a_created_folder_is_named(tmp_path, capsys):
    path = _counts(tmp_path)
    target = tmp_path / "new" / "deeper" / "report.json"
    status, _out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject",
                            "--no-latent", "--out", target)
    assert status == 0 and target.exists()
    assert f"created the folder {target.parent}" in err
    # an existing folder is not announced
    status, _out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject",
                            "--no-latent", "--out", target)
    assert status == 0 and "created the folder" not in err


def test_unknown_out_format_refused_before_the_work(tmp_path, capsys):
    path = _counts(tmp_path)
    status, out, err = _run(capsys, "audit", path, "--layout", "counts", "--item", "subject",
                            "--out", tmp_path / "x.xyz")
    assert status == 2 and "cannot tell the format" in err
    assert out == ""  # nothing computed or printed


def test_truncated_gzip_is_one_line(tmp_path, capsys):
    data = gzip.compress(b"item,a,b\n1,x,y\n2,x,x\n3,y,y\n")
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(data[:20])
    status, _out, err = _run(capsys, "audit", path)
    assert status == 1 and "ends early" in err and len(err.strip().splitlines()) == 1


def test_same_column_for_item_and_label(tmp_path, capsys):
    path = tmp_path / "long.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    status, _out, err = _run(capsys, "audit", path, "--layout", "long", "--item", "label",
                            "--label", "label")
    assert status == 2 and "both name column 'label'" in err


def test_chance_margin_never_exceeds_the_hard_items(capsys):
    # `goldnoise bound 10 9 0.5`: Chebyshev said 3.2 items of 1 (316%).
    _status, out, _err = _run(capsys, "bound", "10", "9", "0.5", "--format", "json")
    import json

    values = json.loads(out)["sections"]["margin"]["values"]
    assert values["margin"] <= values["hard_items"]
    assert values["method"] == "exact"
    _status, out, _err = _run(capsys, "bound", "1000", "100", "0.5")
    assert "35.4 items" in out and "chebyshev" in out  # the spec's worked example unchanged


@pytest.mark.parametrize("n", ["1e20", "100000000000000000000"])
def test_bound_with_huge_n(capsys, n):
    status, _out, err = _run(capsys, "bound", n, "10", "0.5")
    assert status == 0, err


SAS_TABLE_10 = "0,1,2\n0,4,1\n0,8,0\n0,1,5\n"  # SAS PROC FREQ documentation, table 10


def test_contingency_layout_and_hint(tmp_path, capsys):
    import json

    path = tmp_path / "table.csv"
    path.write_text(SAS_TABLE_10)
    status, out, err = _run(capsys, "audit", path)
    assert status == 1 and "--layout contingency" in err  # read as ratings it gave -0.24
    status, out, err = _run(capsys, "audit", path, "--layout", "contingency", "--format",
                            "json")
    assert status == 0, err
    rows = json.loads(out)["sections"]["agreement"]["tables"]["coefficients"]["rows"]
    cohen = next(r for r in rows if r["coefficient"] == "Cohen's kappa")
    assert cohen["value"] == pytest.approx(0.4842, abs=5e-5)  # SAS prints 0.4842
    labelled = tmp_path / "labelled.csv"
    labelled.write_text(",a,b\na,13,0\nb,2,20\n")
    status, out, err = _run(capsys, "audit", labelled)
    assert status == 1 and "--layout contingency" in err
    shares = tmp_path / "shares.csv"
    shares.write_text("0,1\n0.4,0.1\n0.1,0.4\n")
    status, out, err = _run(capsys, "audit", shares)
    assert status == 1 and "proportions" in err


def test_weight_column_and_hint(tmp_path, capsys):
    import json

    path = tmp_path / "patterns.csv"
    path.write_text("husband,wife,Freq\nyes,yes,7\nyes,no,2\nno,yes,3\nno,no,8\n")
    status, out, err = _run(capsys, "audit", path)
    assert status == 1 and "--weight Freq" in err
    status, out, err = _run(capsys, "audit", path, "--weight", "Freq", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    rows = report["sections"]["agreement"]["tables"]["coefficients"]["rows"]
    cohen = next(r for r in rows if r["coefficient"] == "Cohen's kappa")
    # the same 20 items written out one per row
    import agreement as ag

    wide = pd.DataFrame({"husband": ["yes"] * 9 + ["no"] * 11,
                         "wife": ["yes"] * 7 + ["no"] * 2 + ["yes"] * 3 + ["no"] * 8})
    assert cohen["value"] == pytest.approx(ag.cohen_kappa(ag.Ratings.from_wide(wide)).value)


def test_drop_metadata_columns(tmp_path, capsys):
    path = tmp_path / "meta.csv"
    path.write_text("item,group,a,b\n1,g1,x,x\n2,g1,x,y\n3,g2,y,y\n4,g2,y,y\n")
    status, out, err = _run(capsys, "audit", path, "--item", "item", "--drop", "group")
    assert status == 0, err
    assert "4 items, 2 annotators" in out


def test_transpose_of_a_units_by_raters_file_is_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 3, (200, 3)), columns=["r1", "r2", "r3"])
    path = tmp_path / "units.csv"
    frame.to_csv(path, index=False)
    status, _out, err = _run(capsys, "audit", path, "--transpose")
    assert status == 1 and "drop --transpose" in err


def test_plain_arrays_as_scores():
    # cleanlab's users pass pred_probs (items × classes) as a NumPy array.
    from simulation import label_error_ranking

    probs = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    rank = label_error_ranking(probs, [0, 0, 1])
    assert next(iter(rank.items)) in (1, 2)
    with pytest.raises(ValueError, match="items × classes"):
        label_error_ranking(np.zeros(3), [0, 0, 1])


def _detect_files(tmp_path):
    # Ratings with one missing value (a float column), a per-item label column, and
    # model probabilities whose header names the classes as text "1", "2".
    rng = np.random.default_rng(3)
    n = 40
    truth = rng.integers(1, 3, n)
    wide = pd.DataFrame({f"a{j}": np.where(rng.random(n) < 0.85, truth, 3 - truth)
                         for j in range(3)})
    wide.insert(0, "id", range(n))
    wide["a1"] = wide["a1"].astype(float)
    wide.loc[5, "a1"] = np.nan
    wide["final"] = truth
    wide.to_csv(tmp_path / "ratings.csv", index=False)
    p = np.clip(rng.dirichlet([1, 1], n), 0.01, 0.99)
    p[np.arange(n), truth - 1] += 1.0
    p /= p.sum(axis=1, keepdims=True)
    pd.DataFrame({"id": range(n), "1": p[:, 0], "2": p[:, 1]}).to_csv(tmp_path / "m.csv",
                                                                      index=False)
    return tmp_path / "ratings.csv", tmp_path / "m.csv", wide


def test_labels_column_of_the_ratings_file(tmp_path, capsys):
    ratings, model, wide = _detect_files(tmp_path)
    status, out, err = _run(capsys, "detect", ratings, model, "--item", "id", "--labels",
                            "final", "--format", "json")
    assert status == 0, err
    import json

    report = json.loads(out)
    assert report["parameters"]["labels"] == "column 'final' of the ratings file"
    assert report["sections"]["scores"]["values"]["n_items"] == 40
    rows = report["sections"]["ranking"]["tables"]["ranking"]["rows"]
    by_item = {r["item"]: r["label"] for r in rows}
    assert all(by_item[i] == int(wide.loc[i, "final"]) for i in range(40))
    # the column is taken out of the annotators: three annotators, not four
    status, out, err = _run(capsys, "crosscheck", ratings, model, "--item", "id", "--labels",
                            "final")
    assert status == 0, err
    status, out, err = _run(capsys, "detect", ratings, model, "--item", "id", "--labels",
                            "nosuch")
    assert status == 1 and "--labels 'nosuch' is neither a column" in err


def test_detect_top_and_resamples_rules(tmp_path, capsys):
    ratings, model, _ = _detect_files(tmp_path)
    with pytest.raises(SystemExit) as exc:
        _run(capsys, "detect", ratings, model, "--item", "id", "--top", "-1")
    assert exc.value.code == 2 and "--top must be at least 1" in capsys.readouterr().err
    # one rule for resamples: 0 means no bootstrap, on every verb
    status, out, err = _run(capsys, "detect", ratings, model, "--item", "id",
                            "--resamples", "0")
    assert status == 0, err
    status, out, err = _run(capsys, "audit", ratings, "--item", "id", "--drop", "final",
                            "--bootstrap", "0", "--no-latent", "--format", "json")
    assert status == 0, err
    import json

    assert "bootstrap" not in json.loads(out)["sections"]
    with pytest.raises(SystemExit) as exc:
        _run(capsys, "detect", ratings, model, "--item", "id", "--resamples", "-5")
    assert exc.value.code == 2 and "--resamples must be at least 0" in capsys.readouterr().err


def test_float_categories_match_text_classes(tmp_path):
    # Issue 22, defect 10: categories 1.0, 2.0 (a column with a missing rating) against a
    # score file whose classes are "1", "2".
    from agreement import Ratings
    from simulation import ModelScores, crosscheck, label_error_ranking

    _, _, wide = _detect_files(tmp_path)
    r = Ratings.from_wide(wide.set_index("id")[["a0", "a1", "a2"]].astype(float))
    assert r.categories.dtype.kind == "f"
    p = pd.read_csv(tmp_path / "m.csv")
    scores = ModelScores.from_arrays(p[["1", "2"]].to_numpy(), kind="probs", items=r.items,
                                     classes=["1", "2"])
    labels = r.majority_labels()
    res = crosscheck(scores, labels, r)
    assert res.n_items == 40
    int_labels = labels.astype(int).astype(str)
    same = label_error_ranking(scores, int_labels)
    assert list(label_error_ranking(scores, labels).items) == list(same.items)
    with pytest.raises(ValueError, match="not among the classes"):
        label_error_ranking(scores, labels.replace({1.0: 3.0}))


def test_collapsed_fit_says_so_in_its_headline_and_hints_name_cli_options(capsys):
    from goldnoise import audit

    x = np.random.default_rng(0).integers(0, 3, (300, 4))  # random labels: spam collapses
    res = audit(x, rng=0)
    lines = res.sections["latent_class"].lines
    assert lines[0].startswith("THE FIT COLLAPSED") and res.sections["latent_class"].values[
        "collapsed"]
    notes = " ".join(res.sections["latent_class"].notes)
    assert "annotators='spam'" not in notes and "--model one-coin" in notes


def test_labels_only_share_stands_beside_the_bracket():
    from goldnoise import Ratings, audit, datasets

    frame = datasets.load_dawid_skene1979()
    r = Ratings.from_long(frame, item="patient", rater="observer", label="rating",
                          replicates="separate")
    res = audit(r, rng=0)
    line = res.sections["latent_class"].lines[2]
    b = res.bracket
    assert "labels-only estimate" in line and f"{100 * b.pessimistic:.2f}%" in line
    assert not res.sections["latent_class"].values["collapsed"]


def test_compile_notice_after_two_seconds_of_compiling():
    import io
    import time

    from numba.core import event

    from goldnoise._cli import MESSAGES, compile_notice

    slow = io.StringIO()
    with compile_notice(slow, after=0.05):
        with event.trigger_event("numba:compile", data={}):
            time.sleep(0.5)  # one compile outlasting the notice's delay
    # which of the two lines depends on whether kernels are cached already (first run or a
    # new kind of data: test_the_notice_says_first_run_or_a_new_kind_of_data)
    assert slow.getvalue().strip() in MESSAGES
    quick = io.StringIO()
    with compile_notice(quick, after=30.0):
        for _ in range(3):
            with event.trigger_event("numba:compile", data={}):
                pass
    assert quick.getvalue() == ""


def test_audit_computes_only_the_coefficients_asked_for(capsys):
    import json

    from agreement import agreement_table
    from goldnoise import audit, datasets

    table = agreement_table(datasets.load_krippendorff2011(), coefficients=["gwet_ac1"])
    assert table.index.tolist() == ["Gwet's AC1"]
    with pytest.raises(ValueError, match="must be one of"):
        agreement_table(datasets.load_krippendorff2011(), coefficients=["kappa"])
    res = audit(datasets.load_krippendorff2011(), coefficients=["fleiss_kappa"], latent=False)
    assert res.agreement.index.tolist() == ["Fleiss' kappa"]
    status, out, err = _run(capsys, "audit", "--example", "dawid_skene1979", "--coefficients",
                            "fleiss_kappa", "krippendorff_alpha", "--bootstrap", "50",
                            "--no-latent", "--json")
    assert status == 0, err
    report = json.loads(out)
    shown = [r["coefficient"] for r in
             report["sections"]["agreement"]["tables"]["coefficients"]["rows"]]
    assert shown == ["Fleiss' kappa", "Krippendorff's alpha (nominal)"]
    booted = [r["coefficient"] for r in
              report["sections"]["bootstrap"]["tables"]["intervals"]["rows"]]
    assert booted == shown
    with pytest.raises(SystemExit) as exit_:
        _run(capsys, "audit", "--example", "fleiss1971", "--coefficients", "k")
    assert exit_.value.code == 2 and "invalid choice: 'k'" in capsys.readouterr().err


# ------------------------------------------------ hints name the command's options
def _ds_long(tmp_path, *, replicate_column=True):
    from goldnoise.datasets import load_dawid_skene1979

    frame = load_dawid_skene1979()
    if not replicate_column:
        frame = frame.drop(columns="replicate")
    path = tmp_path / "ds_long.csv"
    frame.to_csv(path, index=False)
    return path


def _hinted_args(err):
    import shlex

    assert err.count("goldnoise: error:") == 1
    return shlex.split(err.split(": add ", 1)[1].strip())


@pytest.mark.parametrize("replicate_column", [True, False])
def test_long_file_hint_typed_verbatim_works(tmp_path, capsys, replicate_column):
    # Dawid & Skene (1979) as one row per rating: observer 1 rated every patient three
    # times, so the hint must say how to keep the replicates apart.
    path = _ds_long(tmp_path, replicate_column=replicate_column)
    status, out, err = _run(capsys, "audit", path, "--no-latent")
    assert status == 1 and "looks like one row per rating" in err
    hinted = _hinted_args(err)
    if replicate_column:
        assert hinted[hinted.index("--rater") + 1:][:2] == ["observer", "replicate"]
    else:
        assert "--replicates" in hinted and hinted[hinted.index("--replicates") + 1] == "separate"
    status, out, err = _run(capsys, "audit", path, *hinted, "--no-latent")
    assert status == 0, err
    assert "45 items, 7 annotators" in out


def test_repeated_ratings_error_names_the_replicates_option(tmp_path, capsys):
    path = _ds_long(tmp_path, replicate_column=False)
    status, _out, err = _run(capsys, "audit", path, "--layout", "long", "--item", "patient",
                            "--rater", "observer", "--label", "rating", "--no-latent")
    assert status == 1
    assert "--replicates separate" in err and "replicates=" not in err


def test_normalize_labels_option(tmp_path, capsys):
    path = tmp_path / "spaces.csv"
    pd.DataFrame({"a": ["yes", "no", "yes", "no"], "b": [" yes", "no", "yes", "no"],
                  "c": ["yes", "no", "no", "no"]}).to_csv(path, index=False)
    status, out, err = _run(capsys, "audit", path, "--no-latent")
    assert status == 0 and "3 categories" in out
    assert "Pass --normalize-labels" in out and "normalize_labels=" not in out
    status, out, err = _run(capsys, "audit", path, "--no-latent", "--normalize-labels")
    assert status == 0, err
    assert "2 categories" in out and "look alike" not in out


def test_npy_scores_take_ids_from_a_file(tmp_path, capsys):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, (40, 3))
    ratings = tmp_path / "r.csv"
    pd.DataFrame(labels, columns=["a", "b", "c"],
                 index=pd.Index(range(1, 41), name="item")).to_csv(ratings)
    np.save(tmp_path / "s.npy", rng.dirichlet([1, 1, 1], 40))
    status, _out, err = _run(capsys, "detect", ratings, tmp_path / "s.npy", "--item", "item")
    assert status == 1 and "pass --ids FILE" in err and "ids=" not in err
    (tmp_path / "ids.txt").write_text("\n".join(map(str, range(1, 41))) + "\n")
    status, _out, err = _run(capsys, "detect", ratings, tmp_path / "s.npy", "--item", "item",
                            "--ids", tmp_path / "ids.txt")
    assert status == 0, err
    (tmp_path / "empty.txt").write_text("\n")
    status, _out, err = _run(capsys, "detect", ratings, tmp_path / "s.npy", "--item", "item",
                            "--ids", tmp_path / "empty.txt")
    assert status == 1 and "needs one item id per line" in err


def _hint_cases(tmp_path):
    """One command per hint of the library that names a Python parameter: the command, the
    Python words, and the command line's words for them."""
    rng = np.random.default_rng(0)
    ratings = tmp_path / "r.csv"
    pd.DataFrame(rng.integers(0, 3, (40, 3)), columns=["a", "b", "c"],
                 index=pd.Index(range(1, 41), name="item")).to_csv(ratings)
    probs = rng.dirichlet([1, 1, 1], 40)
    np.save(tmp_path / "s.npy", probs)
    np.savez(tmp_path / "logits.npz", ids=np.arange(1, 41), probs=3 * probs)
    np.savez(tmp_path / "two.npz", ids=np.arange(1, 41), probs=probs, logits=np.log(probs))
    spaces = tmp_path / "spaces.csv"
    pd.DataFrame({"a": ["yes", "no", "yes", "no"], "b": [" yes", "no", "yes", "no"],
                  "c": ["yes", "no", "no", "no"]}).to_csv(spaces, index=False)
    random = tmp_path / "random.csv"  # random labels: MACE's fit collapses
    pd.DataFrame(rng.integers(0, 3, (300, 4)), columns=list("abcd"),
                 index=pd.Index(range(300), name="item")).to_csv(random)
    return [
        (["audit", _ds_long(tmp_path, replicate_column=False), "--layout", "long", "--item",
          "patient", "--rater", "observer", "--label", "rating", "--no-latent"],
         "`replicates='separate'`", "--replicates separate"),
        (["audit", spaces, "--no-latent"], "`normalize_labels=True`", "--normalize-labels"),
        (["detect", ratings, tmp_path / "logits.npz", "--item", "item"], "`kind='logits'`",
         "--kind logits"),
        (["detect", ratings, tmp_path / "two.npz", "--item", "item"], "(or pass `kind=`)",
         "(or pass --kind)"),
        (["detect", ratings, tmp_path / "s.npy", "--item", "item"], "pass `ids=`",
         "pass --ids FILE"),
        (["fit", random, "--item", "item"],
         "(e.g. annotators='spam' or 'one-coin') or a larger `prior_strength`",
         "(--model spam or one-coin)"),
    ]


def test_every_hint_of_the_library_reads_as_an_existing_option(tmp_path, capsys):
    # Each Python-parameter hint the library prints reaches the user in the command line's
    # words (an error or a note), and each option it names exists in that verb's parser.
    from goldnoise._cli import build_parser

    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for argv, python, cli in _hint_cases(tmp_path):
        _status, out, err = _run(capsys, *argv)
        said = " ".join((out + err).split())
        assert cli in said and python not in said, (argv[0], python, said[-400:])
        assert "`replicates=" not in said and "normalize_labels=" not in said
        options = {o for action in sub.choices[argv[0]]._actions for o in action.option_strings}
        for word in re.findall(r"--[a-z][a-z-]*", cli):
            assert word in options, (argv[0], word)


def test_long_layout_options_on_a_file_read_as_wide_name_the_layout(tmp_path, capsys):
    # `audit label.csv --item item --rater worker --label label` read the long file as wide
    # (audit's default), took worker and label for annotators and failed on repeated item
    # ids with the library's advice ("use `Ratings.from_long`"); --rater and --label were
    # ignored without a word
    path = _ds_long(tmp_path, replicate_column=False)
    status, out, err = _run(capsys, "audit", path, "--item", "patient", "--rater", "observer",
                            "--label", "rating", "--no-latent")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "--label and --rater belong to the long layout" in err
    assert err.rstrip().endswith("add --layout long")
    status, _, err = _run(capsys, "audit", path, "--layout", "counts", "--label", "rating")
    assert status == 2 and "--label belongs to the long layout" in err and "counts" in err
    # without them: the repeated ids are refused in the command's words
    status, _, err = _run(capsys, "audit", path, "--item", "patient", "--no-latent")
    assert status == 1 and err.count("\n") == 1
    assert "add --layout long (one row per rating)" in err and "Ratings.from_long" not in err
    # as the long layout, the same options read the file
    status, out, _ = _run(capsys, "audit", path, "--layout", "long", "--item", "patient",
                          "--rater", "observer", "--label", "rating", "--replicates",
                          "separate", "--no-latent")
    assert status == 0 and "Fleiss" in out
