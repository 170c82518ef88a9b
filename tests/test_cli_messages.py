"""Bad tabular inputs get one line naming the file, never a library's raw words.

A fuzz over the shapes a new user's files take (CSV, TSV, JSON lines, MTurk batch
results): each malformed variant must end in exactly one ``goldnoise: error:`` line, with
no traceback, that names the file (and no raw message such as "invalid literal for
int()", "Categorical categories cannot be null", "No columns to parse from file" or
"'utf-8' codec can't decode" without it).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

RAW = ("Traceback", "invalid literal for int()", "Categorical categories cannot be null",
       "No columns to parse from file", "codec can't decode", "unhashable type",
       "object is not iterable", "Unexpected character found")


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _check(status, err, path):
    assert status in (1, 2), err
    lines = [x for x in err.strip().splitlines() if x.strip()
             and not x.startswith("goldnoise: compiling")]
    assert len(lines) == 1, err
    assert lines[0].startswith("goldnoise: error: ")
    assert path.name in lines[0], lines[0]
    for raw in RAW:
        if raw in lines[0]:
            # a library's words may only appear after the file was named and explained
            assert lines[0].index(path.name) < lines[0].index(raw), lines[0]
            assert raw not in ("Traceback", "codec can't decode", "unhashable type"), lines[0]


# Bytes of malformed tables; each is written with each suffix that reads it.
TABLES = {
    "empty": b"",
    "blank_lines": b"\n\n\n",
    "header_only": b"item,a,b\n",
    "latin1": "item,a,b\n1,\xe9t\xe9,x\n2,x,x\n".encode("latin-1"),
    "latin1_late": ("item,a,b\n" + "".join(f"{k},x,y\n" for k in range(50))
                    + "51,caf\xe9,x\n").encode("latin-1"),
    "binary": b"\x00\x01\x02PK\x03\x04",
    "ragged": b"item,a,b\n1,x,y,z,w\n2,x\n",
    "one_column": b"item\n1\n2\n",
    "all_missing": b"item,a,b\n1,,\n2,,\n",
}

ARGS = {
    "wide": ["--item", "item"],
    "long": ["--layout", "long", "--item", "item", "--rater", "a", "--label", "b"],
    "counts": ["--layout", "counts", "--item", "item"],
    "contingency": ["--layout", "contingency"],
    "auto": [],
}


@pytest.mark.parametrize("name,suffix,layout", list(itertools.product(
    sorted(TABLES), [".csv", ".tsv"], sorted(ARGS))))
def test_malformed_tables(capsys, tmp_path, name, suffix, layout):
    data = TABLES[name]
    if suffix == ".tsv":
        data = data.replace(b",", b"\t")
    path = tmp_path / f"bad_{name}{suffix}"
    path.write_bytes(data)
    status, _out, err = _run(capsys, "audit", path, *ARGS[layout])
    if status == 0:  # some shapes are readable under some layouts; nothing to check then
        return
    _check(status, err, path)


JSONL = {
    "not_json": b"not json\n",
    "list_per_line": b'[1, 2, 3]\n[4, 5, 6]\n',
    "latin1": '{"item": 1, "a": "\xe9"}\n'.encode("latin-1"),
    "empty": b"",
    "half_record": b'{"item": 1, "a": "x", "b": "y"}\n{"item": 2, "a": \n',
}


@pytest.mark.parametrize("name", sorted(JSONL))
def test_malformed_json_lines(capsys, tmp_path, name):
    path = tmp_path / f"bad_{name}.jsonl"
    path.write_bytes(JSONL[name])
    status, _out, err = _run(capsys, "audit", path, "--item", "item")
    _check(status, err, path)


MTURK = {
    "empty": b"",
    "latin1": "WorkerId,HITId,Answer.x\nw1,h1,\xe9\nw2,h1,b\n".encode("latin-1"),
    "no_answer": b"WorkerId,HITId,Input.id\nw1,h1,1\n",
    "header_only": b"WorkerId,HITId,Answer.x\n",
    "no_worker": b"HITId,Answer.x\nh1,a\n",
}


@pytest.mark.parametrize("name", sorted(MTURK))
def test_malformed_mturk_batches(capsys, tmp_path, name):
    path = tmp_path / f"batch_{name}.csv"
    path.write_bytes(MTURK[name])
    status, _out, err = _run(capsys, "audit", "--from", "mturk", path)
    _check(status, err, path)


def test_mturk_item_and_label_the_same_column(capsys, tmp_path):
    """`--item Answer.x --label Answer.x` ended in "rated item ... more than once"."""
    path = tmp_path / "batch.csv"
    rows = "".join(f"w{k},h{k % 3},{'ab'[k % 2]}\n" for k in range(12))
    path.write_text("WorkerId,HITId,Answer.x\n" + rows)
    status, _out, err = _run(capsys, "audit", "--from", "mturk", path, "--item", "Answer.x",
                            "--label", "Answer.x")
    assert status == 2
    assert "--item and --label both name column 'Answer.x'" in err


def test_undecodable_byte_is_located(capsys, tmp_path):
    """A Latin-1 file said only "'utf-8' codec can't decode byte 0xe9 in position 2" (and,
    read by some readers, nothing about which file)."""
    path = tmp_path / "latin.csv"
    path.write_bytes(TABLES["latin1_late"])
    status, _out, err = _run(capsys, "audit", path, "--item", "item")
    assert status == 1
    assert "latin.csv is not UTF-8 text (byte 0xe9 on line 52, column 7)" in err


@pytest.mark.parametrize("seed", range(6))
def test_random_byte_damage(capsys, tmp_path, seed):
    """Random damage to a good file: either it still reads, or one line naming the file."""
    g = np.random.default_rng(seed)
    good = bytearray(b"item,a,b,c\n" + b"".join(
        f"{k},{'xyz'[k % 3]},{'xy'[k % 2]},x\n".encode() for k in range(30)))
    for _ in range(4):
        good[int(g.integers(len(good)))] = int(g.integers(256))
    path = tmp_path / f"damaged{seed}.csv"
    path.write_bytes(bytes(good))
    status, _out, err = _run(capsys, "audit", path, "--item", "item")
    if status != 0:
        _check(status, err, path)


def test_a_design_cell_that_is_not_a_number(capsys, tmp_path):
    """`certify --design` with a stratum size 'abc' said only "invalid literal for int() with
    base 10: 'abc'"."""
    import pandas as pd

    g = np.random.default_rng(0)
    ratings = tmp_path / "r.csv"
    pd.DataFrame(g.integers(0, 2, (40, 3)), columns=list("abc")).to_csv(ratings,
                                                                       index_label="item")
    verified = tmp_path / "checked.csv"
    pd.DataFrame({"item": range(3), "label": [0, 1, 0]}).to_csv(verified, index=False)
    design = tmp_path / "design.csv"
    pd.DataFrame({"item": range(3), "stratum": "random", "inclusion_probability": 0.5,
                  "stratum_size": ["abc", 40, 40], "stratum_sample": 3}).to_csv(design,
                                                                                index=False)
    status, _out, err = _run(capsys, "certify", ratings, "--item", "item", "--verified",
                            verified, "--design", design)
    _check(status, err, design)
    assert "row 2: column 'stratum_size' holds 'abc', not a number" in err


