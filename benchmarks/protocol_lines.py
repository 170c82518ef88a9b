"""Count the hand-written result-protocol lines: the ``to_dict``, ``to_frame`` and
``summary`` methods of the classes deriving from ``Result`` (directly or through another
result class), and the lines of their declared shapes (``_keys``, ``_omit``, ``_records``,
``_nested``, ``_table``, ``_columns``, ``_index``, ``_rows``, ``_summary``), with the
``_summary`` templates (the words of the summaries) also counted apart.

    python benchmarks/protocol_lines.py [ROOT] [-v]
"""

from __future__ import annotations

import ast
import pathlib
import sys

SHAPE = ("_keys", "_omit", "_records", "_nested", "_table", "_columns", "_index", "_rows",
         "_summary")
SHAPE_SET = set(SHAPE)
METHODS = ("to_dict", "to_frame", "summary")


def count(root: pathlib.Path, verbose: bool = False) -> dict[str, int]:
    totals = dict.fromkeys((*METHODS, "declared shape", "of which summary templates"), 0)
    classes = []
    for path in sorted(root.rglob("*.py")):
        if {"tests", "benchmarks", ".git"} & set(path.parts) or path.name == "results.py":
            continue
        classes += [(path, c) for c in ast.walk(ast.parse(path.read_text()))
                    if isinstance(c, ast.ClassDef)]
    results, grew = {"Result"}, True
    while grew:  # the result classes: Result's subclasses, and theirs
        before = len(results)
        results |= {c.name for _, c in classes if results & {
            getattr(b, "id", getattr(b, "attr", "")) for b in c.bases}}
        grew = len(results) > before
    for path, cls in classes:
        if cls.name in results and cls.name != "Result":
            for node in cls.body:
                n = node.end_lineno - node.lineno + 1
                if isinstance(node, ast.FunctionDef) and node.name in METHODS:
                    totals[node.name] += n + len(node.decorator_list)
                    if verbose:
                        print(f"{n:4} {path.relative_to(root)}:{cls.name}.{node.name}")
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = [getattr(t, "id", "") for t in getattr(
                        node, "targets", [getattr(node, "target", None)])]
                    if not SHAPE_SET & set(targets):
                        continue
                    totals["declared shape"] += n
                    if "_summary" in targets:
                        totals["of which summary templates"] += n
                    if verbose:
                        print(f"{n:4} {path.relative_to(root)}:{cls.name}."
                              f"{'='.join(targets)} (shape)")
    return totals


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    totals = count(pathlib.Path(args[0] if args else "."), "-v" in sys.argv)
    print(", ".join(f"{k} {v}" for k, v in totals.items()),
          f"(methods {sum(totals[m] for m in METHODS)}, "
          f"total {sum(totals[m] for m in METHODS) + totals['declared shape']})")
