"""The shape of the code: import direction, nothing compiled at import, the public API."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["agreement", "noise_models", "simulation", "goldnoise"]


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_point_one_way(layer):
    # agreement <- noise_models <- simulation <- goldnoise: a package may import
    # only the layers below it (SPEC, DEVELOPERS: "Imports point one way").
    forbidden = set(LAYERS[LAYERS.index(layer) + 1:])
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_packages(path) & forbidden)
        for path in (ROOT / layer).rglob("*.py")
        if _imported_packages(path) & forbidden
    }
    assert offenders == {}


def test_import_compiles_nothing():
    # Kernels compile lazily (cache=True); importing the packages must not
    # compile a single Numba dispatcher.
    code = """
import json, sys, numba.core.registry
import goldnoise, agreement, noise_models, simulation
from numba.core.dispatcher import Dispatcher
compiled = []
for name, mod in list(sys.modules.items()):
    if not name.split('.')[0] in {'agreement', 'noise_models', 'simulation', 'goldnoise'}:
        continue
    for attr, obj in vars(mod).items():
        if isinstance(obj, Dispatcher) and obj.signatures:
            compiled.append(f"{name}.{attr}")
print(json.dumps(compiled))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
