"""Model scores from files: every format aligned by id, every bad file a named error."""

from __future__ import annotations

import gzip
import json
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_softmax, softmax

from simulation import ModelScores, ScorePrecisionWarning, ensemble, item_loss, load_scores

N, M = 40, 4
CLASSES = ["ant", "bee", "cat", "dog"]


@pytest.fixture(scope="module")
def truth():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(N, M)) * 2
    return {
        "items": np.array([f"item{i:03d}" for i in range(N)]),
        "logits": logits,
        "probs": softmax(logits, axis=1),
        "loss": rng.gamma(2.0, size=N),
        "perm": rng.permutation(N),
    }


def _write(path, fmt, ids, values, kind, *, model=None, classes=CLASSES):
    """Write ``values`` with ``ids`` (already shuffled) in one of the formats."""
    if fmt == "npz":
        arrays = {"ids": np.asarray(ids), kind: values}
        if model is not None:
            arrays["model"] = np.asarray(model)
        if kind != "loss":
            arrays["classes"] = np.asarray(classes)
        np.savez(path, **arrays)
    elif fmt == "npy":
        np.save(path, values)
    elif fmt in ("csv", "tsv", "csv.gz", "tsv.gz", "parquet"):
        frame = pd.DataFrame({"id": ids})
        if model is not None:
            frame["model"] = model
        if kind == "loss":
            frame["loss"] = values
        else:
            for j, c in enumerate(classes):
                frame[c] = values[:, j]
        if fmt == "parquet":
            frame.to_parquet(path)
        else:
            frame.to_csv(path, sep="\t" if fmt.startswith("tsv") else ",", index=False,
                         float_format="%.17g")
    elif fmt in ("jsonl", "jsonl.gz"):
        opener = gzip.open if fmt.endswith(".gz") else open
        with opener(path, "wt") as fh:
            for t, (i, v) in enumerate(zip(ids, values, strict=True)):
                rec = {"id": str(i), kind: v.tolist() if kind != "loss" else float(v)}
                if model is not None:
                    rec["model"] = model[t]
                fh.write(json.dumps(rec) + "\n")
    else:  # pragma: no cover
        raise AssertionError(fmt)


FORMATS = ["npz", "npy", "csv", "tsv", "csv.gz", "tsv.gz", "parquet", "jsonl", "jsonl.gz"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["probs", "logits", "loss"])
def test_every_format_shuffled_loads_aligned(tmp_path, truth, fmt, kind):
    perm = truth["perm"]
    values = truth[kind]
    path = tmp_path / f"modelA.{fmt}"
    _write(path, fmt, truth["items"][perm], values[perm], kind)
    kw = {"ids": truth["items"][perm]} if fmt == "npy" else {}
    classes = CLASSES if fmt in ("npy", "jsonl", "jsonl.gz") and kind != "loss" else None
    s = load_scores(path, items=truth["items"], kind=kind, classes=classes, **kw)
    assert s.kind == kind
    assert s.model_names == ("modelA",)
    assert list(s.items) == list(truth["items"])
    np.testing.assert_array_equal(s.values[0], values)  # exact: float64 round trip
    if kind != "loss":
        assert list(s.classes) == CLASSES


@pytest.mark.parametrize("fmt", ["npz", "csv", "parquet", "jsonl"])
def test_one_file_with_a_model_column(tmp_path, truth, fmt):
    rng = np.random.default_rng(1)
    other = softmax(rng.normal(size=(N, M)), axis=1)
    ids = np.concatenate([truth["items"], truth["items"]])
    values = np.vstack([truth["probs"], other])
    model = np.array(["bert"] * N + ["roberta"] * N)
    shuffle = rng.permutation(2 * N)
    path = tmp_path / f"all.{fmt}"
    _write(path, fmt, ids[shuffle], values[shuffle], "probs", model=model[shuffle])
    s = load_scores(path, items=truth["items"][::-1], model_column="model",
                    classes=CLASSES if fmt == "jsonl" else None)
    assert sorted(s.model_names) == ["bert", "roberta"]
    np.testing.assert_array_equal(s.select("bert").values[0], truth["probs"][::-1])
    np.testing.assert_array_equal(s.select("roberta").values[0], other[::-1])


