"""Label consistency across subsets of an annotated corpus (Zeng et al. 2021; SPEC §7).

Models trained under different conditions — on training data only, or with a suspect
subset (e.g. the test set) added first or last — predict the same probe set drawn
from the training data. If the suspect subset was labelled as consistently as the
rest, every condition predicts the probe as well; a condition that scores lower says
the labels it adds disagree with the rest. Here each condition's span F1 on the
probe comes with a paired bootstrap interval of every difference between conditions
(documents resampled jointly, the same resamples for every condition) and a verdict.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from _goldnoise_lib.resampling import BootstrapResult, bootstrap_sums
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from agreement.spans import Spans, decode_tags
from simulation.scores import ModelScores, load_scores

__all__ = ["SubsetConsistencyResult", "subset_consistency"]

METHODS = ("percentile", "basic", "bca")
SCHEMES = ("BIO", "BIOES", "IO")


def _f1(sums: np.ndarray) -> np.ndarray:
    """Span F1 ``2 TP / (2 TP + FP + FN)`` of each condition from summed (…, 3C) counts."""
    tp, fp, fn = sums[..., 0::3], sums[..., 1::3], sums[..., 2::3]
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), np.nan)


def _counts(gold: Counter, pred: Counter) -> tuple[int, int, int]:
    """(TP, FP, FN) of exact span matching (start, end and label), multiplicities counted."""
    tp = sum((gold & pred).values())
    return tp, sum(pred.values()) - tp, sum(gold.values()) - tp


def _gold_iv(gold: Any) -> Spans:
    if not isinstance(gold, Spans):
        raise TypeError(f"`gold` must be Spans (e.g. read_conll of the probe set); got "
                        f"{type(gold).__name__}.")
    if len(gold.annotators) != 1:
        raise ValueError(f"`gold` must hold one annotation of the probe set; it has "
                         f"{len(gold.annotators)} annotators {gold.annotators[:5]}.")
    if len(gold.documents) < 2:
        raise ValueError("the probe set needs at least two documents: documents are what the "
                         "bootstrap resamples.")
    return gold


def _conditions_iv(conditions: Any, available: Sequence[str]) -> dict[str, str]:
    """{condition name: model name (or prediction annotator)}."""
    if isinstance(conditions, Mapping):
        named = {str(k): v for k, v in conditions.items()}
    elif isinstance(conditions, (str, bytes)) or not isinstance(conditions, Sequence):
        raise TypeError(f"`conditions` must be a list of condition names or a {{name: model}} "
                        f"mapping; got {conditions!r}.")
    else:
        named = {str(c): c for c in conditions}
        if len(named) != len(conditions):
            raise ValueError(f"`conditions` names a condition twice: {list(conditions)}.")
    if len(named) < 2:
        raise ValueError(f"`conditions` must name at least two conditions to compare; got "
                         f"{list(named)}.")
    avail = {str(a): a for a in available}
    missing = [str(v) for v in named.values() if str(v) not in avail]
    if missing:
        raise ValueError(f"`conditions` names {missing}, not among the predictions' models "
                         f"{list(avail)[:10]}.")
    return {k: avail[str(v)] for k, v in named.items()}


def _token_items(gold: Spans) -> list[tuple[Any, int]]:
    if gold.unit != "token":
        raise ValueError("per-token predictions need token offsets in `gold` (read_conll "
                         f"gives them); these spans have {gold.unit} offsets.")
    missing = [d for d in gold.documents if d not in gold.lengths]
    if missing:
        raise ValueError(f"the length of {len(missing)} gold document(s) is unknown "
                         f"({', '.join(map(str, missing[:3]))}): build Spans with `lengths=`.")
    return [(d, t) for d in gold.documents for t in range(gold.lengths[d])]


def _spans_from_scores(scores: ModelScores, gold: Spans, model: Any, scheme: str
                       ) -> tuple[dict[Any, Counter], int]:
    """Each document's predicted spans (argmax tag per token, decoded) and repairs made."""
    if scores.kind == "loss":
        raise ValueError("per-token predictions must be probabilities or logits (one column "
                         "per tag); these scores are losses.")
    items = _token_items(gold)
    have = pd.Index(list(scores.items), tupleize_cols=False)
    want = pd.Index(items, tupleize_cols=False)
    pos = have.get_indexer(want)
    if (pos < 0).any() or len(have) != len(want):
        lacking = [items[i] for i in np.flatnonzero(pos < 0)[:3]]
        raise ValueError(f"the predictions' items are not the gold tokens (document, token): "
                         f"{int((pos < 0).sum())} gold tokens lack a prediction, e.g. {lacking}, "
                         f"and {len(have)} items were predicted for {len(want)} tokens; load "
                         "them with items=(document, token) of the gold.")
    m = scores.model_names.index(model)
    tags = np.asarray(scores.classes, dtype=object)[scores.values[m][pos].argmax(axis=1)]
    out: dict[Any, Counter] = {}
    repaired = 0
    at = 0
    for d in gold.documents:
        n = gold.lengths[d]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GoldnoiseWarning)
            spans = decode_tags([str(t) for t in tags[at:at + n]], scheme=scheme,
                                where=f"predictions of {model!r}, document {d!r}")
        repaired += sum(issubclass(w.category, GoldnoiseWarning) for w in caught)
        out[d] = Counter(spans)
        at += n
    return out, repaired


