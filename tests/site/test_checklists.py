"""The README's checklists, followed step by step on the tiny site: add a GPU, add a model, add a
language. Each step is what the README says, and what the build then says is checked too."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpuguide.errors import BuildFailed
from sites import ROOT, build, build_cli, tiny_project

README = (ROOT / "README.md").read_text(encoding="utf-8")


def checklist(name: str) -> str:
    match = re.search(rf"\*\*{re.escape(name)}\.\*\* (.*?)(?:\n\n|\Z)", README, re.S)
    assert match, name
    return match.group(1)


@pytest.fixture
def tiny_root(tmp_path: Path) -> Path:
    return tiny_project(tmp_path / "tiny")


def test_add_a_gpu_is_one_data_entry_and_its_price(tiny_root: Path):
    steps = checklist("Add a GPU")
    assert "data/gpus.yaml" in steps and "data/prices.yaml" in steps
    gpus = tiny_root / "data" / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    big = text[text.index("  - id: big"):text.index("  - id: pcie")]
    gpus.write_text(text + big.replace("id: big", "id: bigger").replace("model: Big", "model: Bigger")
                    .replace("memory_gb: 80", "memory_gb: 141"), encoding="utf-8")
    prices = tiny_root / "data" / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8").rstrip("\n") + "\n  bigger: 3.5\n", encoding="utf-8")
    build(tiny_root)
    site = tiny_root / "site"
    assert (site / "fr" / "gpu" / "bigger" / "index.html").is_file()
    assert "Bigger" in (site / "en" / "gpus" / "index.html").read_text(encoding="utf-8")
    assert list(site.glob("fr/comparer/*bigger*/index.html"))


def test_add_a_model_is_one_data_entry(tiny_root: Path):
    assert "data/models.yaml" in checklist("Add a model")
    models = tiny_root / "data" / "models.yaml"
    text = models.read_text(encoding="utf-8")
    small = text[text.index("  - id: small-llm"):text.index("  - id: big-llm")]
    models.write_text(text.replace("  - id: big-llm", small.replace("id: small-llm", "id: other-llm")
                                   .replace("name: Small LLM", "name: Other LLM") + "  - id: big-llm", 1),
                      encoding="utf-8")
    build(tiny_root)
    assert (tiny_root / "site" / "en" / "models" / "other-llm" / "index.html").is_file()


def test_add_a_language_step_by_step(tiny_root: Path):
    steps = checklist("Add a language")
    assert "data/site.yaml" in steps and "data/ui/<code>.yaml" in steps and "content/<code>/" in steps
    # (1) The language in data/site.yaml: the build says which UI file to make, and nothing else.
    site_yaml = tiny_root / "data" / "site.yaml"
    site_yaml.write_text(site_yaml.read_text(encoding="utf-8").replace("  en: {locale: en_US}",
                                                                       "  en: {locale: en_US}\n  de: {locale: de_DE}"),
                         encoding="utf-8")
    with pytest.raises(BuildFailed) as failure:
        build(tiny_root)
    assert [p.message for p in failure.value.problems] == ["no UI strings for the language `de`"]
    # (2) The UI strings: now the pages to translate, named in one problem.
    shutil.copy(tiny_root / "data" / "ui" / "fr.yaml", tiny_root / "data" / "ui" / "de.yaml")
    (tiny_root / "content" / "de").mkdir()
    with pytest.raises(BuildFailed) as failure:
        build(tiny_root)
    [problem] = failure.value.problems
    assert problem.message.startswith("`de` lacks ") and "content/fr/index.md (home)" in problem.message
    # (3) The pages, copied from another language before translating: the site builds, and every
    # copied page is stale (its stamp is the other language's), none up to date.
    for page in sorted((tiny_root / "content" / "en").rglob("*.md")):
        target = tiny_root / "content" / "de" / page.relative_to(tiny_root / "content" / "en")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, target)
    outcome = build(tiny_root)
    assert (tiny_root / "site" / "de" / "index.html").is_file()
    report = build_cli(tiny_root, "translations")
    assert report.returncode == 0, report.stderr
    german = [line for line in report.stdout.splitlines() if line.startswith("content/de/")]
    assert german and all(": stale" in line or ": unknown freshness" in line for line in german), german
    assert any("content/de/" in str(warning) for warning in outcome.warnings)
    # (4) Stamped once translated: up to date.
    stamped = build_cli(tiny_root, "translations", "--stamp", "content/de/training.md")
    assert stamped.returncode == 0, stamped.stderr
    assert "content/de/training.md: up to date" in build_cli(tiny_root, "translations").stdout
