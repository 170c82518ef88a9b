"""The packages load their public names at first use (PEP 562, ``_goldnoise_lib.lazy``).

``import goldnoise`` must not import the modules below the package ``__init__``s
(issue 34: ``import goldnoise`` ≤ 1.1 × ``import pandas``); ``__all__``, ``dir()``,
``from package import *`` and ``from package import name`` behave as with eager imports,
and a public name that is also the name of a subpackage (``simulation.crosscheck``, the
function, and its subpackage) stays the public object whichever is imported first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agreement", "noise_models", "simulation", "goldnoise")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    return done.stdout.strip().splitlines()[-1]


def test_import_goldnoise_loads_no_module_below_the_package_inits():
    code = ("import sys, json; import goldnoise\n"
            "mods = sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'agreement', 'noise_models', 'simulation', 'goldnoise'})\n"
            "print(json.dumps([mods, [m for m in ('numpy', 'pandas', 'numba', 'scipy') "
            "if m in sys.modules]]))")
    modules, heavy = json.loads(_run(code))
    assert modules == ["agreement", "goldnoise", "noise_models", "simulation"]
    assert heavy == []


def test_a_name_loads_its_module_only():
    code = ("import sys; import agreement\n"
            "agreement.named_weights\n"
            "print(sorted(m for m in sys.modules if m.startswith(('agreement', "
            "'noise_models', 'simulation'))))")
    loaded = eval(_run(code))  # a printed list of module names
    assert "agreement._weights" in loaded
    assert not any(m.startswith(("noise_models.", "simulation.", "agreement.spans"))
                   for m in loaded)


@pytest.mark.parametrize("package", PACKAGES)
def test_dir_and_star_import_list_every_public_name(package):
    code = (f"import {package} as p\n"
            "ns = {}\n"
            f"exec('from {package} import *', ns)\n"
            "print(sorted(set(p.__all__) - set(dir(p))), sorted(set(p.__all__) - set(ns)))")
    assert _run(code) == "[] []"


def test_unknown_names_raise_attribute_error():
    import agreement

    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        agreement.not_a_name  # noqa: B018
    assert not hasattr(agreement, "not_a_name")


@pytest.mark.parametrize("first", ["import simulation.crosscheck._crosscheck",
                                   "import simulation"])
def test_a_function_named_like_its_subpackage_stays_the_function(first):
    # simulation.crosscheck is the function, simulation.crosscheck (the subpackage) its
    # home; importing the subpackage first must not put the module in the function's place.
    code = (f"{first}\n"
            "import types, simulation, goldnoise\n"
            "from simulation import crosscheck\n"
            "print(all(callable(f) and not isinstance(f, types.ModuleType) for f in "
            "(simulation.crosscheck, crosscheck, goldnoise.crosscheck)))")
    assert _run(code) == "True"


def test_every_package_init_is_lazy():
    # Each public package __init__ declares its names in its `if TYPE_CHECKING:` block and
    # attaches lazy_package; names imported outside it would load eagerly. (goldnoise's
    # private packages and goldnoise.dask, an extra imported on request, are not re-exported.)
    import ast

    inits = [ROOT / "goldnoise" / "__init__.py", *(p for pkg in PACKAGES[:3]
                                                 for p in (ROOT / pkg).rglob("__init__.py"))]
    eager = {}
    for init in sorted(inits):
        tree = ast.parse(init.read_text())
        top = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 0
               and n.module.split(".")[0] in PACKAGES
               and [a.name for a in n.names] not in (["__all__"], ["__version__"])]
        if top:
            eager[str(init.relative_to(ROOT))] = [n.module for n in top]
    assert eager == {}