def _spans_from_spans(pred: Spans, gold: Spans, model: Any) -> dict[Any, Counter]:
    if pred.unit != gold.unit:
        raise ValueError(f"the predicted spans have {pred.unit} offsets and the gold "
                         f"{gold.unit} offsets.")
    mine = pred.frame[pred.frame["annotator"] == model]
    extra = sorted(set(mine["document"]) - set(gold.documents), key=str)
    if extra:
        raise ValueError(f"the predictions of {model!r} mark spans in documents that are not "
                         f"in the gold probe set: {extra[:3]}.")
    out = {d: Counter() for d in gold.documents}
    for d, s, e, lab in mine[["document", "start", "end", "label"]].itertuples(index=False,
                                                                              name=None):
        out[d][(int(s), int(e), lab)] += 1
    return out


@dataclass(frozen=True, eq=False, repr=False)
class SubsetConsistencyResult(Result):
    """Span F1 of models trained under several conditions on one probe set, compared.

    Attributes
    ----------
    f1 : pandas.DataFrame
        Indexed by condition: ``tp``, ``fp``, ``fn``, ``precision``, ``recall``,
        ``f1`` and its bootstrap interval ``low``, ``high``; highest F1 first.
    differences : pandas.DataFrame
        One row per pair of conditions (``first``, ``second``; the first the higher
        F1): ``difference`` (first − second), ``low``, ``high`` (paired bootstrap) and
        ``separated`` (the interval excludes 0).
    least_consistent : str or None
        The condition whose F1 is below every other condition's with every
        difference's interval above 0; None when no condition is. A lower F1 is
        what the comparison shows; how much of it is the labels only a control says.
    verdict : str
        What the comparison shows, what it can attribute to the subset's labels and
        what it cannot; with ``controls``, each control's split of the gap.
    controls : pandas.DataFrame
        One row per ``controls`` pair: ``condition``, ``control`` (the same training
        with the subset's labels corrected), ``reference`` (the best other
        condition), ``gap`` (reference − condition), ``labels`` (control −
        condition: the part the correction removes) with its paired interval
        ``low``, ``high``, ``not_labels`` (reference − control: what remains with
        corrected labels — input shift, feeding order, amount of data) and
        ``labels_share`` (labels / gap; NaN unless the gap is above 0). Empty
        without controls.
    bootstrap : BootstrapResult
        The replicates of every condition's F1 (same resamples of documents);
        ``bootstrap.difference(a, b)`` gives any difference again.
    n_documents : int
    confidence_level : float
    method : str
    notes : tuple of str

    ``to_frame()``: the :attr:`f1` table.
    """
    _records = ("f1", "differences", "controls")
    _table = "f1"

    f1: pd.DataFrame = field(repr=False)
    differences: pd.DataFrame = field(repr=False)
    least_consistent: str | None
    verdict: str
    bootstrap: BootstrapResult = field(repr=False)
    n_documents: int
    confidence_level: float
    method: str
    notes: tuple[str, ...] = ()
    controls: pd.DataFrame = field(repr=False, default=None)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        return d if self.controls is not None else {**d, "controls": []}

    _summary = ("Span F1 on the probe set ({n_documents} documents; {confidence_level:g%} "
                "{method} intervals, documents resampled)",
                ("f1", "  {name}: F1 {f1:.4f} [{low:.4f}, {high:.4f}]"),
                ("differences",
                 "  {first} - {second}: {difference:+.4f} [{low:+.4f}, {high:+.4f}]"),
                ("controls", "  control {control} of {condition}: labels {labels:+.4f} "
                 "[{low:+.4f}, {high:+.4f}] of the gap {gap:+.4f} to {reference}"),
                "{verdict}")

    def __repr__(self) -> str:
        best = ", ".join(f"{c}: {v:.4f}" for c, v in self.f1["f1"].items())
        return (f"SubsetConsistencyResult(F1 {{{best}}}; least consistent: "
                f"{self.least_consistent})")