def test_a_message_without_a_file_gets_the_input_named(tmp_path, capsys, monkeypatch):
    """The net under the readers: a library message that reaches the top without naming a
    file is prefixed with the input file(s); one that names it is left alone."""
    import goldnoise
    import simulation

    path = tmp_path / "ratings.csv"
    path.write_text("a,b\n0,0\n1,1\n1,0\n")

    def raising(message):
        def fake(*args, **kwargs):
            raise ValueError(message)
        return fake

    def error(verb_args):
        status, _out, err = _run(capsys, *verb_args)
        assert status == 1, err
        return err.strip().removeprefix("goldnoise: error: ")

    audit = ["audit", path, "--no-latent"]
    monkeypatch.setattr(goldnoise, "audit", raising("invalid literal for int() with base 10: "
                                                    "'abc'"))
    assert error(audit) == f"{path}: invalid literal for int() with base 10: 'abc'"
    monkeypatch.setattr(goldnoise, "audit", raising(f"{path} is empty"))
    assert error(audit) == f"{path} is empty"
    # a message about another file (one that does not exist) is not given this one's name
    monkeypatch.setattr(goldnoise, "audit", raising("no such file: other.csv"))
    assert error(audit) == "no such file: other.csv"
    # a verb that reads no file: the message as it is
    monkeypatch.setattr(simulation, "gamma_coverage", raising("nothing to read"))
    assert error(["simulate", "coverage", "100", "--sims", "10"]) == "nothing to read"