def test_one_file_per_model_and_named_paths(tmp_path, truth):
    a, b = tmp_path / "a.csv", tmp_path / "b.parquet"
    _write(a, "csv", truth["items"], truth["probs"], "probs")
    _write(b, "parquet", truth["items"][truth["perm"]], truth["probs"][truth["perm"]], "probs")
    s = load_scores([a, b], items=truth["items"])
    assert s.model_names == ("a", "b")
    np.testing.assert_array_equal(s.values[0], s.values[1])
    s2 = load_scores({"first": a, "second": b}, items=truth["items"])
    assert s2.model_names == ("first", "second")
    assert s.values.shape == (2, N, M)


def test_integer_ids_from_text_files(tmp_path, truth):
    ids = np.arange(N) * 7
    path = tmp_path / "int.csv"
    _write(path, "csv", ids[truth["perm"]], truth["probs"][truth["perm"]], "probs")
    s = load_scores(path, items=ids)
    np.testing.assert_array_equal(s.values[0], truth["probs"])


def test_classes_select_and_order_columns(tmp_path, truth):
    path = tmp_path / "c.csv"
    _write(path, "csv", truth["items"], truth["probs"], "probs")
    s = load_scores(path, items=truth["items"], classes=CLASSES[::-1])
    np.testing.assert_array_equal(s.values[0], truth["probs"][:, ::-1])
    assert list(s.classes) == CLASSES[::-1]


# ------------------------------------------------------------------ bad files
def _csv(tmp_path, ids, values, name="bad.csv"):
    path = tmp_path / name
    _write(path, "csv", ids, values, "probs")
    return path


def test_missing_ids_named(tmp_path, truth):
    path = _csv(tmp_path, truth["items"][:-3], truth["probs"][:-3])
    with pytest.raises(ValueError, match=r"lacks 3 of the items: 'item037', 'item038', 'item039'"):
        load_scores(path, items=truth["items"])


def test_extra_ids_named(tmp_path, truth):
    ids = np.append(truth["items"], ["ghost1", "ghost2"])
    values = np.vstack([truth["probs"], truth["probs"][:2]])
    path = _csv(tmp_path, ids, values)
    with pytest.raises(ValueError, match=r"2 ids that are not among `items`: 'ghost1', 'ghost2'"):
        load_scores(path, items=truth["items"])


def test_duplicated_ids_named(tmp_path, truth):
    # distributed inference pads the last batch by repeating rows
    ids = np.append(truth["items"], truth["items"][:7])
    values = np.vstack([truth["probs"], truth["probs"][:7]])
    path = _csv(tmp_path, ids, values)
    with pytest.raises(ValueError, match=r"repeats the ids 'item000', 'item001', 'item002', "
                                         r"'item003', 'item004' and 2 more"):
        load_scores(path, items=truth["items"])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_named(tmp_path, truth, bad):
    values = truth["probs"].copy()
    values[5, 1] = bad
    path = _csv(tmp_path, truth["items"], values)
    with pytest.raises(ValueError, match=r"NaN or infinite scores at ids 'item005'"):
        load_scores(path, items=truth["items"])


def test_probabilities_not_summing_to_one(tmp_path, truth):
    values = truth["probs"].copy()
    values[[3, 9]] *= 1.01
    path = _csv(tmp_path, truth["items"], values)
    with pytest.raises(ValueError, match=r"not summing to 1 \(tolerance 0.001.*'item003', "
                                         r"'item009'"):
        load_scores(path, items=truth["items"])
    # within the stated tolerance they load
    ok = truth["probs"].copy()
    ok[3] *= 1 + 5e-4
    load_scores(_csv(tmp_path, truth["items"], ok, "ok.csv"), items=truth["items"])


