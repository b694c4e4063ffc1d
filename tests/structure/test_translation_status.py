"""Translations: a report of missing and stale translations, and ``--stamp`` to record freshness."""

from __future__ import annotations

from pathlib import Path

import pytest

from sites import ROOT, tiny_project
from gpuguide.build.pipeline import Options, load
from gpuguide.project import Project
from gpuguide.structure.pages import body_hash
from gpuguide.structure.translation_status import translation_statuses
from sites import build_cli as run_build

# The command-line tests run on the tiny site (a check of the real one takes seconds each time).
EN_PAGE = "content/en/training.md"
FR_PAGE = "content/fr/entrainement.md"


def test_every_translation_in_the_project_is_up_to_date():
    site = load(Project(ROOT), Options(parallel=False))
    statuses = translation_statuses(site.library, site.dataset)
    assert statuses and {item.status for item in statuses} == {"up to date"}


def test_the_stamp_is_the_hash_of_the_source_body_and_the_translations_language():
    import hashlib

    site = load(Project(ROOT), Options(parallel=False))
    fr = site.library.find("use-case/llm-training", "fr")
    en = site.library.find("use-case/llm-training", "en")
    expected = hashlib.sha256(f"{body_hash(fr.body)}\0en".encode("utf-8")).hexdigest()[:len(body_hash(fr.body))]
    assert en.meta.translated_from == expected


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tiny_project(tmp_path)


def test_an_edited_source_makes_its_translation_stale(root: Path):
    source = root / FR_PAGE
    source.write_text(source.read_text(encoding="utf-8") + "\nUn paragraphe de plus.\n", encoding="utf-8")
    result = run_build(root, "translations")
    assert result.returncode == 0
    assert f"{EN_PAGE}: stale (source {FR_PAGE})" in result.stdout
    line = (root / EN_PAGE).read_text(encoding="utf-8").splitlines().index(
        next(l for l in (root / EN_PAGE).read_text(encoding="utf-8").splitlines() if l.startswith("translated_from:"))) + 1
    assert f"{EN_PAGE}:{line}:18: warning: this translation is older than its source {FR_PAGE}" in result.stderr
    assert result.stdout.strip().splitlines()[-1].split(", ", 1)[1].startswith("1 stale, 0 unknown freshness")
    strict = run_build(root, "--strict")
    assert strict.returncode == 1 and "older than its source" in strict.stderr
    assert not (root / "site").exists()
    assert run_build(root, "translations", "--strict").returncode == 1


def test_stamp_writes_only_the_translated_from_line(root: Path):
    page = root / EN_PAGE
    original = page.read_text(encoding="utf-8")
    page.write_text("".join(l for l in original.splitlines(keepends=True) if not l.startswith("translated_from:")),
                    encoding="utf-8")
    result = run_build(root, "check")
    assert "unknown freshness" in result.stderr and result.returncode == 0
    stamped = run_build(root, "translations", "--stamp", str(page))
    assert stamped.returncode == 0, stamped.stderr
    assert page.read_text(encoding="utf-8") == original  # back where it was, line for line
    # A stale stamp is rewritten in place.
    page.write_text(original.replace('translated_from: "', 'translated_from: "0000'), encoding="utf-8")
    assert "older than its source" in run_build(root, "check").stderr
    assert run_build(root, "translations", "--stamp", str(page)).returncode == 0
    assert page.read_text(encoding="utf-8") == original
    assert run_build(root, "check", "--strict").returncode == 0


def test_the_stamp_is_quoted_so_a_hash_of_digits_stays_a_string(root: Path):
    # One hash in a few hundred is made only of digits; unquoted, YAML would read it as a number.
    page = root / EN_PAGE
    assert 'translated_from: "' in page.read_text(encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    line = next(l for l in text.splitlines() if l.startswith("translated_from:"))
    page.write_text(text.replace(line, 'translated_from: "123456789012"'), encoding="utf-8")
    result = run_build(root, "check")
    assert result.returncode == 0 and "older than its source" in result.stderr


def test_stamping_a_source_page_is_refused(root: Path):
    result = run_build(root, "translations", "--stamp", str(root / FR_PAGE))
    assert result.returncode == 1 and "is a source, not a translation" in result.stderr
