"""The result protocol's output, pinned: every public result class's ``to_dict()``,
``to_frame()`` and ``summary()`` on the small examples of ``test_result_protocol``.

The snapshot (``tests/data/result_protocol_snapshot.json``) was written from the
hand-written ``to_dict``/``to_frame``/``summary`` methods before the base class
derived them from each class's declared shape; it proves the derivation keeps the
keys, the columns, the index and the values. The one intended change: no key or
column starts with ``_`` (``DetectedErrorRateResult`` used to leak ``_headline``).
Rewritten when the base grew per-label rows and summary templates: ``PPIResult`` and
``JudgeEstimateResult`` frames gain the ``notes`` column every one-row frame has;
``JudgeAuditResult.to_dict()`` gives ``notes`` before its tables and its ``confusion``
records lose the 0..n-1 ``index`` key; ``UnitizingAlphaResult``'s summary writes NaN
as ``NaN``. Rewritten again when ``JudgeAuditResult.summary()`` became the text of
``goldnoise judge`` and ``CrosscheckResult``'s summary took each quantity's meaning from
its ``to_frame()``; and again when ``SpanNoiseResult`` gained ``match`` and its summary
became the lines ``goldnoise spans`` prints; and when ``JudgePlan`` gained
``active_n_items`` (the width plan's active design, None without the judge's scores); and again for ``JudgeAuditResult`` and
``SwapTestResult`` when each candidate's swap and join moved to the items it rated, on a
stream keyed by its name (``n_items`` column; the audit's ``scoring`` and first line);
and when ``JudgeEstimateResult`` gained ``bounds`` (a prevalence clipped to [0, 1]);
and when ``JudgeAuditResult``'s latent fit became the default model (spam with item
difficulty: its parameters in the latent table, accuracy over easy and hard items);
and when ``ErrorBracketResult`` gained the optional posterior bound (``posterior_upper``,
``posterior_upper_errors``, ``posterior_model``; None unless asked for); and when
``calibration()``'s default map became the temperature map averaged over its slope's
posterior (``method="bayes"``: on the example's 10 right labels the out-of-fold ECE is
0.013, not 0.076).

Rewrite it (only after a deliberate change of a result's output) with
``GOLDNOISE_WRITE_SNAPSHOT=1 pytest tests/test_result_snapshot.py``.
"""

from __future__ import annotations

import json
import math
import os
import pathlib

import numpy as np
import pandas as pd
import pytest
from test_result_protocol import EXAMPLES, _ratings

import goldnoise

SNAPSHOT = pathlib.Path(__file__).parent / "data" / "result_protocol_snapshot.json"


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, (pd.Timestamp, pd.Interval)):
        return str(value)
    return value


def _frame(frame: pd.DataFrame) -> dict:
    return {"columns": [str(c) for c in frame.columns],
            "index_names": [None if n is None else str(n) for n in frame.index.names],
            "index": _plain(frame.index.tolist()),
            "dtypes": [str(t) for t in frame.dtypes],
            "values": _plain(frame.astype(object).where(frame.notna(), None)
                             .to_numpy().tolist())}


def _capture(name: str) -> dict:
    res = EXAMPLES[name]()
    return {"to_dict": _plain(res.to_dict()), "to_frame": _frame(res.to_frame()),
            "summary": res.summary()}


#: The examples of the protocol test, with the audit seeded (its latent-class starts and
#: held-out check draw at random without a seed).
EXAMPLES = {**EXAMPLES, "AuditResult": lambda: goldnoise.audit(_ratings(), rng=0)}


def _close(got, want, where="", rel=1e-9):
    if isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=rel, abs=1e-12), where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for k in want:
            _close(got[k], want[k], f"{where}.{k}", rel)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(g, w, f"{where}[{i}]", rel)
    else:
        assert got == want and type(got) is type(want), (where, got, want)


def _one_line_each(snapshot: dict) -> str:
    """The snapshot as JSON with one line per result class."""
    return "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                               for k, v in snapshot.items()) + "\n}\n"


if os.environ.get("GOLDNOISE_WRITE_SNAPSHOT"):
    SNAPSHOT.write_text(_one_line_each({n: _capture(n) for n in sorted(EXAMPLES)}))

WANT = json.loads(SNAPSHOT.read_text())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_output_unchanged(name):
    got = json.loads(json.dumps(_capture(name), ensure_ascii=False))
    want = WANT[name]
    _close(got["to_dict"], want["to_dict"], f"{name}.to_dict()")
    _close(got["to_frame"], want["to_frame"], f"{name}.to_frame()")
    assert got["summary"] == want["summary"]