def test_logits_loaded_as_probs_are_refused(tmp_path, truth):
    path = tmp_path / "z.csv"
    _write(path, "csv", truth["items"], truth["logits"], "probs")
    with pytest.raises(ValueError, match=r"outside \[0, 1\].*kind='logits'"):
        load_scores(path, items=truth["items"])


def test_rows_of_the_wrong_width_jsonl(tmp_path, truth):
    path = tmp_path / "w.jsonl"
    with open(path, "w") as fh:
        for i, (item, p) in enumerate(zip(truth["items"], truth["probs"], strict=True)):
            row = p.tolist() if i not in (4, 11) else p.tolist()[:3]
            fh.write(json.dumps({"id": item, "probs": row}) + "\n")
    with pytest.raises(ValueError, match=r"wrong width \(most have 4 probs\) at ids "
                                         r"'item004', 'item011'"):
        load_scores(path, items=truth["items"])


def test_files_of_different_widths(tmp_path, truth):
    a = tmp_path / "a.npz"
    b = tmp_path / "b.npz"
    np.savez(a, ids=truth["items"], probs=truth["probs"])
    np.savez(b, ids=truth["items"], probs=softmax(truth["logits"][:, :3], axis=1))
    with pytest.raises(ValueError, match="wrong width or other classes"):
        load_scores([a, b], items=truth["items"])


def test_object_array_in_npy_refused(tmp_path, truth):
    path = tmp_path / "obj.npy"
    np.save(path, np.array([{"p": 1}] * 3, dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="never unpickles"):
        load_scores(path, items=[0, 1, 2], ids=[0, 1, 2])


def test_object_array_in_npz_refused(tmp_path, truth):
    path = tmp_path / "obj.npz"
    np.savez(path, ids=np.array(list(truth["items"]), dtype=object), probs=truth["probs"])
    with pytest.raises(ValueError, match=r"array 'ids' is an object array .*never unpickles"):
        load_scores(path, items=truth["items"])


def test_pickle_disguised_as_npy_refused(tmp_path):
    path = tmp_path / "evil.npy"
    path.write_bytes(pickle.dumps(np.eye(2)))
    with pytest.raises(ValueError, match="holds pickled data; goldnoise never unpickles"):
        load_scores(path, items=[0, 1], ids=[0, 1])


def test_float16_accepted_with_a_warning(tmp_path, truth):
    path = tmp_path / "half.npz"
    np.savez(path, ids=truth["items"], probs=truth["probs"].astype(np.float16))
    with pytest.warns(ScorePrecisionWarning, match="float16"):
        s = load_scores(path, items=truth["items"])
    assert s.values.dtype == np.float64
    np.testing.assert_allclose(s.values[0], truth["probs"], atol=1e-3)


def test_npy_needs_ids(tmp_path, truth):
    path = tmp_path / "p.npy"
    np.save(path, truth["probs"])
    with pytest.raises(ValueError, match=r"holds no item ids: pass `ids=`"):
        load_scores(path, items=truth["items"])


def test_npz_needs_ids(tmp_path, truth):
    path = tmp_path / "p.npz"
    np.savez(path, probs=truth["probs"])
    with pytest.raises(ValueError, match="has no `ids` array"):
        load_scores(path, items=truth["items"])


def test_tabular_needs_id_column(tmp_path, truth):
    path = tmp_path / "p.csv"
    pd.DataFrame(truth["probs"], columns=CLASSES).to_csv(path, index=False)
    with pytest.raises(ValueError, match="has no id column 'id'"):
        load_scores(path, items=truth["items"])


def test_option_errors(tmp_path, truth):
    path = _csv(tmp_path, truth["items"], truth["probs"])
    with pytest.raises(ValueError, match="`kind` must be one of"):
        load_scores(path, items=truth["items"], kind="prob")
    with pytest.raises(ValueError, match="unknown format"):
        (tmp_path / "x.xlsx").write_text("")
        load_scores(tmp_path / "x.xlsx", items=truth["items"])
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_scores(tmp_path / "nope.csv", items=truth["items"])
    with pytest.raises(ValueError, match="`items` repeats the ids 'a'"):
        load_scores(path, items=["a", "a", "b"])
    with pytest.raises(TypeError, match="`paths` must be"):
        load_scores(3, items=truth["items"])
    with pytest.raises(ValueError, match=r"`ids=` is for \.npy files only"):
        load_scores(path, items=truth["items"], ids=truth["items"])


# ------------------------------------------------------------ ensemble, loss
def test_ensemble_of_probabilities_and_logits():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(3, 50, 5)) * 3
    logits = ModelScores.from_arrays(z, kind="logits")
    probs = ModelScores.from_arrays(softmax(z, axis=2), kind="probs")
    np.testing.assert_allclose(ensemble(logits, "probs").values[0],
                               softmax(z, axis=2).mean(axis=0), atol=1e-15)
    np.testing.assert_allclose(ensemble(probs).values[0], softmax(z, axis=2).mean(axis=0))
    want = softmax(z.mean(axis=0), axis=1)
    np.testing.assert_allclose(ensemble(logits, "logits").probabilities()[0], want, atol=1e-14)
    # the mean of log-probabilities gives the same ensemble as the mean of logits
    np.testing.assert_allclose(ensemble(probs, "logits").probabilities()[0], want, atol=1e-12)
    with pytest.raises(ValueError, match="`how` must be one of"):
        ensemble(probs, how="mean")
    with pytest.raises(ValueError, match="per-item losses"):
        ensemble(ModelScores.from_arrays(np.ones((2, 3)), kind="loss"))


