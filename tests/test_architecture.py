"""The shape of the code: import direction, nothing compiled at import, the public API."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["_goldnoise_lib", "agreement", "noise_models", "simulation", "goldnoise"]


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
    if not name.split('.')[0] in {'_goldnoise_lib', 'agreement', 'noise_models', 'simulation', 'goldnoise'}:
        continue
    for attr, obj in vars(mod).items():
        if isinstance(obj, Dispatcher) and obj.signatures:
            compiled.append(f"{name}.{attr}")
print(json.dumps(compiled))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for layer in LAYERS for path in (ROOT / layer).rglob("*.py")}


def _module_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that module ``name`` imports, anywhere in its body.

    ``from pkg import sub`` counts as an import of ``pkg.sub`` when ``sub`` is a
    module, else of ``pkg`` (its ``__init__``); imports inside functions and
    ``if TYPE_CHECKING`` blocks count too: a lazy import still ties two modules
    together.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod not in modules:  # not a module of the project (or not yet written)
                continue
            targets = [f"{mod}.{alias.name}" if f"{mod}.{alias.name}" in modules else mod
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import a.b.c` of a name
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_import_cycles():
    # No circle between modules anywhere in the four packages (a circle that
    # works today only because of the order of imports breaks on the next edit).
    modules = _all_modules()
    graph = {name: _module_imports(name, path, modules) for name, path in modules.items()}
    assert _import_cycles(graph) == []


def test_cycle_detector_sees_a_cycle():
    # The detector itself: a two-module circle, and a package whose submodule
    # imports a name back from the package's __init__.
    assert _import_cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _import_cycles({"p": {"p._x"}, "p._x": {"p"}}) == [["p", "p._x"]]
    assert _import_cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", ["easy_hard", "latent_class", "instance"])
def test_topic_subpackages_are_public(package):
    # Each topic of noise_models is a public subpackage whose names are also
    # re-exported by noise_models (like sklearn.metrics.cluster).
    import importlib

    import noise_models

    sub = importlib.import_module(f"noise_models.{package}")
    assert sub.__all__
    assert sub.__doc__
    for name in sub.__all__:
        assert getattr(noise_models, name) is getattr(sub, name)
    assert set().union(*(importlib.import_module(f"noise_models.{p}").__all__
                         for p in ["easy_hard", "latent_class", "instance"])) == set(
        noise_models.__all__)


@pytest.mark.parametrize("package", ["generators", "bootstrap", "calibration"])
def test_simulation_topic_subpackages_are_public(package):
    # Each topic of simulation is a public subpackage whose names simulation re-exports.
    import importlib

    import simulation

    sub = importlib.import_module(f"simulation.{package}")
    assert sub.__all__ and sub.__doc__
    for name in sub.__all__:
        assert getattr(simulation, name) is getattr(sub, name)
        assert name in sub.__doc__  # the subpackage's docstring indexes its topic