def test_a_row_with_more_fields_than_the_header_names_the_line_and_the_fix(capsys, tmp_path):
    # pandas says "Expected 3 fields in line 4, saw 4": the line is kept, with what to do.
    path = tmp_path / "labels.csv"
    path.write_text('item,rater,label\n1,a,x\n1,b,"p, q"\n2,a,p, q\n')
    status, _out, err = _run(capsys, "audit", path, "--layout", "long", "--item", "item",
                             "--rater", "rater", "--label", "label")
    assert status == 1
    assert err.strip() == (
        f"goldnoise: error: could not read {path}: line 4 has 4 fields where the header has "
        '3: quote a value that holds the separator ("a, b") or remove the stray separator on '
        "that line (or pass --sep if the file uses another separator)")


def _audit_error(capsys, path, *args) -> str:
    """The one line `goldnoise audit PATH ARGS` ends with (exit 1, nothing on stdout)."""
    status, out, err = _run(capsys, "audit", path, *args)
    assert status == 1 and out == "" and err.count("\n") == 1, err
    return err.strip()


@pytest.mark.parametrize("first", ["1,x,y,z", "1,x,y,z,w"])
@pytest.mark.parametrize("layout", ["auto", "wide", "long"])
def test_a_first_data_line_longer_than_the_header_is_refused(capsys, tmp_path, first, layout):
    # pandas took the extra leading fields as row names (its implicit index) and shifted
    # every value one column name along: 'item' read as an annotator labelling x, the audit
    # ran on it without a word. With one extra field the row names 1, 2 even became a
    # range index, indistinguishable afterwards from no row names at all.
    path = tmp_path / "labels.csv"
    path.write_text(f"item,a,b\n{first}\n2,x,y\n3,y,y\n")
    assert _audit_error(capsys, path, *ARGS[layout]) == (
        f"goldnoise: error: could not read {path}: its first data line has more fields than "
        'the 3 of the header: quote a value that holds the separator ("a, b"), remove the '
        "stray separator, or name every column in the header (row names too; or pass --sep "
        "if the file uses another separator)")


def test_row_names_with_a_header_of_their_own_are_read(capsys, tmp_path):
    # R's write.csv writes the row names' column with an empty header ("") of its own:
    # every line has as many fields as the header, and the file reads (the row names are
    # the items: pandas calls the column 'Unnamed: 0').
    path = tmp_path / "labels.csv"
    path.write_text('"","a","b"\n"1","x","y"\n"2","x","x"\n"3","y","y"\n')
    status, out, err = _run(capsys, "audit", path, "--item", "Unnamed: 0")
    assert status == 0, err
    assert "3 items, 2 annotators, 2 categories, 6 ratings" in out


@pytest.mark.parametrize("layout", ["wide", "counts"])
def test_an_item_column_that_repeats_ids_is_named_with_the_fix(capsys, tmp_path, layout):
    # The reader's words were "`items` (the DataFrame index) has duplicated item ids".
    path = tmp_path / "labels.csv"
    path.write_text("item,a,b,c\n" + "".join(f"{i},1,2,0\n" for i in (1, 2, 5, 5, 7)))
    assert _audit_error(capsys, path, "--item", "item", "--layout", layout) == (
        f"goldnoise: error: {path}: column 'item' (--item) repeats item ids, e.g. '5' (1 "
        f"repeated row(s)): each item takes one row in the {layout} layout; merge its rows, or "
        "add --layout long (one row per rating)")