def test_item_loss_is_cross_entropy():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(2, 30, 3)) * 50  # large logits: needs a stable log-softmax
    labels = rng.integers(0, 3, 30)
    s = ModelScores.from_arrays(z, kind="logits")
    want = -log_softmax(z, axis=2)[:, np.arange(30), labels]
    np.testing.assert_allclose(item_loss(s, labels), want, rtol=1e-12, atol=1e-12)
    p = ModelScores.from_arrays(softmax(z[:, :, :], axis=2), kind="probs")
    finite = np.isfinite(np.log(p.values[:, np.arange(30), labels]))
    np.testing.assert_allclose(item_loss(p, labels)[finite], want[finite], rtol=1e-8)


def test_item_loss_aligns_a_series_by_id():
    s = ModelScores.from_arrays([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], kind="probs",
                                items=["a", "b", "c"], classes=["x", "y"])
    shuffled = pd.Series(["y", "x", "x"], index=["c", "a", "b"])
    np.testing.assert_allclose(item_loss(s, shuffled)[0],
                               -np.log([0.9, 0.2, 0.4]))
    with pytest.raises(ValueError, match=r"lacks 1 of the scored items: 'c'"):
        item_loss(s, shuffled.iloc[1:])
    with pytest.raises(ValueError, match=r"not among the classes .*'z'"):
        item_loss(s, ["x", "z", "x"])
    with pytest.raises(ValueError, match="has 2 entries for 3 scored items"):
        item_loss(s, ["x", "y"])


def test_from_arrays_validation():
    with pytest.raises(ValueError, match="not summing to 1"):
        ModelScores.from_arrays([[0.5, 0.6]], kind="probs")
    with pytest.raises(ValueError, match="NaN or infinite"):
        ModelScores.from_arrays([[np.nan, 0.0]], kind="logits")
    with pytest.raises(ValueError, match="must have 1 or 2 dimensions"):
        ModelScores.from_arrays(np.ones((2, 2, 2)), kind="loss")
    s = ModelScores.from_arrays(np.ones((2, 3)), kind="loss", model_names=["a", "b"])
    assert s.to_frame().shape == (6, 1)
    assert "2 models" in repr(s)
    with pytest.raises(ValueError, match="not one of"):
        s.select("c")


