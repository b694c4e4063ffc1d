"""The collection guard: every test function written under tests/ is collected by pytest.

pytest skips folders named build, dist, venv… by default (``norecursedirs``) and a file that fails to
import is an error, not a test: either way tests vanish without a failure. This compares the test
functions found in the files (by reading their syntax) with what ``pytest --collect-only`` lists.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path


def written_tests(tests_dir: Path) -> Counter[str]:
    """Test functions per file (``test_*`` at module level and in ``Test*`` classes), keyed by the
    file's path relative to the project (tests_dir's parent), in POSIX form."""
    found: Counter[str] = Counter()
    for path in sorted(tests_dir.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        key = path.relative_to(tests_dir.parent).as_posix()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                found[key] += 1
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                found[key] += sum(1 for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                                  and item.name.startswith("test"))
        found.setdefault(key, 0)
    return found


def collected_tests(root: Path) -> tuple[Counter[str], str]:
    """Collected items per file as ``pytest --collect-only`` run in *root* lists them, and pytest's
    output when collection failed (empty when it succeeded)."""
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False)
    items: Counter[str] = Counter()
    for line in process.stdout.splitlines():
        if "::" in line:
            items[line.split("::", 1)[0]] += 1
    # Exit 5 is "no tests collected": the comparison says which files that leaves out.
    return items, "" if process.returncode in (0, 5) else process.stdout + process.stderr


def uncollected(root: Path) -> list[str]:
    """Every file under root/tests with fewer collected items than test functions written in it, as
    ``path: collected N of M``; a collection error is one entry with pytest's output."""
    written = written_tests(root / "tests")
    items, failure = collected_tests(root)
    missing = [f"{path}: collected {items[path]} of {count}"
               for path, count in sorted(written.items()) if items[path] < count]
    if failure:
        missing.append(f"pytest --collect-only failed:\n{failure}")
    return missing
