"""Item-level exports of annotation tools, read as long ratings (item, rater, label).

* **Label Studio** JSON export: a list of tasks, each with its annotators'
  ``annotations``; a classification is a result of ``type`` ``"choices"``.
* **Prodigy** JSONL (``prodigy db-out``): one line per answer, the annotator in
  ``_annotator_id`` (or ``_session_id``); a choice task's selected option in
  ``accept``, a binary task's ``answer`` (accept/reject) to its ``label``.
* **Amazon Mechanical Turk** batch results CSV: one row per assignment,
  ``WorkerId``, ``HITId``, the inputs in ``Input.*`` and the answers in
  ``Answer.*``.

Each reader refuses what it cannot read with a message naming the file, the
task or row, and the fix.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning

__all__ = ["labelstudio_long", "mturk_long", "prodigy_long"]


def _frame(rows: list[tuple], path: Path) -> pd.DataFrame:
    if not rows:
        raise ValueError(f"{path}: no rating found in the export.")
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def labelstudio_long(path: str | Path, *, control: str | None = None) -> pd.DataFrame:
    """Label Studio's JSON export of a classification project as long ratings.

    ``control`` names the choices control (``from_name``) when the project has
    several; annotations marked skipped in Label Studio (``was_cancelled``) are left
    out, with a warning saying how many. A file of another shape is refused naming
    the task, the annotation and the shape expected.
    """
    from _goldnoise_lib.messages import json_shape as _shape
    from _goldnoise_lib.messages import utf8_text as _text

    path = Path(path)
    try:
        tasks = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}).") from None
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise ValueError(f"{path}: a Label Studio export is a list of tasks (JSON objects).")
    checked = []  # (task id, [(annotator, [choices results])])
    controls = set()
    skipped = 0
    for t, task in enumerate(tasks):
        tid = task.get("id", t + 1)
        where = f"{path}: task {tid!r}" if not isinstance(tid, (int, str)) else \
            f"{path}: task {tid}"
        if isinstance(tid, bool) or not isinstance(tid, (int, str)):
            raise ValueError(f"{where}: the task id is {_shape(tid)}; expected a number or "
                             "text.")
        data = task.get("data", {})
        if not isinstance(data, dict):
            raise ValueError(f"{where}: 'data' is {_shape(data)}; expected an object such as "
                             "{\"text\": \"...\"}.")
        anns = task.get("annotations") or task.get("completions") or []
        if not isinstance(anns, list):
            raise ValueError(f"{where}: 'annotations' is {_shape(anns)}; expected a list of "
                             "objects, each with 'completed_by' and 'result'.")
        per_task = []
        for k, ann in enumerate(anns, 1):
            at = f"{where}, annotation {k}"
            if not isinstance(ann, dict):
                raise ValueError(f"{at}: {_shape(ann)}; expected an object with "
                                 "'completed_by' and 'result'.")
            if ann.get("was_cancelled"):
                skipped += 1
                continue
            result = ann.get("result") or []
            if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
                raise ValueError(f"{at}: 'result' is {_shape(result)}; expected a list of "
                                 "objects with 'type', 'from_name' and 'value'.")
            who = ann.get("completed_by")
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            if who is None or isinstance(who, bool) or not isinstance(who, (int, str)):
                raise ValueError(f"{at}: 'completed_by' is {_shape(who)}; expected the "
                                 "annotator's id or {\"email\": ...}.")
            chosen = [r for r in result if r.get("type") == "choices"]
            for r in chosen:
                name = r.get("from_name")
                if name is not None and not isinstance(name, str):
                    raise ValueError(f"{at}: 'from_name' is {_shape(name)}; expected the "
                                     "control's name.")
                controls.add(name)
            per_task.append((who, chosen, at, where))
        checked.append((tid, per_task))
    if control is None and len(controls) > 1:
        raise ValueError(f"{path}: the project has several choices controls "
                         f"({', '.join(sorted(map(str, controls)))}); name one (--label NAME).")
    if control is not None and control not in controls:
        raise ValueError(f"{path}: no choices control {control!r}; the export has "
                         f"{', '.join(sorted(map(str, controls))) or 'none'}.")
    rows = []
    for tid, per_task in checked:
        for who, chosen, at, where in per_task:
            for r in chosen:
                if control is not None and r.get("from_name") != control:
                    continue
                rows.append((tid, who, _labelstudio_choice(r, at, f"{where}, annotator {who}")))
    if not rows:
        raise ValueError(f"{path}: no classification (a result of type 'choices') in the "
                         "export; span projects are read by `goldnoise spans --from "
                         "labelstudio`.")
    if skipped:
        warnings.warn(f"{path}: {skipped} annotation(s) marked skipped (was_cancelled) are "
                      "left out: a skipped task was not annotated.", GoldnoiseWarning,
                      stacklevel=4)
    return _frame(rows, path)


def _labelstudio_choice(result: dict, at: str, who: str) -> Any:
    """The one label a Label Studio choices result holds, or a one-line error saying
    where (``at``: the annotation; ``who``: the task and annotator)."""
    from _goldnoise_lib.messages import json_shape as _shape

    value = result.get("value") or {}
    if not isinstance(value, dict):
        raise ValueError(f"{at}: 'value' is {_shape(value)}; expected an object with "
                         "'choices'.")
    labels = value.get("choices") or []
    if isinstance(labels, str):
        labels = [labels]
    if not isinstance(labels, list):
        raise ValueError(f"{at}: 'choices' is {_shape(labels)}; expected a list with the "
                         "chosen label, such as [\"positive\"].")
    if len(labels) != 1:
        raise ValueError(f"{who}: {len(labels)} choices selected; goldnoise reads one label "
                         "per item and annotator (a single-choice question).")
    if isinstance(labels[0], bool) or not isinstance(labels[0], (str, int, float)):
        raise ValueError(f"{at}: a choice is {_shape(labels[0])}; expected a label name.")
    return labels[0]


def prodigy_long(path: str | Path) -> pd.DataFrame:
    """Prodigy's JSONL answers (``db-out``) as long ratings.

    Choice tasks (``accept`` holds the selected option): the item is the input
    (``_input_hash``) and the label the option. Binary tasks (a ``label`` with
    ``answer`` accept/reject): the item is the task (``_task_hash``: an input and
    its label) and the label the answer. ``ignore`` answers are left out. A
    malformed record is refused in one line naming the file, the line and the
    value expected.
    """
    from _goldnoise_lib.messages import utf8_text as _text

    path = Path(path)
    rows = []
    for lineno, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        at = f"{path}, line {lineno}"
        try:
            eg = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{at}: not JSON ({exc.msg}).") from None
        if not isinstance(eg, dict):
            raise ValueError(f"{at}: a Prodigy answer is a JSON object.")
        answer = eg.get("answer")
        if answer == "ignore":
            continue
        who = eg.get("_annotator_id", eg.get("_session_id"))
        if who is None:
            raise ValueError(f"{at}: no _annotator_id or _session_id: "
                             "export with the annotators' sessions (prodigy db-out).")
        who = _scalar(who, at, "the annotator (_annotator_id)")
        if "accept" in eg and isinstance(eg["accept"], list) and "options" in eg:
            if answer != "accept":
                continue
            if len(eg["accept"]) != 1:
                raise ValueError(f"{at}: {len(eg['accept'])} options accepted; goldnoise "
                                 "reads one label per item and annotator (a single-choice "
                                 "task).")
            item = _scalar(eg.get("_input_hash", eg.get("text")), at,
                           "the input (_input_hash or text)")
            rows.append((item, who, _scalar(eg["accept"][0], at, "the accepted option")))
        elif "label" in eg and answer in ("accept", "reject"):
            label = _scalar(eg["label"], at, "the label")
            item = (_scalar(eg["_task_hash"], at, "the task (_task_hash)")
                    if "_task_hash" in eg else
                    (_scalar(eg.get("_input_hash"), at, "the input (_input_hash)"), label))
            rows.append((item, who, answer))
        else:
            raise ValueError(f"{at}: neither a choice task (options and "
                             "accept) nor a binary one (label and answer).")
    return _frame(rows, path)


def _scalar(value: Any, at: str, what: str) -> Any:
    """``value`` if it is a number or text (an id or a label), else a one-line refusal."""
    from _goldnoise_lib.messages import json_shape as _shape

    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{at}: {what} is {_shape(value)}; expected a number or text.")
    return value


def mturk_long(path: str | Path, *, item: Hashable | None = None,
               label: Hashable | None = None) -> pd.DataFrame:
    """An Amazon Mechanical Turk batch results CSV as long ratings.

    The annotator is ``WorkerId``; the item ``HITId`` unless ``item`` names
    another column (e.g. ``Input.id``); the label the one ``Answer.*`` column, or
    the column ``label`` names. Rejected assignments (``AssignmentStatus``) are
    left out.
    """
    path = Path(path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=True)
    for col in ("WorkerId", "HITId"):
        if col not in frame.columns:
            raise ValueError(f"{path}: no {col} column; an MTurk batch results file has "
                             "WorkerId, HITId, Input.* and Answer.* columns.")
    answers = [c for c in frame.columns if str(c).startswith("Answer.")]
    if label is None:
        if len(answers) != 1:
            raise ValueError(f"{path}: {len(answers)} Answer.* columns "
                             f"({', '.join(answers) or 'none'}); name the label's (--label "
                             "COLUMN).")
        label = answers[0]
    item = "HITId" if item is None else item
    for col, what in ((label, "--label"), (item, "--item")):
        if col not in frame.columns:
            raise ValueError(f"{path}: {what} {col!r} is not a column; its columns are "
                             f"{', '.join(map(str, frame.columns))}.")
    if "AssignmentStatus" in frame.columns:
        frame = frame[frame["AssignmentStatus"].fillna("") != "Rejected"]
    out = frame[[item, "WorkerId", label]].dropna(subset=[label])
    out.columns = ["item", "rater", "label"]
    if out.empty:
        raise ValueError(f"{path}: no answer in {label!r}.")
    return out.reset_index(drop=True)


def read_export(path: str | Path, tool: str, **options: Any) -> pd.DataFrame:
    """The long ratings of an export of ``tool`` ("labelstudio", "prodigy", "mturk")."""
    readers = {"labelstudio": labelstudio_long, "prodigy": prodigy_long, "mturk": mturk_long}
    if tool not in readers:
        raise ValueError(f"`tool` must be one of {sorted(readers)}; got {tool!r}.")
    return readers[tool](path, **options)
