"""benchmarks/guard.py reads and writes its baseline block (it is not a timing test)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _guard():
    spec = importlib.util.spec_from_file_location("guard", ROOT / "benchmarks" / "guard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_guard_reads_the_baseline_it_writes(tmp_path, monkeypatch):
    guard = _guard()
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nother sections\n")
    monkeypatch.setattr(guard, "RESULTS", results)
    rows = [("Fleiss' κ from labels, 1e6 × 5 × 5", "statsmodels", 0.02, 2.0, 0.01),
            ("load_scores, parquet 2e5 × 10", "pandas.read_parquet", 0.3, 0.15, 2.0)]
    guard.write(rows)
    assert guard.committed() == {rows[0][0]: 0.01, rows[1][0]: 2.0}
    assert guard.committed_times() == {rows[0][0]: (0.02, 2.0), rows[1][0]: (0.3, 0.15)}
    guard.write([(*rows[0][:4], 0.02)])  # rewriting replaces the block, nothing else
    text = results.read_text()
    assert text.count(guard.START) == 1 and "other sections" in text
    assert guard.committed() == {rows[0][0]: 0.02}


def test_committed_baseline_is_readable():
    guard = _guard()
    base = guard.committed()
    assert base, "benchmarks/RESULTS.md has no guard baseline block"
    assert all(v > 0 for v in base.values())


def test_a_flag_says_which_side_moved():
    guard = _guard()
    assert guard.which_side(0.0023, 1.0, 0.0039, 2.5).endswith("the anchor got faster")
    assert guard.which_side(0.008, 2.5, 0.0039, 2.5).endswith("goldnoise got slower")
    both = guard.which_side(0.008, 1.0, 0.0039, 2.5)
    assert both.endswith("goldnoise got slower and the anchor faster")
    # a change within timing noise is not a move
    assert guard.which_side(0.00405, 1.0, 0.0039, 2.5).endswith("the anchor got faster")
    assert guard.which_side(0.0040, 2.4, 0.0039, 2.5).endswith("neither time moved alone")