@pytest.mark.parametrize(("text", "args", "said"), [
    # the library's words were "`frame` has missing item or annotator ids"
    ("item,rater,label\n1,a,x\n1,b,x\n,a,y\n2,b,x\n", ["--layout", "long", "--item", "item",
     "--rater", "rater", "--label", "label"], "1 row(s) have no 'item' (--item column), the "
     "first is data row 3"),
    ("item,rater,label\n1,a,x\n1,,x\n2,a,y\n2,b,x\n", ["--layout", "long", "--item", "item",
     "--rater", "rater", "--label", "label"], "1 row(s) have no 'rater' (--rater column), "
     "the first is data row 2"),
    # two rater columns: Python's "sequence item 1: expected str instance, float found"
    ("item,r1,r2,label\n1,a,x,x\n1,b,,x\n2,a,y,y\n2,b,x,x\n", ["--layout", "long", "--item",
     "item", "--rater", "r1", "r2", "--label", "label"], "1 row(s) have no 'r2' (--rater "
     "column), the first is data row 2"),
    # wide: "`items` (the DataFrame index) has 1 missing item id(s), the first at row 1"
    ("item,a,b\n1,x,x\n,y,y\n2,x,y\n", ["--item", "item"], "1 row(s) have no 'item' (--item "
     "column), the first is data row 2"),
])
def test_rows_without_an_item_or_annotator_id_are_named(capsys, tmp_path, text, args, said):
    path = tmp_path / "labels.csv"
    path.write_text(text)
    assert _audit_error(capsys, path, *args) == (
        f"goldnoise: error: {path}: {said} (after the header): fill them in or drop those rows")


def test_rank_reads_a_table_of_battles_without_item_or_rater(capsys, tmp_path):
    # `a, b, winner` (an arena's battles) was refused for lacking 'item' and 'rater'
    path = tmp_path / "votes.csv"
    path.write_text("a,b,winner\nm1,m2,m1\nm2,m3,m3\nm1,m3,m1\nm1,m2,m2\nm2,m3,m2\n")
    status, out, err = _run(capsys, "rank", path, "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    notes = report["sections"]["ranking"]["notes"]
    assert notes[:2] == [
        "no 'item' column: each vote is read as a comparison of its own (name the prompt's "
        "column with --item)",
        "no 'rater' column: every vote is read as one rater's (name the column with --rater)"]
    # the same votes with their own ids and one rater give the same ranking
    path2 = tmp_path / "votes2.csv"
    path2.write_text("item,rater,a,b,winner\n" + "".join(
        f"{i},rater,{line}\n" for i, line in enumerate(path.read_text().splitlines()[1:], 1)))
    status, out2, _ = _run(capsys, "rank", path2, "--format", "json")
    assert status == 0
    a = report["sections"]["ranking"]["tables"]["systems"]["rows"]
    b = json.loads(out2)["sections"]["ranking"]["tables"]["systems"]["rows"]
    assert a == b
    # a column named but absent is still the reader's error
    status, _, err = _run(capsys, "rank", path, "--item", "prompt")
    assert status == 1 and "lack 'item' (column 'prompt')" in err
    # preferences needs the raters: still refused, in one line
    status, _, err = _run(capsys, "preferences", path)
    assert status == 1 and err.count("\n") == 1


def test_fit_on_scores_says_they_are_fitted_as_unordered_categories(capsys, tmp_path):
    # scores 0-100 went into the latent-class model as 40 nominal categories without a word
    # (audit said it; fit did not)
    g = np.random.default_rng(0)
    path = tmp_path / "scores.csv"
    rows = ["item,worker,score"] + [f"{i},w{j},{g.integers(0, 12) * 9}"
                                    for i in range(30) for j in range(4)]
    path.write_text("\n".join(rows) + "\n")
    status, out, _ = _run(capsys, "fit", path, "--layout", "long", "--item", "item",
                          "--rater", "worker", "--label", "score")
    assert status == 0
    assert "numeric categories, each fitted as a category of its own, unordered" in out
    path.write_text("item,a,b\n1,x,y\n2,x,x\n3,y,y\n")  # names: no such note
    status, out, _ = _run(capsys, "fit", path, "--item", "item")
    assert status == 0 and "numeric categories" not in out
