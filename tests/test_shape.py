"""The package's shape: folders a reader takes in at a glance, functions read at once, and
no module reaching into another's private names.

Read from the source with ``ast``. Numba kernels are exempt from the size rules: a
compiled loop takes its arrays one by one and is written out for the compiler.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ggpkit

PACKAGE_DIR = Path(ggpkit.__file__).parent

MAX_MODULES = 15
"""Python modules directly in one folder (``cli/`` holds one module per command)."""
MODULE_COUNT_EXEMPT = {PACKAGE_DIR / "cli"}
MAX_LINES = 100
MAX_PARAMETERS = 10
KERNEL_DECORATORS = ("njit", "jit", "kernel", "njit_no_refcounts", "intrinsic")


def _is_kernel(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in KERNEL_DECORATORS:
            return True
    return False


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = function.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(named) + (args.vararg is not None) + (args.kwarg is not None)
    if named and named[0].arg in ("self", "cls"):
        count -= 1
    return count


def _label(path: Path) -> str:
    return (
        str(path.relative_to(PACKAGE_DIR.parent)) if path.is_relative_to(PACKAGE_DIR) else path.name
    )


def _function_problems(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or _is_kernel(node):
            continue
        where = f"{_label(path)}:{node.lineno} {node.name}"
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        if lines > MAX_LINES:
            out.append(f"{where}: {lines} lines")
        if _parameters(node) > MAX_PARAMETERS:
            out.append(f"{where}: {_parameters(node)} parameters")
    return out


def _private_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ggpkit"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.endswith("__"):
                    out.append(f"{_label(path)}: {alias.name}")
    return out


def _sources() -> list[Path]:
    return sorted(PACKAGE_DIR.rglob("*.py"))


def test_no_folder_holds_more_than_fifteen_modules() -> None:
    crowded = []
    for folder in sorted({p.parent for p in _sources()} - MODULE_COUNT_EXEMPT):
        count = len(list(folder.glob("*.py")))
        if count > MAX_MODULES:
            crowded.append(f"{folder.relative_to(PACKAGE_DIR.parent)}: {count}")
    assert crowded == []


def test_functions_are_short_and_take_few_parameters() -> None:
    assert [problem for path in _sources() for problem in _function_problems(path)] == []


def test_no_module_imports_a_private_name() -> None:
    assert [problem for path in _sources() for problem in _private_imports(path)] == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    probe.write_text(
        "from ggpkit.games.api import _hidden\n"
        "from numba import njit\n"
        "def wide(a, b, c, d, e, f, g, h, i, j, k):\n    pass\n"
        f"def long():\n{body}\n"
        "@njit(cache=True)\n"
        f"def kernel(a, b, c, d, e, f, g, h, i, j, k):\n{body}\n",
        encoding="utf-8",
    )
    problems = _function_problems(probe)
    private = _private_imports(probe)
    assert [p.split(" ", 1)[1] for p in problems] == [
        "wide: 11 parameters",
        f"long: {MAX_LINES + 1} lines",
    ]
    assert private == ["probe.py: _hidden"]