@validate_params(scheme=Option(SCHEMES), n_resamples=Resamples(1),
                 confidence_level=ConfidenceLevel(), method=Option(METHODS), rng=Rng())
def subset_consistency(predictions: Any, gold: Spans, *, conditions: Any, scheme: str = "BIO",
                       id_column: Any = ("document", "token"), model_column: str | None = None,
                       controls: Mapping[str, str] | None = None,
                       n_resamples: int = 2000, confidence_level: float = 0.95,
                       method: str = "percentile", rng: Any = None
                       ) -> SubsetConsistencyResult:
    """Whether the labels of one subset are less consistent with the rest (Zeng et al. 2021).

    Parameters
    ----------
    predictions : path(s), ModelScores or Spans
        What models trained under each condition predicted on the probe set:
        score files (one per condition, or one with ``model_column``; read by
        :func:`simulation.load_scores`, aligned to the gold tokens by ``(document,
        token)`` id, one column per tag); their :class:`ModelScores` (items the
        gold's ``(document, token)`` tuples); or per-span outputs as
        :class:`Spans` whose annotators are the conditions.
    gold : Spans
        The probe set's labels (one annotator). Per-token predictions need token
        offsets and the documents' lengths (:func:`agreement.spans.read_conll`).
    conditions : list of str or dict
        The conditions to compare (two or more): model names of the scores (file
        stems, model column values) or annotators of the predicted spans; a dict
        ``{condition: model}`` renames them.
    scheme : {"BIO", "BIOES", "IO"}, default "BIO"
        How the predicted tags decode into spans (an ``I-`` that continues nothing
        is read as ``B-``, as CoNLL's evaluation does; counted in ``notes``).
    id_column : str or tuple of str, default ("document", "token")
        The id columns of the score files.
    model_column : str, optional
        The column naming each row's condition, for one file holding several.
    controls : dict, optional
        ``{condition: control}``: a control is the same training as its condition
        with the suspect subset's labels corrected (Zeng et al.'s "TestTrainCorrect"
        for "TestTrainMistake"). Both are among ``conditions``; controls are left out
        of the search for the least consistent condition. Only a control separates
        the part of a gap that is labels (control − condition) from what the subset
        changes besides its labels (reference − control): see ``controls`` of the
        result.
    n_resamples : int, default 2000
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "bca"}, default "percentile"
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SubsetConsistencyResult

    Raises
    ------
    TypeError, ValueError
        For gold that is not one annotation of two or more documents, conditions
        not among the predictions, predictions that do not cover the gold tokens,
        losses instead of per-tag scores, or an invalid option.

    Notes
    -----
    Zeng et al. (2021) sample a probe set from the training data and train the
    same model on training sets that differ in one subset: "PureTrain" (training
    data only), "TrainTest" and "TestTrain" (a training subset with the suspect
    test set fed last or first). "If the labeling processes on two parts of
    annotated data were consistent, they are likely to be equivalently predictive
    of each other" (§2.1): a condition that predicts the probe worse says the
    subset it adds is labelled less consistently. They read learning curves by eye;
    here each condition's span F1 (exact start, end and label; micro-averaged,
    ``2 TP / (2 TP + FP + FN)``) gets a bootstrap interval, and every difference
    between two conditions a *paired* interval: documents are drawn with
    replacement by the bootstrap engine's multinomial counts, the same draw for
    every condition, and each replicate's F1 is recomputed from the drawn
    documents' summed TP, FP and FN (BCa's jackknife leaves one document out). The
    verdict names the condition with the lowest F1 when its difference to every
    other condition has an interval above 0; otherwise no condition stands out.
    To follow a learning curve, call this once per training stage.

    What the comparison can attribute to labels: the conditions differ in what the
    subset adds — its labels, but also its texts (a shift of inputs away from the
    probe), when it is fed and how much data there is. A lower F1 says the subset
    as a whole predicts the probe worse; it says the subset's *labels* are less
    consistent only to the extent a control shows it. With a control trained on the
    same subset with corrected labels, control − condition is the part the
    correction removes (labels; paired interval) and reference − control the part
    that remains (not labels). The verdict states both.

    References
    ----------
    Zeng, Q., Yu, M., Yu, W., Jiang, T., & Jiang, M. (2021). Validating label
    consistency in NER data annotation. Proceedings of the 2nd Workshop on
    Evaluation and Comparison of NLP Systems (Eval4NLP, EMNLP 2021), 11–15.
    arXiv:2101.08698.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans
    >>> from simulation import subset_consistency
    >>> rows = [(f"s{i}", 0, 2, "PER", "gold") for i in range(40)]
    >>> gold = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
    ...                                          "annotator"]))
    >>> pred = [(f"s{i}", 0, 2, "PER", "PureTrain") for i in range(40)]
    >>> pred += [(f"s{i}", 0, 2 if i % 3 else 1, "PER", "TestTrain") for i in range(40)]
    >>> pred = Spans(pd.DataFrame(pred, columns=gold.frame.columns))
    >>> res = subset_consistency(pred, gold, conditions=["PureTrain", "TestTrain"], rng=0)
    >>> res.f1["f1"].round(4).to_dict()
    {'PureTrain': 1.0, 'TestTrain': 0.65}
    >>> res.least_consistent
    'TestTrain'
    """
    check_params(subset_consistency, locals())
    gold = _gold_iv(gold)
    notes: list[str] = []
    control_of = _controls_iv(controls, conditions)
    if isinstance(predictions, (str, os.PathLike, list, tuple, Mapping)):
        predictions = load_scores(predictions, items=_token_items(gold), id_column=id_column,
                                  model_column=model_column)
    named, per_condition = _per_condition(predictions, conditions, gold, scheme, notes)
    docs = gold.documents
    gold_spans = _gold_spans(gold)
    names = list(named)
    # per-document sufficient statistics: (TP, FP, FN) of each condition side by side
    rows = np.array([[v for c in names for v in _counts(gold_spans[d], per_condition[c][d])]
                     for d in docs], dtype=np.float64)
    n = len(docs)
    total = rows.sum(axis=0)
    boot = bootstrap_sums(rows, _f1, names=names, n_resamples=n_resamples, rng=rng,
                          method=method, confidence_level=confidence_level,
                          bounds=np.tile([0.0, 1.0], (len(names), 1)),
                          degenerate="F1 undefined: no span drawn", notes=notes, n_items=n,
                          stacklevel=2)
    notes = list(boot.notes)
    f1 = _f1_table(total.reshape(len(names), 3), names, boot)
    is_control = set(control_of.values())
    order = [c for c in f1.index if c not in is_control]
    if len(order) < 2:
        raise ValueError(f"`conditions` must name at least two conditions besides the "
                         f"controls {sorted(is_control)}; got {order}.")
    differences = _differences(order, boot)
    worst = order[-1]
    against = differences[differences["second"] == worst]
    pct = f"{100 * confidence_level:g}%"
    control_table = _control_table(control_of, order, f1, boot)
    least, verdict = _verdict(against, worst, control_of, control_table, pct)
    return SubsetConsistencyResult(f1, differences, least, verdict, boot, n,
                                   float(confidence_level), method, tuple(notes),
                                   control_table)


