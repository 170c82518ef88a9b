"""The shape of the code: import direction, nothing compiled at import, the public API.

Two walls are checked the same way (every import, in functions too, and every
``lazy_module`` string): between the top-level packages, only public names or the
shared layer ``_goldnoise_lib`` cross; between sibling subpackages of one package, only
a subpackage's face (its ``__init__`` and ``__all__``).
"""

from __future__ import annotations

import ast
import json
import re
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


def test_the_resampling_core_knows_no_statistic():
    # _goldnoise_lib.resampling resamples for every package (coefficients, spans, detection,
    # separability, consistency, annotator refits); it imports nothing above _goldnoise_lib
    # (in functions neither), nor do lazy_module strings name anything above it.
    modules = _all_modules()
    core = {n: p for n, p in modules.items() if n.startswith("_goldnoise_lib.resampling")}
    assert {"_goldnoise_lib.resampling.sums", "_goldnoise_lib.resampling.refit"} <= set(core)
    reaches = {(n, t) for n, p in core.items() for t in _module_imports(n, p, modules)
               if not t.startswith("_goldnoise_lib")}
    strings = {(n, t) for n, p in core.items()
               for t in re.findall(r'lazy_module\("([^"]+)"\)', p.read_text())
               if t.split(".")[0] in LAYERS[1:]}
    assert reaches | strings == set()


def test_cycle_detector_sees_a_cycle():
    # The detector itself: a two-module circle, and a package whose submodule
    # imports a name back from the package's __init__.
    assert _import_cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _import_cycles({"p": {"p._x"}, "p._x": {"p"}}) == [["p", "p._x"]]
    assert _import_cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", ["easy_hard", "latent_class", "instance", "judge",
                                     "preferences"])
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
                         for p in ["easy_hard", "latent_class", "instance", "judge",
                                   "preferences"])) == set(
        noise_models.__all__)


SIMULATION_TOPICS = ["calibration", "consistency", "crosscheck", "detection", "generators",
                     "noising", "reannotation", "scores", "study"]


# public in the subpackage only (the policies' names, for `next_batch(policy=...)`)
SUBPACKAGE_ONLY = {"reannotation": {"POLICIES"}}


def test_simulation_holds_these_topics():
    # what simulates or plans; the bootstrap lives in the core below every package
    subpackages = sorted(p.parent.name for p in (ROOT / "simulation").glob("*/__init__.py"))
    assert subpackages == SIMULATION_TOPICS


# The floors of simulation's index (its docstring draws them): a subpackage imports only
# subpackages on lower floors.
SIMULATION_FLOORS = {"crosscheck": 3, "detection": 2, "consistency": 2, "noising": 2,
                     "scores": 1, "generators": 1, "calibration": 1, "study": 1,
                     "reannotation": 1}


def test_simulation_floors_are_the_indexed_ones():
    import simulation

    modules = _all_modules()
    below: dict[str, set[str]] = {t: set() for t in SIMULATION_FLOORS}
    for name, path in modules.items():
        parts = name.split(".")
        if parts[0] != "simulation" or len(parts) < 2:
            continue
        for target in _module_imports(name, path, modules):
            tp = target.split(".")
            if tp[0] == "simulation" and len(tp) > 1 and tp[1] != parts[1]:
                below[parts[1]].add(tp[1])
    def floor(topic: str) -> int:
        return 1 + max((floor(t) for t in below[topic]), default=0)

    assert {t: floor(t) for t in below} == SIMULATION_FLOORS
    for topic, level in SIMULATION_FLOORS.items():
        line = next(ln for ln in simulation.__doc__.splitlines() if f"floor {level}" in ln)
        assert topic in line or topic in simulation.__doc__.split(line)[1].splitlines()[0]


@pytest.mark.parametrize("package", SIMULATION_TOPICS)
def test_simulation_topic_subpackages_are_public(package):
    # Each topic of simulation is a public subpackage whose names simulation re-exports.
    import importlib

    import simulation

    sub = importlib.import_module(f"simulation.{package}")
    assert sub.__all__ and sub.__doc__
    for name in set(sub.__all__) - SUBPACKAGE_ONLY.get(package, set()):
        assert getattr(simulation, name) is getattr(sub, name)
        assert name in sub.__doc__  # the subpackage's docstring indexes its topic


