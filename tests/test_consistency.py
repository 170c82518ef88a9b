"""Label consistency across subsets (SPEC §7; Zeng et al. 2021): F1 by hand, the paired
bootstrap against the engine's own resamples, the verdict, score files by (document, token)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from _goldnoise_lib.resampling import weights as _resample
from agreement.spans import Spans, read_conll
from noise_models import noise_bound
from simulation import load_scores, subset_consistency
from simulation.scores import ModelScores

COLUMNS = ["document", "start", "end", "label", "annotator"]
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _spans(rows):
    return Spans(pd.DataFrame(rows, columns=COLUMNS))


def _probe(tmp_path, n_sentences=6):
    """A CoNLL probe set: each sentence 'x John Smith in Paris' -> PER [1,3), LOC [4,5)."""
    lines = []
    for _ in range(n_sentences):
        lines += ["x O", "John B-PER", "Smith I-PER", "in O", "Paris B-LOC", ""]
    path = tmp_path / "probe.conll"
    path.write_text("\n".join(lines))
    return read_conll(path, annotators=["gold"])


def _scores_file(path, gold, tags_by_condition):
    """One CSV with a condition column: one-hot probabilities of the given tags."""
    rows = []
    for condition, tags in tags_by_condition.items():
        for (doc, tok), tag in zip(((d, t) for d in gold.documents
                                    for t in range(gold.lengths[d])), tags, strict=True):
            rows.append({"document": doc, "token": tok, "condition": condition,
                         **{c: float(c == tag) for c in TAGS}})
    pd.DataFrame(rows).sample(frac=1.0, random_state=0).to_csv(path, index=False)


def test_f1_per_condition_by_hand_from_a_score_file(tmp_path):
    gold = _probe(tmp_path)
    right = ["O", "B-PER", "I-PER", "O", "B-LOC"] * 6
    # "short": in sentences 1-3 the PER span loses its last token (1 FP + 1 FN each);
    # "noisy": sentence 1 misses LOC (1 FN), sentence 2 adds an O->I-LOC span (1 FP,
    # an I- after O read as B-), sentence 3 calls PER a LOC (1 FP + 1 FN)
    short = list(right)
    for s in range(3):
        short[5 * s + 2] = "O"
    noisy = list(right)
    noisy[4] = "O"
    noisy[5 + 3] = "I-LOC"
    noisy[10 + 1], noisy[10 + 2] = "B-LOC", "I-LOC"
    path = tmp_path / "pred.csv"
    _scores_file(path, gold, {"PureTrain": right, "short": short, "noisy": noisy})
    res = subset_consistency(path, gold, conditions=["PureTrain", "short", "noisy"],
                             model_column="condition", n_resamples=200, rng=0)
    f1 = res.f1
    assert f1.loc["PureTrain", ["tp", "fp", "fn"]].tolist() == [12, 0, 0]
    assert f1.loc["short", ["tp", "fp", "fn"]].tolist() == [9, 3, 3]
    assert f1.loc["noisy", ["tp", "fp", "fn"]].tolist() == [10, 2, 2]
    assert f1.loc["short", "f1"] == pytest.approx(18 / 24)
    assert f1.loc["noisy", "f1"] == pytest.approx(20 / 24)
    assert f1.loc["noisy", "precision"] == pytest.approx(10 / 12)
    assert list(f1.index) == ["PureTrain", "noisy", "short"]  # highest F1 first
    assert any("1 predicted I- tag" in n for n in res.notes)
    d = res.differences.set_index(["first", "second"])
    assert d.loc[("PureTrain", "short"), "difference"] == pytest.approx(0.25)
    assert d.loc[("noisy", "short"), "difference"] == pytest.approx(2 / 24)
    # renaming conditions with a mapping gives the same numbers under the new names
    renamed = subset_consistency(path, gold, conditions={"A": "PureTrain", "B": "short"},
                                 model_column="condition", n_resamples=50, rng=0)
    assert renamed.f1.loc["B", "f1"] == pytest.approx(18 / 24)


def test_the_paired_interval_is_the_engine_resamples_computed_directly():
    # per-span outputs; documents drawn by the engine's multinomial counts, one draw
    # for both conditions: recompute the difference's replicates from those counts
    g = np.random.default_rng(3)
    gold_rows, pred_rows = [], []
    for i in range(30):
        n = int(g.integers(1, 5))
        for k in range(n):
            gold_rows.append((f"d{i}", 10 * k, 10 * k + 3, "PER", "gold"))
            if g.random() < 0.9:
                pred_rows.append((f"d{i}", 10 * k, 10 * k + 3, "PER", "A"))
            if g.random() < 0.7:
                pred_rows.append((f"d{i}", 10 * k, 10 * k + 3, "PER", "B"))
            elif g.random() < 0.5:
                pred_rows.append((f"d{i}", 10 * k, 10 * k + 2, "PER", "B"))
    gold, pred = _spans(gold_rows), _spans(pred_rows)
    res = subset_consistency(pred, gold, conditions=["A", "B"], n_resamples=500, rng=7)

    docs = gold.documents
    def counts(who):
        rows = []
        for d in docs:
            gs = set(map(tuple, gold.of("gold", d)[["start", "end"]].to_numpy().tolist()))
            ps = set(map(tuple, pred.of(who, d)[["start", "end"]].to_numpy().tolist()))
            rows.append([len(gs & ps), len(ps - gs), len(gs - ps)])
        return np.array(rows, dtype=float)

    rows_a, rows_b = counts("A"), counts("B")
    seeds = _resample.replicate_seeds(7, 500)
    c = _resample.multinomial_counts(np.ones(len(docs), dtype=np.int64), seeds)
    def f1(rows):
        tp, fp, fn = (c @ rows).T
        return 2 * tp / (2 * tp + fp + fn)
    diff = f1(rows_a) - f1(rows_b)
    low, high = np.quantile(diff, [0.025, 0.975])
    row = res.differences.iloc[0]
    assert (row["first"], row["second"]) == ("A", "B")
    assert row["low"] == pytest.approx(low, abs=1e-12)
    assert row["high"] == pytest.approx(high, abs=1e-12)
    ta, tb = rows_a.sum(axis=0), rows_b.sum(axis=0)
    assert row["difference"] == pytest.approx(2 * ta[0] / (2 * ta[0] + ta[1] + ta[2])
                                              - 2 * tb[0] / (2 * tb[0] + tb[1] + tb[2]))
    np.testing.assert_allclose(res.bootstrap.bootstrap_distribution[:, 0], f1(rows_a))
    # each condition's own interval comes from the same replicates
    assert res.f1.loc["B", "low"] == pytest.approx(np.quantile(f1(rows_b), 0.025))
    assert res.least_consistent == "B" and bool(row["separated"])
    assert "B predicts the probe set worse" in res.verdict


def test_no_condition_stands_out_when_the_predictions_agree():
    gold = _spans([(f"d{i}", 0, 3, "PER", "gold") for i in range(20)])
    # A misses d0, B misses d1: equal F1, the difference's interval holds 0
    pred = _spans([(f"d{i}", 0, 3, "PER", "A") for i in range(20) if i != 0]
                  + [(f"d{i}", 0, 3, "PER", "B") for i in range(20) if i != 1])
    res = subset_consistency(pred, gold, conditions=["A", "B"], n_resamples=300, rng=1)
    assert res.least_consistent is None
    assert res.verdict.startswith("no condition stands out")
    assert res.differences.loc[0, "difference"] == 0.0
    assert not res.differences.loc[0, "separated"]
    assert set(res.to_dict()) >= {"f1", "differences", "verdict", "least_consistent"}
    assert "F1" in res.summary() and "SubsetConsistencyResult" in repr(res)


def test_bad_input(tmp_path):
    gold = _spans([("d1", 0, 3, "PER", "gold"), ("d2", 0, 3, "PER", "gold")])
    pred = _spans([("d1", 0, 3, "PER", "A"), ("d2", 0, 3, "PER", "B")])
    with pytest.raises(TypeError, match="`gold` must be Spans"):
        subset_consistency(pred, gold.frame, conditions=["A", "B"])
    two = _spans([("d1", 0, 3, "PER", "gold"), ("d2", 0, 3, "PER", "other")])
    with pytest.raises(ValueError, match="one annotation of the probe set"):
        subset_consistency(pred, two, conditions=["A", "B"])
    with pytest.raises(ValueError, match="at least two documents"):
        subset_consistency(pred, _spans([("d1", 0, 3, "PER", "gold")]), conditions=["A", "B"])
    with pytest.raises(ValueError, match="at least two conditions"):
        subset_consistency(pred, gold, conditions=["A"])
    with pytest.raises(ValueError, match=r"names \['C'\], not among"):
        subset_consistency(pred, gold, conditions=["A", "C"])
    with pytest.raises(TypeError, match="`conditions` must be"):
        subset_consistency(pred, gold, conditions="AB")
    with pytest.raises(ValueError, match="`method`"):
        subset_consistency(pred, gold, conditions=["A", "B"], method="bc")
    with pytest.raises(TypeError, match="`predictions` must be"):
        subset_consistency(42, gold, conditions=["A", "B"])
    outside = _spans([("d1", 0, 3, "PER", "A"), ("d9", 0, 3, "PER", "B")])
    with pytest.raises(ValueError, match="not in the gold probe set"):
        subset_consistency(outside, gold, conditions=["A", "B"])
    # per-token scores: losses, char offsets, tokens not covered
    tok_gold = _probe(tmp_path, 2)
    items = [(d, t) for d in tok_gold.documents for t in range(5)]
    loss = ModelScores.from_arrays(np.ones((2, 10)), kind="loss", items=items,
                                   model_names=["A", "B"])
    with pytest.raises(ValueError, match="losses"):
        subset_consistency(loss, tok_gold, conditions=["A", "B"])
    probs = ModelScores.from_arrays(np.full((2, 9, 2), 0.5), kind="probs", items=items[:9],
                                    model_names=["A", "B"], classes=["O", "B-PER"])
    with pytest.raises(ValueError, match="not the gold tokens"):
        subset_consistency(probs, tok_gold, conditions=["A", "B"])
    with pytest.raises(ValueError, match="token offsets"):
        subset_consistency(probs, gold, conditions=["A", "B"])


def test_score_files_by_document_and_token(tmp_path):
    items = [("s1", 0), ("s1", 1), ("s2", 0)]
    path = tmp_path / "p.jsonl"
    with path.open("w") as fh:
        for (doc, tok), p in zip([("s2", 0), ("s1", 1), ("s1", 0)],
                                 [[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]], strict=True):
            fh.write(json.dumps({"document": doc, "token": tok, "probs": p}) + "\n")
    s = load_scores(path, items=items, id_column=("document", "token"))
    np.testing.assert_array_equal(s.values[0], [[0.2, 0.8], [0.9, 0.1], [0.5, 0.5]])
    assert list(s.items) == items
    table = tmp_path / "p.csv"
    pd.DataFrame({"document": ["s1", "s2", "s1"], "token": [1, 0, 0], "O": [0.9, 0.5, 0.2],
                  "B-PER": [0.1, 0.5, 0.8]}).to_csv(table, index=False)
    np.testing.assert_array_equal(
        load_scores(table, items=items, id_column=("document", "token")).values, s.values)
    with pytest.raises(ValueError, match=r"not among `items`: \"\('s2', '0'\)\""):
        load_scores(table, items=items[:2], id_column=("document", "token"))
    with pytest.raises(ValueError, match="tuple of 2 parts"):
        load_scores(table, items=["s1", "s2"], id_column=("document", "token"))
    with pytest.raises(TypeError, match="`id_column` must be a string or a tuple"):
        load_scores(table, items=items, id_column=("document", 3))
    np.savez(tmp_path / "p.npz", ids=np.arange(3), probs=np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match=r"tables .* and JSON lines only"):
        load_scores(tmp_path / "p.npz", items=items, id_column=("document", "token"))


def test_command_line_consistency(tmp_path, capsys):
    from goldnoise._cli import main

    gold = _probe(tmp_path, 8)
    right = ["O", "B-PER", "I-PER", "O", "B-LOC"] * 8
    worse = list(right)
    for s in range(8):
        worse[5 * s + 4] = "O"  # every LOC missed
    renumber = {d: i + 1 for i, d in enumerate(gold.documents)}  # documents 1.. in the file
    items = [(renumber[d], t) for d in gold.documents for t in range(5)]
    for name, tags in (("PureTrain", right), ("TestTrain", worse)):
        pd.DataFrame([{"document": d, "token": t, **{c: float(c == tag) for c in TAGS}}
                      for (d, t), tag in zip(items, tags, strict=True)]).to_csv(
            tmp_path / f"{name}.csv", index=False)
    files = [str(tmp_path / "PureTrain.csv"), str(tmp_path / "TestTrain.csv")]
    gold_file = str(tmp_path / "probe.conll")
    assert main(["consistency", *files, "--gold", gold_file, "--resamples", "200",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sec = report["sections"]["consistency"]
    rows = {r["condition"]: r for r in sec["tables"]["conditions"]["rows"]}
    assert rows["PureTrain"]["f1"] == 1.0
    assert rows["TestTrain"]["f1"] == pytest.approx(16 / 24)  # tp 8, fn 8
    assert sec["values"]["least_consistent"] == "TestTrain"
    # CoNLL files of predicted tags, named by --conditions
    for name, tags in (("a", right), ("b", worse)):
        lines = []
        for s in range(8):
            lines += [f"w {t}" for t in tags[5 * s:5 * s + 5]] + [""]
        (tmp_path / f"{name}.conll").write_text("\n".join(lines))
    assert main(["consistency", str(tmp_path / "a.conll"), str(tmp_path / "b.conll"),
                 "--predictions", "conll", "--gold", gold_file, "--conditions", "Pure",
                 "Test", "--resamples", "100"]) == 0
    text = capsys.readouterr().out
    assert "Test predicts the probe set worse than every other condition" in text
    # broken inputs: one line on stderr, never a traceback
    (tmp_path / "short.csv").write_text((tmp_path / "TestTrain.csv").read_text()
                                        .rsplit("\n", 2)[0] + "\n")
    assert main(["consistency", files[0], str(tmp_path / "short.csv"), "--gold",
                 gold_file]) == 1
    err = capsys.readouterr().err
    assert "lacks 1 of the items" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    (tmp_path / "ragged.conll").write_text("Ada B-PER\nLovelace I-PER x\n")
    assert main(["consistency", *files, "--gold", str(tmp_path / "ragged.conll")]) == 1
    assert "ragged.conll, line 2" in capsys.readouterr().err
    assert main(["consistency", *files, "--gold", str(tmp_path / "none.conll")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["consistency", *files, "--gold", gold_file, "--conditions", "A"]) == 2
    assert "--conditions names 1 condition(s) for 2 file(s)" in capsys.readouterr().err
    assert main(["consistency", *files, "--gold", gold_file, "--out", files[0]]) == 2
    assert "would be overwritten" in capsys.readouterr().err


def test_command_line_spans_reports_gamma_and_the_spans_most_likely_wrong(tmp_path, capsys):
    from goldnoise._cli import main

    lines = []
    for s in range(12):
        c_tag = "B-ORG" if s == 0 else "B-PER"
        lines += [f"Ada B-PER B-PER {c_tag}", "runs O O O", ""]
    (tmp_path / "t.conll").write_text("\n".join(lines))
    assert main(["spans", str(tmp_path / "t.conll"), "--from", "conll", "--annotators", "a",
                 "b", "c", "--format", "json"]) == 0
    noise = json.loads(capsys.readouterr().out)["sections"]["noise"]
    # 12 candidates, 11 agreed; the one disagreed candidate is 2 PER against 1 ORG
    assert (noise["values"]["n_candidates"], noise["values"]["n_agreed"]) == (12, 11)
    assert noise["values"]["gamma"] == pytest.approx(
        noise_bound(12, 1, noise["values"]["p"]).gamma)
    top = noise["tables"]["likely_wrong"]["rows"][0]
    assert (top["annotator"], top["label"], top["fitted"]) == ("c", "ORG", "PER")


def test_command_line_reads_a_conll_2003_gold_file_of_four_columns(tmp_path, capsys):
    """Zeng et al.'s probe files are CoNLL-2003's: token, POS, chunk, NER."""
    from goldnoise._cli import main

    lines = []
    for _ in range(8):
        lines += ["x NN B-NP O", "John NNP I-NP B-PER", "Smith NNP I-NP I-PER", "in IN B-PP O",
                  "Paris NNP B-NP B-LOC", ""]
    (tmp_path / "probe.txt").write_text("\n".join(lines))
    right = ["O", "B-PER", "I-PER", "O", "B-LOC"] * 8
    worse = [("O" if i % 5 == 4 else t) for i, t in enumerate(right)]
    for name, tags in (("PureTrain", right), ("TestTrain", worse)):
        pd.DataFrame([{"document": 1 + i // 5, "token": i % 5,
                       **{c: float(c == tag) for c in TAGS}} for i, tag in enumerate(tags)]
                     ).to_csv(tmp_path / f"{name}.csv", index=False)
    files = [str(tmp_path / "PureTrain.csv"), str(tmp_path / "TestTrain.csv")]
    assert main(["consistency", *files, "--gold", str(tmp_path / "probe.txt"), "--resamples",
                 "100", "--format", "json"]) == 0
    rows = {r["condition"]: r for r in json.loads(capsys.readouterr().out)["sections"][
        "consistency"]["tables"]["conditions"]["rows"]}
    assert rows["PureTrain"]["f1"] == 1.0 and rows["TestTrain"]["f1"] == pytest.approx(16 / 24)
    # the chunk column is not the gold, but --tag-column can name it
    assert main(["consistency", *files, "--gold", str(tmp_path / "probe.txt"), "--tag-column",
                 "2", "--resamples", "100", "--format", "json"]) == 0
    rows = {r["condition"]: r for r in json.loads(capsys.readouterr().out)["sections"][
        "consistency"]["tables"]["conditions"]["rows"]}
    assert rows["PureTrain"]["f1"] == 0.0


def test_the_verdict_says_what_it_can_attribute_to_labels_and_reports_the_control():
    gold = _spans([(f"d{i}", 0, 3, "PER", "gold") for i in range(40)])
    rows = [(f"d{i}", 0, 3, "PER", "PureTrain") for i in range(40)]
    rows += [(f"d{i}", 0, 3, "PER", "TestTrain") for i in range(20, 40)]        # misses 20
    rows += [(f"d{i}", 0, 3, "PER", "TestTrainCorrect") for i in range(15, 40)]  # misses 15
    rows += [(f"d{i}", 0, 3, "PER", "TestTrainNear") for i in range(19, 40)]     # misses 19
    pred = _spans(rows)
    # without a control: the lower F1 is shown, and the verdict says it cannot be split
    res = subset_consistency(pred, gold, conditions=["PureTrain", "TestTrain"],
                             n_resamples=400, rng=0)
    assert res.least_consistent == "TestTrain"
    assert "without a control" in res.verdict and "cannot be told apart" in res.verdict
    assert "less consistent with the rest" not in res.verdict
    assert res.controls.empty
    # with a control: F1 40/60 -> 50/65 with the subset's labels corrected, against 1.0
    res = subset_consistency(pred, gold, conditions=["PureTrain", "TestTrain",
                                                     "TestTrainCorrect"],
                             controls={"TestTrain": "TestTrainCorrect"}, n_resamples=400, rng=0)
    row = res.controls.set_index("condition").loc["TestTrain"]
    assert row["reference"] == "PureTrain" and row["control"] == "TestTrainCorrect"
    assert row["gap"] == pytest.approx(1 - 40 / 60)
    assert row["labels"] == pytest.approx(50 / 65 - 40 / 60)
    assert row["not_labels"] == pytest.approx(1 - 50 / 65)
    assert row["labels_share"] == pytest.approx((50 / 65 - 40 / 60) / (1 - 40 / 60))
    assert row["low"] > 0
    assert res.least_consistent == "TestTrain"
    assert "labels account for +0.1026 (31% of the gap)" in res.verdict
    assert "+0.2308 remains with the labels corrected, so it is not labels" in res.verdict
    assert "TestTrainCorrect" not in set(res.differences["first"]) | set(
        res.differences["second"])
    # a control that changes almost nothing: nothing attributable to labels
    near = subset_consistency(pred, gold, conditions=["PureTrain", "TestTrain",
                                                      "TestTrainNear"],
                              controls={"TestTrain": "TestTrainNear"}, n_resamples=400, rng=0)
    assert "none of the gap can be attributed to labels" in near.verdict
    assert near.to_dict()["controls"][0]["control"] == "TestTrainNear"
    with pytest.raises(ValueError, match=r"`controls` names \['X'\], not among"):
        subset_consistency(pred, gold, conditions=["PureTrain", "TestTrain"],
                           controls={"TestTrain": "X"})


def test_command_line_reports_the_control(tmp_path, capsys):
    from goldnoise._cli import main

    gold = _probe(tmp_path, 20)
    right = ["O", "B-PER", "I-PER", "O", "B-LOC"] * 20
    worse = [("O" if i % 5 == 4 and i // 5 < 10 else t) for i, t in enumerate(right)]
    fixed = [("O" if i % 5 == 4 and i // 5 < 4 else t) for i, t in enumerate(right)]
    files = []
    for name, tags in (("PureTrain", right), ("TestTrain", worse), ("TestTrainCorrect", fixed)):
        pd.DataFrame([{"document": 1 + i // 5, "token": i % 5,
                       **{c: float(c == tag) for c in TAGS}} for i, tag in enumerate(tags)]
                     ).to_csv(tmp_path / f"{name}.csv", index=False)
        files.append(str(tmp_path / f"{name}.csv"))
    gold_file = str(tmp_path / "probe.conll")
    assert gold.lengths and main(["consistency", *files, "--gold", gold_file, "--control",
                                  "TestTrain=TestTrainCorrect", "--resamples", "300",
                                  "--format", "json"]) == 0
    sec = json.loads(capsys.readouterr().out)["sections"]["consistency"]
    row = sec["tables"]["controls"]["rows"][0]
    # F1: 1.0, 30/40 (10 LOC missed of 40 spans), 36/40 (4 missed)
    assert row["gap"] == pytest.approx(1 - 60 / 70)
    assert row["labels"] == pytest.approx(72 / 76 - 60 / 70)
    assert "labels account for" in sec["values"]["verdict"]
    assert main(["consistency", *files, "--gold", gold_file, "--control", "TestTrain"]) == 2
    assert "--control takes CONDITION=CONTROL" in capsys.readouterr().err
    assert main(["consistency", *files, "--gold", gold_file, "--control", "TestTrain=Nope"]) == 1
    err = capsys.readouterr().err
    assert "`controls` names ['Nope']" in err or "--control names ['Nope']" in err
