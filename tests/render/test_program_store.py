"""The planner's programs kept across builds (``render.program_store``), on the tiny site: a price
edit builds none again and the pages carry the new price as the program's input; a damaged entry is
built again, never used; a program no model reads any more is removed. Each edited build is
compared with a clean build of the same inputs, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sites import build, edit, fingerprint, tiny_project

from gpuguide.figures import planner_page
from gpuguide.render import program_store

MODEL_PAGE = "en/models/big-llm/index.html"


@pytest.fixture
def built(tmp_path: Path) -> Path:
    root = tiny_project(tmp_path / "tiny")
    build(root)
    return root


@pytest.fixture
def programs_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The models whose program a build computed (instead of reading it back)."""
    made: list[str] = []

    def counted(shape, offers):  # type: ignore[no-untyped-def]
        made.append(repr(shape))
        return planner_page.model_program(shape, offers)

    monkeypatch.setattr(program_store, "model_program", counted)
    return made


def programs(root: Path) -> dict[str, int]:
    folder = root / ".build-cache" / program_store.FOLDER
    return {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}


def planner_data(root: Path, page: str = MODEL_PAGE) -> dict:
    soup = BeautifulSoup((root / "site" / page).read_text(encoding="utf-8"), "lxml")
    return json.loads(soup.find("script", id="planner-data").string)


def clean_site(root: Path, tmp_path: Path) -> dict[str, str]:
    clean = tiny_project(tmp_path / "clean")
    for name in ("prices.yaml", "gpus.yaml"):
        (clean / "data" / name).write_bytes((root / "data" / name).read_bytes())
    build(clean)
    return fingerprint(clean / "site")


def test_one_program_per_language_model_and_a_price_edit_builds_none_again(built: Path, programs_built: list[str],
                                                                          tmp_path: Path):
    before = programs(built)
    assert len(before) == 2  # small-llm and big-llm; the image model has no planner
    assert planner_data(built)["prices"]["price:card"] == "1/2"
    edit(built / "data" / "prices.yaml", "card: 0.5", "card: 0.65")
    outcome = build(built)
    assert outcome.rendered > 0 and programs_built == []
    assert programs(built) == before  # read back, not written again
    assert planner_data(built)["prices"]["price:card"] == "13/20"
    assert fingerprint(built / "site") == clean_site(built, tmp_path)


def test_a_damaged_program_is_built_again_and_never_used(built: Path, programs_built: list[str], tmp_path: Path):
    folder = built / ".build-cache" / program_store.FOLDER
    damaged = sorted(folder.iterdir())[0]
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x04  # inside the JSON: still JSON, but its checksum no longer matches
    damaged.write_bytes(bytes(data))
    edit(built / "data" / "prices.yaml", "card: 0.5", "card: 0.6")
    build(built)
    assert len(programs_built) == 1
    assert fingerprint(built / "site") == clean_site(built, tmp_path)


def test_programs_no_model_reads_are_removed(built: Path, tmp_path: Path):
    folder = built / ".build-cache" / program_store.FOLDER
    (folder / "0123456789abcdef").write_bytes(b"planted")
    before = programs(built)
    gpus = (built / "data" / "gpus.yaml").read_text(encoding="utf-8")
    assert "memory_gb: 80" in gpus
    edit(built / "data" / "gpus.yaml", "memory_gb: 80", "memory_gb: 96")  # every program reads it
    build(built)
    after = programs(built)
    assert len(after) == 2 and not set(after) & set(before)
    assert fingerprint(built / "site") == clean_site(built, tmp_path)
