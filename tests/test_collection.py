"""pytest collects every test written under tests/, and the guard that says so can fail."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from collection import uncollected, written_tests
from sites import ROOT


@pytest.mark.slow  # collects the whole suite in a second pytest
def test_every_test_written_under_tests_is_collected():
    assert uncollected(ROOT) == []
    assert "tests/build/test_publish.py" in written_tests(ROOT / "tests")


def _project_with(tmp_path: Path, pyproject: str, tests: dict[str, str]) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for name, text in tests.items():
        path = root / "tests" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


TWO_TESTS = "def test_one():\n    pass\n\n\nclass TestGroup:\n    def test_two(self):\n        pass\n"


def test_the_guard_fails_when_pytest_skips_a_folder_named_build_by_default(tmp_path: Path):
    # pytest's own default norecursedirs, as this project had before it set its own.
    root = _project_with(tmp_path, '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                         {"build/test_publish.py": TWO_TESTS, "figures/test_sizing.py": TWO_TESTS})
    assert uncollected(root) == ["tests/build/test_publish.py: collected 0 of 2"]


def test_the_guard_fails_when_the_real_configuration_skips_a_renamed_folder(tmp_path: Path):
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    root = _project_with(tmp_path, pyproject, {".build/test_publish.py": TWO_TESTS})
    shutil.copy(ROOT / "tests" / "conftest.py", root / "tests" / "conftest.py")
    for helper in ("sites.py", "scaled_site.py"):
        shutil.copy(ROOT / "tests" / helper, root / "tests" / helper)
    assert uncollected(root) == ["tests/.build/test_publish.py: collected 0 of 2"]


def test_the_guard_reports_a_file_that_fails_to_import(tmp_path: Path):
    root = _project_with(tmp_path, '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                         {"test_broken.py": "import no_such_module_here\n\n" + TWO_TESTS})
    problems = uncollected(root)
    assert problems[0] == "tests/test_broken.py: collected 0 of 2"
    assert "no_such_module_here" in problems[1]
