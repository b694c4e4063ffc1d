"""Problems as the editor reads them: ``path:line:column: severity: message (hint)``, paths relative to
the project, every problem at once in a stable order, warnings failing only under ``--strict``, and
"did you mean" hints for typos."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpuguide.errors import BuildFailed, Problem, Problems, did_you_mean

# --- Problem: one line per problem ----------------------------------------------------------------

def test_a_problem_prints_its_place_severity_message_and_hint():
    problem = Problem("content/fr/a.md", 3, 7, "unknown field `titel`", "did you mean `title`?")
    assert str(problem) == "content/fr/a.md:3:7: error: unknown field `titel` (did you mean `title`?)"


def test_a_problem_without_a_hint_has_no_parentheses():
    assert str(Problem("data/gpus.yaml", 1, 1, "bad")) == "data/gpus.yaml:1:1: error: bad"
    # An empty hint says nothing either: no "()" at the end of the line.
    assert str(Problem("data/gpus.yaml", 1, 1, "bad", "")) == "data/gpus.yaml:1:1: error: bad"


def test_a_warning_says_so():
    problem = Problem("content/en/a.md", 2, 18, "stale", "stamp it", "warning")
    assert str(problem) == "content/en/a.md:2:18: warning: stale (stamp it)"


def test_a_problem_is_immutable_and_hashable():
    problem = Problem("a.md", 1, 1, "m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.line = 2  # type: ignore[misc]
    assert len({problem, Problem("a.md", 1, 1, "m")}) == 1  # equal problems are one


def test_problems_sort_by_file_then_line_then_column_as_numbers():
    # Lines and columns compare as numbers: line 9 comes before line 10 (not as text "10" < "9").
    problems = [Problem("b.md", 1, 1, "x"), Problem("a.md", 10, 1, "x"), Problem("a.md", 9, 5, "x"),
                Problem("a.md", 9, 12, "x")]
    assert [(p.path, p.line, p.column) for p in sorted(problems)] == [
        ("a.md", 9, 5), ("a.md", 9, 12), ("a.md", 10, 1), ("b.md", 1, 1)]


# --- BuildFailed: every problem, each once, in order -------------------------------------------------

def test_build_failed_carries_every_problem_sorted_and_each_once():
    late, early = Problem("b.md", 2, 1, "late"), Problem("a.md", 5, 1, "early")
    # Generated pages share a source file: the same problem reported twice is printed once.
    failure = BuildFailed([late, early, late])
    assert failure.problems == [early, late]
    assert str(failure) == "a.md:5:1: error: early\nb.md:2:1: error: late"


# --- Problems: collecting, relative paths --------------------------------------------------------------

def test_paths_are_named_relative_to_the_project_root(tmp_path: Path):
    problems = Problems(tmp_path)
    problems.error(tmp_path / "content" / "fr" / "a.md", 4, 2, "broken", "fix it")
    assert problems.items == [Problem("content/fr/a.md", 4, 2, "broken", "fix it", "error")]


def test_a_relative_path_is_taken_from_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path / "..")
    problems = Problems(tmp_path)
    assert problems.relative(Path(tmp_path.name) / "data" / "site.yaml") == "data/site.yaml"


def test_a_path_outside_the_project_is_kept_as_given(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "elsewhere" / "x.md"
    assert Problems(root).relative(outside) == outside.as_posix()
    # A sibling whose name starts like the root's is outside too ("project-old" is not in "project").
    assert Problems(root).relative(tmp_path / "project-old" / "x.md") == (tmp_path / "project-old" / "x.md").as_posix()


def test_a_symbolic_link_in_the_project_is_named_where_it_is(tmp_path: Path):
    root, target = tmp_path / "project", tmp_path / "shared"
    (root / "content").mkdir(parents=True)
    target.mkdir()
    (root / "content" / "fr").symlink_to(target, target_is_directory=True)
    # Not resolved to ../shared/a.md: the editor knows the file by the link's name.
    assert Problems(root).relative(root / "content" / "fr" / "a.md") == "content/fr/a.md"


def test_a_root_reached_through_a_symbolic_link_still_gives_relative_paths(tmp_path: Path):
    real = tmp_path / "real"
    (real / "data").mkdir(parents=True)
    (real / "data" / "gpus.yaml").write_text("[]\n", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    # The root given by the link, the file by its real path: both resolved, the path is relative.
    assert Problems(link).relative(real / "data" / "gpus.yaml") == "data/gpus.yaml"


def test_errors_and_warnings_are_told_apart(tmp_path: Path):
    problems = Problems(tmp_path)
    problems.warning(tmp_path / "a.md", 1, 1, "w")
    problems.error(tmp_path / "b.md", 2, 3, "e", "h")
    assert [p.message for p in problems.errors] == ["e"]
    assert [p.message for p in problems.warnings] == ["w"]
    assert [p.severity for p in problems.items] == ["warning", "error"]  # kept in the order reported


# --- raise_if_errors: warnings fail only when strict ------------------------------------------------------

def test_nothing_reported_raises_nothing(tmp_path: Path):
    Problems(tmp_path).raise_if_errors()
    Problems(tmp_path).raise_if_errors(strict=True)


def test_warnings_alone_pass_unless_strict(tmp_path: Path):
    problems = Problems(tmp_path)
    problems.warning(tmp_path / "a.md", 1, 1, "stale")
    problems.raise_if_errors()  # a warning is not an error
    with pytest.raises(BuildFailed) as failed:
        problems.raise_if_errors(strict=True)
    assert [p.message for p in failed.value.problems] == ["stale"]


def test_errors_raise_with_every_error_but_warnings_only_when_strict(tmp_path: Path):
    problems = Problems(tmp_path)
    problems.error(tmp_path / "b.md", 1, 1, "second file")
    problems.warning(tmp_path / "a.md", 1, 1, "a warning")
    problems.error(tmp_path / "a.md", 7, 1, "first file")
    with pytest.raises(BuildFailed) as failed:
        problems.raise_if_errors()
    assert [str(p) for p in failed.value.problems] == ["a.md:7:1: error: first file", "b.md:1:1: error: second file"]
    with pytest.raises(BuildFailed) as strictly:
        problems.raise_if_errors(strict=True)
    assert [p.message for p in strictly.value.problems] == ["a warning", "first file", "second file"]


# --- did_you_mean ------------------------------------------------------------------------------------------

def test_a_typo_gets_the_closest_choice():
    assert did_you_mean("titel", ["slug", "title", "layout"]) == "did you mean `title`?"
    assert did_you_mean("bf61", {"bf16", "fp8", "fp32"}) == "did you mean `bf16`?"  # any iterable


def test_the_closest_of_several_similar_choices_wins():
    assert did_you_mean("train_8gpus", ["train_1gpu", "train_8gpu", "lora_1gpu"]) == "did you mean `train_8gpu`?"


def test_no_hint_when_nothing_is_close():
    assert did_you_mean("zzzz", ["title", "slug"]) is None
    assert did_you_mean("title", []) is None