def _declared_all(path: Path) -> set[str] | None:
    """The names of a module's literal ``__all__`` (None when it has none)."""
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return {str(v) for v in ast.literal_eval(node.value)}
            except ValueError:  # built from other lists: every public name counts
                return None
    return None


def _private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def _cross_package_private(name: str, source: str, modules: dict[str, Path]) -> set[str]:
    """What module ``name`` reaches in another package that is not public.

    Every ``import``, ``from ... import`` (at module level or inside a
    function) and every ``lazy_module("pkg.mod")`` string counts. A reach is
    public when it lands on ``_goldnoise_lib``, on a public (sub)package, or on
    a name in that package's ``__all__``.
    """
    own = name.split(".")[0]
    found: set[str] = set()

    def check(target: str, imported: str | None = None) -> None:
        top = target.split(".")[0]
        if top == own or top == "_goldnoise_lib" or top not in LAYERS:
            return
        if _private(target):
            found.add(target if imported is None else f"{target}.{imported}")
            return
        if imported is None or f"{target}.{imported}" in modules:
            if imported is not None and imported.startswith("_"):
                found.add(f"{target}.{imported}")
            return
        exported = _declared_all(modules[target]) if target in modules else None
        if imported == "__all__":
            return
        if imported.startswith("_") or (exported is not None and imported not in exported
                                        and imported != "*"):
            found.add(f"{target}.{imported}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                check(node.module, alias.name)
        elif (isinstance(node, ast.Call) and getattr(node.func, "id",
                                                    getattr(node.func, "attr", None)) == "lazy_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            check(node.args[0].value)
    return found


def _all_private_reaches() -> set[tuple[str, str]]:
    modules = _all_modules()
    return {(name, target) for name, path in modules.items()
            for target in _cross_package_private(name, path.read_text(), modules)}


def test_imports_across_packages_reach_only_public_names():
    # every import across packages (module level, in functions, lazy_module strings)
    # reaches another package's public names or the shared layer `_goldnoise_lib`
    assert _all_private_reaches() == set()


def test_private_reach_detector_sees_each_form():
    modules = _all_modules()
    assert _cross_package_private(
        "noise_models.x", "from agreement._kernels import f\n", modules) == {"agreement._kernels.f"}
    assert _cross_package_private(
        "noise_models.x", "def g():\n    import agreement._lazy\n", modules) == {"agreement._lazy"}
    assert _cross_package_private(
        "simulation.x", 'K = lazy_module("agreement._kernels_alpha")\n',
        modules) == {"agreement._kernels_alpha"}
    assert _cross_package_private(
        "simulation.x", "from agreement import _secret, Ratings\n", modules) == {"agreement._secret"}
    assert _cross_package_private(
        "simulation.x", "from agreement import fleiss_kappa\nimport _goldnoise_lib.lazy\n"
        "from simulation._x import y\n", modules) == set()


def _sibling_private(name: str, source: str, modules: dict[str, Path]) -> set[str]:
    """What module ``name`` reaches in a sibling subpackage that is not its face.

    The siblings are the direct children of one package (``simulation.detection`` and
    ``simulation.scores``; ``goldnoise._cli`` and ``goldnoise._audit``): a module of one
    child may import another child that is a subpackage only through its ``__init__``
    and the names in its ``__all__`` -- never its modules, never a private name. Every
    ``import``, ``from ... import`` (at module level or inside a function) and every
    ``lazy_module("pkg.sub._mod")`` string counts. Sibling modules of a package
    (``agreement._api`` and ``agreement._kernels``) are one topic's private parts and
    may import each other.
    """
    parts = name.split(".")
    if len(parts) < 2:
        return set()
    top, child = parts[0], parts[1]
    found: set[str] = set()

    def check(target: str, imported: str | None = None) -> None:
        tp = target.split(".")
        if tp[0] != top or len(tp) < 2 or tp[1] == child:
            return
        if not (ROOT / top / tp[1] / "__init__.py").exists():
            return  # a sibling module of the package, not a subpackage
        if any(p.startswith("_") for p in tp[2:]):
            found.add(target if imported is None else f"{target}.{imported}")
            return
        if imported is None or imported == "*" or f"{target}.{imported}" in modules:
            if imported is not None and imported.startswith("_"):
                found.add(f"{target}.{imported}")
            return
        exported = _declared_all(modules[target]) if target in modules else None
        if imported.startswith("_") or (exported is not None and imported not in exported):
            found.add(f"{target}.{imported}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                check(node.module, alias.name)
        elif (isinstance(node, ast.Call) and getattr(node.func, "id",
                                                    getattr(node.func, "attr", None)) == "lazy_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            check(node.args[0].value)
    return found


def test_imports_between_sibling_subpackages_reach_only_their_faces():
    # no private name crosses between the subpackages of one package (simulation's topics,
    # goldnoise's _cli and _audit, agreement and agreement.spans, noise_models')
    modules = _all_modules()
    reaches = {(name, target) for name, path in modules.items()
               for target in _sibling_private(name, path.read_text(), modules)}
    assert reaches == set()


def test_sibling_reach_detector_sees_each_form():
    modules = _all_modules()
    assert _sibling_private("simulation.detection.x",
                            "from simulation.scores._ensemble import item_loss\n",
                            modules) == {"simulation.scores._ensemble.item_loss"}
    assert _sibling_private("simulation.detection.x",
                            "def g():\n    import simulation.scores._load\n",
                            modules) == {"simulation.scores._load"}
    assert _sibling_private("simulation.crosscheck.x",
                            'K = lazy_module("simulation.detection._kernels")\n',
                            modules) == {"simulation.detection._kernels"}
    assert _sibling_private("simulation.crosscheck.x",
                            "from simulation.scores import _secret, ModelScores\n",
                            modules) == {"simulation.scores._secret"}
    assert _sibling_private("goldnoise._cli.x", "from goldnoise._audit import _latent\n",
                            modules) == {"goldnoise._audit._latent"}
    assert _sibling_private("goldnoise._cli.x", "from goldnoise._audit import not_exported\n",
                            modules) == {"goldnoise._audit.not_exported"}
    assert _sibling_private("agreement._x", "from agreement.spans._readers import f\n",
                            modules) == {"agreement.spans._readers.f"}
    assert _sibling_private(
        "simulation.detection.x",
        "from simulation.scores import ModelScores\nfrom simulation.detection._ranking import r\n"
        "from agreement._kernels import k\nimport _goldnoise_lib.resampling.weights\n",
        modules) == set()
    assert _sibling_private("goldnoise._cli.x", "from goldnoise._audit import pct\n"
                            "from goldnoise.report import Section\n", modules) == set()
    assert _sibling_private("agreement.spans.x", "from agreement._kernels import k\n",
                            modules) == set()


def _assignments_into_other_modules(source: str) -> list[str]:
    """Module-level statements that write into another module's globals."""
    tree = ast.parse(source)
    imported = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.update(a.asname or a.name for a in node.names)
    found = []
    for node in tree.body:
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            base = target
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(target, ast.Attribute) and isinstance(base, ast.Name) \
                    and base.id in imported:
                found.append(ast.unparse(target))
        call = node.value if isinstance(node, ast.Expr) else None
        if not isinstance(call, ast.Call):
            continue
        if getattr(call.func, "id", None) == "setattr" \
                and call.args and isinstance(call.args[0], ast.Name) \
                and call.args[0].id in imported:
            found.append(ast.unparse(call))
        elif isinstance(call.func, ast.Attribute) and (
                call.func.attr in _FILLING or call.func.attr.startswith("register")):
            base = call.func.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name) and base.id in imported:
                found.append(ast.unparse(call.func))
    return found


# Methods that fill a container (or a registry) held by another module.
_FILLING = {"append", "extend", "insert", "update", "add", "setdefault", "__setitem__"}

# Registries filled at import time (issue 16, item 1): none remain, each public
# function sits above both of its implementations and chooses. Keep it empty.
KNOWN_FILLED_GLOBALS: dict[str, list[str]] = {}


def test_no_module_fills_another_modules_globals():
    offenders = {name: found for name, path in _all_modules().items()
                 if (found := _assignments_into_other_modules(path.read_text()))}
    assert offenders == KNOWN_FILLED_GLOBALS


def test_global_assignment_detector_sees_each_form():
    assert _assignments_into_other_modules(
        "from agreement import _chunked\n_chunked.FIT = 1\n") == ["_chunked.FIT"]
    assert _assignments_into_other_modules(
        "import agreement._chunked as c\nsetattr(c, 'FIT', 1)\n") == ["setattr(c, 'FIT', 1)"]
    assert _assignments_into_other_modules(
        "from noise_models.easy_hard import _bound as B\nB._chunked_bound.append(f)\n"
    ) == ["B._chunked_bound.append"]
    assert _assignments_into_other_modules(
        "from agreement import _chunked\n_chunked.register_runner('a', f)\n"
    ) == ["_chunked.register_runner"]
    assert _assignments_into_other_modules("X = 1\nclass A:\n    pass\nA.y = 2\n") == []


# Test files that import private code (a module with a private part, the shared layer
# `_goldnoise_lib`, or a private name), each with why. Every other test file imports
# public names only: a package's `__all__`, or the command line's face
# `goldnoise._cli` (its `__all__`: main, the verbs, the parser, the compile notice).
PRIVATE_IMPORTS_IN_TESTS = {
    # a report section of the audit from a result made by hand (ends that cross)
    "test_audit_api.py": "the audit's bracket section on brackets built by hand",
    "test_judge.py": "the EM's entry point, spied on for the dtype of the codes it reads",
    # kernels and the resampling core against slow references from the definitions
    "test_bootstrap.py": "the resampling core's weights, kernels and intervals against "
                         "references (Efron & Tibshirani's acceleration, multinomial law)",
    "test_binomial_interval.py": "the shared binomial interval against statsmodels' "
                                 "proportion_confint (no public name: every package's own)",
    "test_bracket.py": "the mixture bound's paths against the per-item posterior",
    "test_coefficients_properties.py": "coefficient kernels and per-item rows against the "
                                       "definitions (hypothesis)",
    "test_detection.py": "detection kernels, confident learning's steps and the keyed "
                         "Poisson weights against references",
    "test_instance_dependence.py": "instance-noise row kernels: serial and parallel builds, "
                                   "and without JIT",
    "test_bench_policies.py": "the policy benchmark puts cleanlab's ActiveLab in the replay "
                              "loop's place and must undo it",
    "test_first_run.py": "which kernel build (serial or parallel) a data size compiles, and "
                         "that both builds agree bit for bit",
    "test_krippendorff.py": "α from sums, counts and coincidences against published values",
    "test_krippendorff_properties.py": "α kernels against a reference (hypothesis)",
    "test_latent_class.py": "the E-step kernels' serial and parallel builds, the warning of "
                            "a degenerate fit",
    "test_item_difficulty.py": "the item-difficulty kernels (tables, posteriors, one E-step) "
                               "against a rating-by-rating reference from the definition",
    "test_noise_bound.py": "the posterior kernel path against the log-space sum; the "
                           "Cornish-Fisher backend (beyond 2**53) against the exact betainc "
                           "search where floats still hold the counts (the public bound uses "
                           "one of them, so only the private pair can be compared)",
    "test_noise_bound_posterior.py": "the hard-count posterior kernel against enumeration",
    "test_light_kappa.py": "Light's κ's triangle path forced (DENSE_MAX_PAIRS) against the "
                          "dense one",
    "test_variance.py": "the linearization (delta-method) SE at a coefficient's sums",
    "test_consistency.py": "replicates against the core's resamples recomputed by hand",
    "test_reliability.py": "replicates against refits on the core's resamples",
    "test_honest_posteriors.py": "the EM's held-out folds, the tempered posteriors, the "
                                 "temperature map and the reliability table against slow "
                                 "references from their definitions (steps inside the "
                                 "calibration check, whose result reports only their outcome)",
    "test_judge_ppi.py": "the posterior prevalence's influence function against its "
                         "definition (a step inside judge_estimate's SE; no result carries "
                         "the per-item values)",
    "test_docs.py": "which documented classes follow the result protocol (its base class), so "
                    "that each one's page is checked for the inherited methods",
    "test_study_size.py": "the closed forms' unrounded values (Cantor's n, Q0, Q1 and the FCE "
                          "unit variance at 1e-12; a plan prints n to two decimals) and the "
                          "simulation design's draws (no public function returns the labels)",
    "test_preferences_rank.py": "drop-k checked by brute force: the Bradley-Terry solver "
                                "(_bt) refitted on every subset of votes",
    "test_new_user_defects.py": "the wide reader's metadata-column check against its "
                                "pairwise definition, a study's estimate line at its "
                                "threshold, and the fit's hints in each verb's own options "
                                "(steps of the command line no public function returns)",
    # the shared private layer's own contract
    "test_kernel_cache.py": "the threads layer's serial/parallel builds and their caches",
    "test_progress.py": "the progress layer's switch",
    "test_result_protocol.py": "the Result base every result class derives from",
    "test_validation_vocabulary.py": "the shared validation vocabulary (and the judge's and "
                                     "the humans' columns it resolves for judge_estimate and "
                                     "judge_plan)",
    # a private setting of the shared layer and one whose only other effect is speed
    "test_dask.py": "the threads layer's parallel threshold (the data must exceed it for the "
                    "parallel kernels to run); the Dask reader's split size lowered so that "
                    "small data take the many-senders path (its only other effect is speed)",
}


def _private_imports(path: Path) -> set[str]:
    cli = ROOT / "goldnoise" / "_cli" / "__init__.py"
    cli_face = _declared_all(cli) or set()
    found: set[str] = set()

    def check(module: str, names: list[str]) -> None:
        parts = module.split(".")
        if parts[0] not in LAYERS:
            return
        if module == "goldnoise._cli" and set(names) <= cli_face:
            return
        if parts[0] == "_goldnoise_lib" or any(p.startswith("_") and not p.startswith("__")
                                               for p in parts):
            found.add(module)
            return
        found.update(f"{module}.{n}" for n in names if n.startswith("_")
                     and not n.startswith("__"))

    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name, [])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            check(node.module, [a.name for a in node.names])
    return found


def test_tests_import_public_names():
    # 33.6: tests use the public API except where private code is compared with a slow
    # reference (the list above says why for each file); a new private import must be
    # listed here, with its reason, or go through a public name.
    files = {p.name for p in (ROOT / "tests").glob("test_*.py") if _private_imports(p)}
    assert files == set(PRIVATE_IMPORTS_IN_TESTS)


def test_private_import_detector_sees_each_form(tmp_path):
    cases = {
        "from agreement._kernels import f\n": {"agreement._kernels"},
        "def t():\n    import noise_models.latent_class._em\n": {"noise_models.latent_class._em"},
        "from agreement import _secret\n": {"agreement._secret"},
        "from _goldnoise_lib import validation\n": {"_goldnoise_lib"},
        "from goldnoise._cli._main import VERBS\n": {"goldnoise._cli._main"},
        "from goldnoise._cli import main, VERBS\nfrom agreement import fleiss_kappa\n"
        "import goldnoise\nfrom goldnoise import __version__\n": set(),
    }
    for source, expected in cases.items():
        path = tmp_path / "test_x.py"
        path.write_text(source)
        assert _private_imports(path) == expected, source


def test_one_swap_test_and_the_judge_in_one_home():
    # the judge audit, from its ratings to its report, lives in noise_models.judge: one
    # function named swap_test in the codebase, no goldnoise._judge, and the command line's
    # judge verb computes nothing (no scipy.stats, no interval formula)
    defined = sorted(name for name, path in _all_modules().items()
                     for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, ast.FunctionDef) and node.name == "swap_test")
    assert defined == ["noise_models.judge._swap"]
    assert not (ROOT / "goldnoise" / "_judge").exists()
    cli = (ROOT / "goldnoise" / "_cli" / "judge.py").read_text()
    for formula in ("scipy", "beta.ppf", ".ppf(", "betaincinv", "proportion_confint",
                    "sqrt(", "bootstrap_rows"):
        assert formula not in cli, formula
    for name in ("judge_audit", "swap_test", "JudgeAuditResult", "SwapTestResult"):
        assert name in __import__("noise_models").__all__, name