def _per_condition(predictions: Any, conditions: Any, gold: Spans, scheme: str,
                   notes: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each condition's model (or annotator) and its predicted spans by document, from
    scores (decoded with ``scheme``; repaired I- tags noted) or from spans."""
    if isinstance(predictions, ModelScores):
        named = _conditions_iv(conditions, predictions.model_names)
        per_condition = {}
        for c, model in named.items():
            per_condition[c], repaired = _spans_from_scores(predictions, gold, model, scheme)
            if repaired:
                notes.append(f"{c}: {repaired} predicted I- tag(s) continued no span and were "
                             "read as B- (as CoNLL's evaluation does)")
    elif isinstance(predictions, Spans):
        named = _conditions_iv(conditions, predictions.annotators)
        per_condition = {c: _spans_from_spans(predictions, gold, m) for c, m in named.items()}
    else:
        raise TypeError(f"`predictions` must be score file path(s), ModelScores or Spans; got "
                        f"{type(predictions).__name__}.")
    return named, per_condition


def _gold_spans(gold: Spans) -> dict[Any, Counter]:
    """The gold spans of each document, as a multiset of (start, end, label)."""
    gold_spans = {d: Counter() for d in gold.documents}
    for d, s, e, lab in gold.frame[["document", "start", "end", "label"]].itertuples(
            index=False, name=None):
        gold_spans[d][(int(s), int(e), lab)] += 1
    if not any(gold_spans.values()):
        raise ValueError("the gold probe set has no span: F1 is undefined.")
    return gold_spans


def _f1_table(sums: np.ndarray, names: list[str], boot: BootstrapResult) -> pd.DataFrame:
    """Each condition's counts (TP, FP, FN), precision, recall and F1 with its interval,
    best F1 first."""
    estimate, iv = boot.estimate, boot.interval
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(sums[:, 0] + sums[:, 1] > 0,
                             sums[:, 0] / (sums[:, 0] + sums[:, 1]), np.nan)
        recall = sums[:, 0] / (sums[:, 0] + sums[:, 2])
    f1 = pd.DataFrame({"tp": sums[:, 0].astype(np.int64), "fp": sums[:, 1].astype(np.int64),
                       "fn": sums[:, 2].astype(np.int64), "precision": precision,
                       "recall": recall, "f1": estimate, "low": iv.low, "high": iv.high},
                      index=pd.Index(names, name="condition"))
    return f1.iloc[np.argsort(-np.nan_to_num(estimate, nan=-1.0), kind="stable")]


def _differences(order: list[str], boot: BootstrapResult) -> pd.DataFrame:
    """The paired difference in F1 of every two conditions (in F1 order), its interval,
    and whether the interval excludes 0."""
    diff_rows = []
    for a, b in combinations(order, 2):
        d = boot.difference(a, b)
        lo, hi = float(d.interval.low[0]), float(d.interval.high[0])
        diff_rows.append({"first": a, "second": b, "difference": float(d.estimate[0]),
                          "low": lo, "high": hi, "separated": bool(lo > 0 or hi < 0)})
    return pd.DataFrame(diff_rows)


def _control_table(control_of: dict[str, str], order: list[str], f1: pd.DataFrame,
                   boot: BootstrapResult) -> pd.DataFrame:
    """For each condition with a control: its gap to the best other condition, and the
    part of the gap that its labels make (the control's F1 less the condition's)."""
    control_rows = []
    for c, k in control_of.items():
        others = [o for o in order if o != c]
        ref = others[0]
        lab = boot.difference(k, c)
        gap = float(f1.loc[ref, "f1"] - f1.loc[c, "f1"])
        labels = float(lab.estimate[0])
        control_rows.append({
            "condition": c, "control": k, "reference": ref, "gap": gap, "labels": labels,
            "low": float(lab.interval.low[0]), "high": float(lab.interval.high[0]),
            "not_labels": float(f1.loc[ref, "f1"] - f1.loc[k, "f1"]),
            "labels_share": labels / gap if gap > 0 else float("nan")})
    return pd.DataFrame(control_rows, columns=[
        "condition", "control", "reference", "gap", "labels", "low", "high", "not_labels",
        "labels_share"])


def _verdict(against: pd.DataFrame, worst: str, control_of: dict[str, str],
             control_table: pd.DataFrame, pct: str) -> tuple[str | None, str]:
    """The condition whose labels are least consistent with the rest (None if none stands
    out) and the verdict in words, with what the controls attribute to labels."""
    if (against["low"] > 0).all():
        least = worst
        verdict = (f"{worst} predicts the probe set worse than every other condition (each "
                   f"difference's {pct} interval lies above 0). ")
        if worst in control_of:
            verdict += _control_verdict(control_table.set_index("condition").loc[worst], pct)
        else:
            verdict += ("What this attributes to labels: the gap is the labels of the subset "
                        f"{worst} adds together with everything else that subset changes — "
                        "its texts (inputs unlike the probe's), when it is fed, the amount of "
                        "data; without a control (the same training with the subset's labels "
                        "corrected, given as controls=) the part that is labels cannot be told "
                        "apart from the rest")
    else:
        least = None
        close = against.loc[~(against["low"] > 0), "first"].tolist()
        verdict = (f"no condition stands out: the lowest, {worst}, is within the {pct} "
                   f"interval of {', '.join(map(str, close))}; no sign that one subset's "
                   "labels are less consistent with the rest (the intervals' width says how "
                   "large a difference could go unseen)")
    others = [c for c in control_of if c != least]
    for c in others:
        verdict += ". " + _control_verdict(control_table.set_index("condition").loc[c], pct)
    return least, verdict


def _controls_iv(controls: Any, conditions: Any) -> dict[str, str]:
    """{condition: control}, both among the conditions' names."""
    if controls is None:
        return {}
    if not isinstance(controls, Mapping):
        raise TypeError(f"`controls` must map a condition to its control (the same training "
                        f"with the subset's labels corrected); got {controls!r}.")
    names = ([str(k) for k in conditions] if isinstance(conditions, Mapping) else
             [str(c) for c in conditions] if isinstance(conditions, Sequence) and not
             isinstance(conditions, (str, bytes)) else [])
    out = {str(c): str(k) for c, k in controls.items()}
    for c, k in out.items():
        missing = [x for x in (c, k) if x not in names]
        if missing:
            raise ValueError(f"`controls` names {missing}, not among the conditions {names}.")
        if c == k or c in out.values() or k in out:
            raise ValueError(f"`controls` pairs {c!r} with {k!r}: a control is another "
                             "condition, and not itself controlled.")
    return out


def _control_verdict(row: Any, pct: str) -> str:
    c, k, ref = row.name, row["control"], row["reference"]
    head = (f"Control {k} (the training of {c} with the subset's labels corrected): the "
            f"correction changes F1 by {row['labels']:+.4f} [{row['low']:+.4f}, "
            f"{row['high']:+.4f}] ({pct}, paired) of the gap {row['gap']:+.4f} from {ref} to "
            f"{c}")
    if not row["low"] > 0:
        return (head + f"; its interval reaches 0, so none of the gap can be attributed to "
                f"labels; {row['not_labels']:+.4f} remains with the labels corrected (input "
                "shift, feeding order, amount of data — not labels)")
    share = row["labels_share"]
    part = f" ({share:.0%} of the gap)" if np.isfinite(share) else ""
    return (head + f": labels account for {row['labels']:+.4f}{part}; the other "
            f"{row['not_labels']:+.4f} remains with the labels corrected, so it is not labels "
            "(input shift, feeding order, amount of data)")
