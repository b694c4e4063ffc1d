"""The house rules of the package, checked on its source with the standard library's parser:
modules short enough to read, named once, without import cycles, with docstrings that name only
what exists; and tests that never import the benchmark's scripts."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from sites import ROOT

PACKAGE = ROOT / "gpuguide"
MAX_LINES = 350


def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (``gpuguide.build.pipeline``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _top_level_imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports when it is imported: module-level imports,
    not those inside functions (lazy on purpose) nor under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    imported: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names if alias.name in known)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    if f"{base}.{alias.name}" in known:
                        imported.add(f"{base}.{alias.name}")
                    elif base in known:
                        imported.add(base)

    visit(tree.body)
    return imported - {module}


def test_no_module_is_longer_than_the_limit():
    long = {str(path.relative_to(ROOT)): lines for path in _modules().values()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_every_module_name_is_used_once_across_the_packages():
    names = Counter(path.name for path in _modules().values() if path.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []


def test_the_package_has_no_import_cycle():
    modules = _modules()
    graph = {name: _top_level_imports(name, path, set(modules)) for name, path in modules.items()}
    # A package's __init__ importing its own modules is no cycle: Python imports the package first.
    cycles = []
    state: dict[str, int] = {}

    def walk(name: str, stack: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*stack[stack.index(target):], target]))
            elif target not in state:
                walk(target, [*stack, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert cycles == []


#: A reference to one of the package's modules in a docstring: ``build.pipeline``, ``gpuguide.cached``
#: (not the command ``build.py``).
_REFERENCE = re.compile(r"``((?:gpuguide\.)?(?:build|commands|figures|markdown|render|structure)\.(?!py\b)[a-z_]+)"
                        r"|``gpuguide\.([a-z_]+)``")


def test_docstrings_name_only_modules_that_exist():
    modules = set(_modules())
    missing = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in [tree, *ast.walk(tree)]:
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for match in _REFERENCE.finditer(ast.get_docstring(node) or ""):
                reference = match.group(1) or f"gpuguide.{match.group(2)}"
                dotted = reference if reference.startswith("gpuguide.") else f"gpuguide.{reference}"
                if dotted not in modules:
                    missing.append(f"{path.relative_to(ROOT)}: {reference}")
    assert sorted(set(missing)) == []


def test_the_tests_never_import_the_benchmark():
    importing = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name == "bench" or name.startswith("bench.") or name == "corpus" for name in names):
                importing.append(str(path.relative_to(ROOT)))
        # Loaded from its file, or its folder put on the import path (running it as a script is no import).
        if re.search(r"spec_from_file_location\([^)]*bench|sys\.path\.\w+\([^)]*bench", text):
            importing.append(str(path.relative_to(ROOT)))
    assert sorted(set(importing)) == []


def test_the_rules_find_what_they_look_for(tmp_path: Path):
    """The reference pattern and the import reader are not vacuous."""
    assert _REFERENCE.search("see ``build.rebuild``").group(1) == "build.rebuild"
    assert _REFERENCE.search("the ``gpuguide.pickled`` module").group(2) == "pickled"
    assert _REFERENCE.search("run ``build.py check``") is None
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nimport gpuguide.a\nfrom gpuguide import b\n"
                      "if TYPE_CHECKING:\n    from gpuguide import c\n"
                      "def f():\n    from gpuguide import d\n", encoding="utf-8")
    known = {"gpuguide.a", "gpuguide.b", "gpuguide.c", "gpuguide.d", "gpuguide"}
    assert _top_level_imports("gpuguide.m", module, known) == {"gpuguide.a", "gpuguide.b"}
