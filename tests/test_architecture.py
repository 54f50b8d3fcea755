"""The import layering ARCHITECTURE.md draws holds, and no two of scbench's modules import each other in a
circle (grimp reads every import, those inside functions and ``TYPE_CHECKING`` blocks included)."""

import graphlib
import subprocess
import sys
from pathlib import Path

import grimp

from conftest import ROOT


def test_the_import_contract_of_pyproject_is_kept():
    checked = subprocess.run([Path(sys.executable).with_name("lint-imports"), "--no-cache"], cwd=ROOT,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout[-3000:]


def test_no_module_of_scbench_is_in_an_import_circle():
    graph = grimp.build_graph("scbench", cache_dir=None)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    try:
        tuple(graphlib.TopologicalSorter(imports).static_order())
    except graphlib.CycleError as error:
        raise AssertionError(f"import circle: {' imports '.join(reversed(error.args[1]))}") from None