def test_float16_parquet_warns_and_a_single_class_column_is_refused(tmp_path, truth):
    frame = pd.DataFrame(truth["probs"].astype(np.float16), columns=CLASSES)
    frame.insert(0, "id", truth["items"])
    frame.to_parquet(tmp_path / "half.parquet")
    with pytest.warns(ScorePrecisionWarning, match="float16"):
        load_scores(tmp_path / "half.parquet", items=truth["items"])
    one = pd.DataFrame({"id": truth["items"], "ant": np.ones(N)})
    one.to_parquet(tmp_path / "one.parquet")
    with pytest.raises(ValueError, match="one column per class"):
        load_scores(tmp_path / "one.parquet", items=truth["items"])


def test_integer_ids_far_apart_take_the_hashed_path(tmp_path, truth):
    ids = np.arange(N) * 10**12  # too sparse for a lookup table
    frame = pd.DataFrame(truth["probs"][::-1], columns=CLASSES)
    frame.insert(0, "id", ids[::-1])
    frame.to_parquet(tmp_path / "sparse.parquet")
    s = load_scores(tmp_path / "sparse.parquet", items=ids)
    np.testing.assert_array_equal(s.values[0], truth["probs"])
    frame.iloc[:-1].to_parquet(tmp_path / "short.parquet")
    with pytest.raises(ValueError, match="lacks 1 of the items: 0"):
        load_scores(tmp_path / "short.parquet", items=ids)


@pytest.mark.parametrize("name", ["m.csv", "m.tsv", "m.jsonl"])
def test_a_score_file_that_is_not_utf8_is_refused_naming_the_file(tmp_path, name):
    sep = "\t" if name.endswith(".tsv") else ","
    text = ('{"id": "a", "probs": [0.9, 0.1]}\n{"id": "Peña", "probs": [0.1, 0.9]}\n'
            if name.endswith(".jsonl")
            else f"id{sep}pos{sep}neg\na{sep}0.9{sep}0.1\nPeña{sep}0.1{sep}0.9\n")
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(ValueError) as info:
        load_scores(path, items=["a", "Peña"])
    message = str(info.value)
    assert message.startswith(f"{path}, line ") and "not UTF-8 text (byte 0xf1)" in message
    assert "\n" not in message
    assert "codec can't decode" not in message


def test_parquet_in_many_row_groups_mixed_column_types(tmp_path, truth):
    # Arrow hands each column over in chunks (one per row group); the loader copies them
    # chunk by chunk: the rows must come out whole and in item order, integer and float32
    # columns as float64, and a null named as a missing score
    import pyarrow as pa
    import pyarrow.parquet as pq

    perm = truth["perm"]
    values = np.round(truth["probs"][perm], 3)
    values[:, 0] = 1 - values[:, 1:].sum(axis=1)
    table = pa.table({"id": truth["items"][perm],
                      "ant": pa.array(values[:, 0]),
                      "bee": pa.array(values[:, 1].astype(np.float32)),
                      "cat": pa.array(values[:, 2]), "dog": pa.array(values[:, 3])})
    pq.write_table(table, tmp_path / "groups.parquet", row_group_size=7)
    assert pq.ParquetFile(tmp_path / "groups.parquet").num_row_groups == 6
    s = load_scores(tmp_path / "groups.parquet", items=truth["items"])
    expected = np.empty_like(values)
    expected[perm] = values
    expected[:, 1] = expected[:, 1].astype(np.float32)
    np.testing.assert_array_equal(s.values[0], expected)
    counts = pa.table({"id": truth["items"][perm], "ant": pa.array([1] * N),
                       "bee": pa.array([0] * (N - 1) + [None])})
    pq.write_table(counts, tmp_path / "null.parquet", row_group_size=7)
    last = truth["items"][perm][-1]
    with pytest.raises(ValueError, match=f"NaN or infinite scores at ids '{last}'"):
        load_scores(tmp_path / "null.parquet", items=truth["items"])
