"""Count the structural offenders of the five packages (``agreement``, ``noise_models``,
``simulation``, ``goldnoise``, ``_goldnoise_lib``): functions over 100 lines (``def`` to its
last line, docstring included), functions with more than 10 parameters (positional,
keyword-only, ``*args`` and ``**kwargs`` each count one; ``self`` and ``cls`` do not) and
modules over 800 lines.

    python benchmarks/structure_counts.py [ROOT] [-v]

``-v`` lists each offender, largest first.
"""

from __future__ import annotations

import ast
import pathlib
import sys

PACKAGES = ("agreement", "noise_models", "simulation", "goldnoise", "_goldnoise_lib")
LONG_FUNCTION, MANY_PARAMETERS, LONG_MODULE = 100, 10, 800


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (a.vararg is not None) + (a.kwarg is not None)


def offenders(root: pathlib.Path) -> dict[str, list[tuple[int, str]]]:
    """The offenders of each kind, as ``(size, where)`` pairs, largest first."""
    found: dict[str, list[tuple[int, str]]] = {
        f"functions over {LONG_FUNCTION} lines": [],
        f"functions over {MANY_PARAMETERS} parameters": [],
        f"modules over {LONG_MODULE} lines": []}
    long_f, many_p, long_m = found
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text()
            where = str(path.relative_to(root))
            lines = len(text.splitlines())
            if lines > LONG_MODULE:
                found[long_m].append((lines, where))
            for node in ast.walk(ast.parse(text)):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                name = f"{where}:{node.lineno} {node.name}"
                if (n := node.end_lineno - node.lineno + 1) > LONG_FUNCTION:
                    found[long_f].append((n, name))
                if (p := _parameters(node)) > MANY_PARAMETERS:
                    found[many_p].append((p, name))
    return {k: sorted(v, reverse=True) for k, v in found.items()}


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    for kind, rows in offenders(pathlib.Path(args[0] if args else ".")).items():
        print(f"{kind}: {len(rows)}")
        if "-v" in sys.argv:
            for size, where in rows:
                print(f"  {size:5}  {where}")
