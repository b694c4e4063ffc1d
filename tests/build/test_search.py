"""The search index (``gpuguide.build.search``): Pagefind run on a built site writes one index per
language; when it cannot run, the build reports a problem with a fix instead of a traceback.

Only one test runs Pagefind itself (marked slow); the others replace the subprocess call."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.build import search
from gpuguide.build.search import build_search_index
from gpuguide.errors import Problems

INSTALL_HINT = "pip install 'pagefind[extended]'"


def _fake_run(monkeypatch: pytest.MonkeyPatch, outcome, calls: list[list[str]] | None = None) -> None:
    """``subprocess.run`` in the module answers ``outcome`` (a CompletedProcess, or raises it)."""
    def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        if calls is not None:
            calls.append(command)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome(command) if callable(outcome) else outcome

    monkeypatch.setattr(search.subprocess, "run", run)


@pytest.mark.parametrize("failure", [FileNotFoundError(2, "No such file or directory"),
                                     subprocess.TimeoutExpired(["pagefind"], 600)])
def test_a_pagefind_that_cannot_start_or_hangs_is_reported_with_the_fix(tmp_path: Path, monkeypatch, failure):
    _fake_run(monkeypatch, failure)
    problems = Problems(tmp_path)
    build_search_index(tmp_path / "site", problems)  # no exception: a problem
    assert len(problems.errors) == 1
    problem = problems.errors[0]
    assert (problem.path, problem.line) == ("data/site.yaml", 1)
    assert "search index could not be built" in problem.message and INSTALL_HINT in (problem.hint or "")


def test_a_failing_pagefind_is_reported_with_its_last_line_of_output(tmp_path: Path, monkeypatch):
    failed = subprocess.CompletedProcess([], 1, stdout="", stderr="Running Pagefind\nError: no pages found\n\n")
    _fake_run(monkeypatch, failed)
    problems = Problems(tmp_path)
    build_search_index(tmp_path / "site", problems)
    assert [p.message for p in problems.errors] == ["the search index could not be built: Error: no pages found"]


def test_a_failing_pagefind_that_says_nothing_is_still_reported(tmp_path: Path, monkeypatch):
    _fake_run(monkeypatch, subprocess.CompletedProcess([], 3, stdout="", stderr=""))
    problems = Problems(tmp_path)
    build_search_index(tmp_path / "site", problems)
    assert len(problems.errors) == 1 and problems.errors[0].message.endswith("Pagefind failed")


def test_pagefind_indexes_the_given_folder_and_its_entry_file_is_made_stable(tmp_path: Path, monkeypatch):
    """The languages of Pagefind's entry file come in hash-map order: they are sorted afterwards."""
    site = tmp_path / "site"
    calls: list[list[str]] = []

    def pagefind(command: list[str]) -> subprocess.CompletedProcess[str]:
        (site / "pagefind").mkdir(parents=True)
        entry = {"version": "1.5.2", "languages": {"fr": {"page_count": 2}, "en": {"page_count": 1}},
                 "include_characters": ["_", "‿"]}
        (site / "pagefind" / "pagefind-entry.json").write_text(json.dumps(entry, indent=2), encoding="utf-8")
        return subprocess.CompletedProcess(command, 0, stdout="", stderr="")

    _fake_run(monkeypatch, pagefind, calls)
    problems = Problems(tmp_path)
    build_search_index(site, problems)
    assert problems.items == []
    # Pagefind from this Python's environment (its wheel ships the binary), on that folder.
    [command] = calls
    assert command[:3] == [sys.executable, "-m", "pagefind"]
    assert command[command.index("--site") + 1] == str(site)
    text = (site / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data["languages"]) == ["en", "fr"]
    assert data["languages"]["fr"] == {"page_count": 2} and data["include_characters"] == ["_", "‿"]
    assert "‿" in text  # written as UTF-8 text, not \\u escapes


def test_a_pagefind_that_writes_no_entry_file_is_not_an_error(tmp_path: Path, monkeypatch):
    _fake_run(monkeypatch, subprocess.CompletedProcess([], 0, stdout="", stderr=""))
    problems = Problems(tmp_path)
    build_search_index(tmp_path / "site", problems)
    assert problems.items == []
    assert not (tmp_path / "site" / "pagefind").exists()


@pytest.mark.slow
def test_pagefind_writes_one_index_per_language_of_the_tiny_site(tiny_site: Path, tmp_path: Path):
    site = tmp_path / "site"
    shutil.copytree(tiny_site, site)  # the session's site stays as it was built
    problems = Problems(tmp_path)
    build_search_index(site, problems)
    assert problems.items == []
    entry = json.loads((site / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8"))
    # Only <main data-pagefind-body> is indexed, in the language of its page's <html lang>.
    indexed: dict[str, int] = {}
    for page in site.rglob("*.html"):
        soup = BeautifulSoup(page.read_bytes(), "lxml")
        if soup.find(attrs={"data-pagefind-body": True}) is not None:
            indexed[soup.html["lang"]] = indexed.get(soup.html["lang"], 0) + 1
    assert set(indexed) == {"fr", "en"}
    assert list(entry["languages"]) == sorted(indexed)
    assert {lang: info["page_count"] for lang, info in entry["languages"].items()} == indexed
    for lang in indexed:  # each language's own index, so results never mix languages
        assert list((site / "pagefind" / "index").glob(f"{lang}_*.pf_index")), lang
    assert (site / "pagefind" / "pagefind.js").is_file()


def test_the_problem_names_the_projects_settings_from_any_current_folder(tmp_path: Path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "site.yaml").write_text("base_url: https://example.com\n", encoding="utf-8")
    (tmp_path / "content").mkdir()
    monkeypatch.chdir(tmp_path / "content")  # an editor's shell in the content folder
    _fake_run(monkeypatch, FileNotFoundError(2, "No such file or directory"))
    problems = Problems(tmp_path)
    build_search_index(tmp_path / "site", problems)
    assert [p.path for p in problems.errors] == ["data/site.yaml"]


@pytest.mark.slow
def test_two_clean_builds_are_byte_identical_search_index_included(tmp_path: Path):
    """The README's promise, the search index included: Pagefind's filters and metadata come in
    hash-map order; sorted and renamed, two builds of the same input are the same bytes."""
    from sites import build, fingerprint, tiny_project

    sites = []
    for name in ("first", "second"):
        root = tiny_project(tmp_path / name)
        build(root, search=True)
        sites.append(fingerprint(root / "site"))
    assert any(path.startswith("pagefind/filter/") for path in sites[0])
    assert sites[0] == sites[1]
