"""The planner's programs kept across builds (``render.program_store``), on the tiny site: one per
language model and one for the GPU pages; a price edit or a GPU's figures edited build no program
again (the pages carry the GPU types' figures as the programs' inputs); a use case's title, which
every GPU page shows, builds none again; a damaged entry is built again, never used; a program no
page reads any more is removed. Each edited build is compared with a clean build of the same
inputs, byte for byte."""

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

    def counted(shape):  # type: ignore[no-untyped-def]
        made.append(repr(shape))
        return planner_page.model_program(shape)

    monkeypatch.setattr(program_store, "model_program", counted)
    return made


@pytest.fixture
def gpu_programs_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The GPU pages' programs a build computed (by the models they answer)."""
    made: list[str] = []

    def counted(models):  # type: ignore[no-untyped-def]
        made.append(",".join(model_id for model_id, _ in models))
        return planner_page.gpu_program_json(models)

    monkeypatch.setattr(program_store, "gpu_program_json", counted)
    return made


#: The tiny site's programs: one per language model (small-llm, big-llm; the image model has no
#: planner) and one for the GPU pages (card, big, old).
MODEL_PROGRAMS, GPU_PROGRAMS = 2, 1


def programs(root: Path) -> dict[str, int]:
    folder = root / ".build-cache" / program_store.FOLDER
    return {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}


def planner_data(root: Path, page: str = MODEL_PAGE) -> dict:
    soup = BeautifulSoup((root / "site" / page).read_text(encoding="utf-8"), "lxml")
    return json.loads(soup.find("script", id="planner-data").string)


def figures(root: Path, gpu: str) -> dict:
    """The inputs a model page's program runs with for ``gpu``."""
    return next(row["figures"] for row in planner_data(root)["rows"] if row["id"] == gpu)


def clean_site(root: Path, tmp_path: Path) -> dict[str, str]:
    clean = tiny_project(tmp_path / "clean")
    for name in ("prices.yaml", "gpus.yaml", "models.yaml"):
        (clean / "data" / name).write_bytes((root / "data" / name).read_bytes())
    build(clean)
    return fingerprint(clean / "site")


def test_one_program_per_language_model_and_a_price_edit_builds_none_again(built: Path, programs_built: list[str],
                                                                          gpu_programs_built: list[str],
                                                                          tmp_path: Path):
    before = programs(built)
    assert len(before) == MODEL_PROGRAMS + GPU_PROGRAMS
    assert figures(built, "card")["price"] == "1/2"
    assert planner_data(built, "en/gpus/card/index.html")["figures"]["price"] == "1/2"
    edit(built / "data" / "prices.yaml", "card: 0.5", "card: 0.65")
    outcome = build(built)
    assert outcome.rendered > 0 and programs_built == [] and gpu_programs_built == []
    assert programs(built) == before  # read back, not written again
    assert figures(built, "card")["price"] == "13/20"
    assert planner_data(built, "en/gpus/card/index.html")["figures"]["price"] == "13/20"
    assert fingerprint(built / "site") == clean_site(built, tmp_path)


def test_a_use_case_title_renders_the_gpu_pages_again_from_the_programs_kept(
        built: Path, programs_built: list[str], gpu_programs_built: list[str], tmp_path: Path):
    before = programs(built)
    edit(built / "content" / "en" / "training.md", 'title: "', 'title: "Renamed: ')
    outcome = build(built)
    assert outcome.rendered > 0
    assert programs_built == [] and gpu_programs_built == [] and programs(built) == before
    soup = BeautifulSoup((built / "site" / "en" / "gpus" / "card" / "index.html").read_text(encoding="utf-8"), "lxml")
    assert "Renamed: " in soup.get_text()  # the GPU page was rendered again, with the program read back
    assert planner_data(built, "en/gpus/card/index.html")["kind"] == "gpu"
    clean = tiny_project(tmp_path / "clean")
    edit(clean / "content" / "en" / "training.md", 'title: "', 'title: "Renamed: ')
    build(clean)
    assert fingerprint(built / "site") == fingerprint(clean / "site")


def test_a_damaged_program_is_built_again_and_never_used(built: Path, programs_built: list[str], tmp_path: Path):
    folder = built / ".build-cache" / program_store.FOLDER
    # A model's program (its rows have launch settings; a GPU's rows have none), kept as JSON text.
    damaged = next(path for path in sorted(folder.iterdir()) if b'\\"settings\\"' in path.read_bytes())
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x04  # inside the JSON: still JSON, but its checksum no longer matches
    damaged.write_bytes(bytes(data))
    edit(built / "data" / "prices.yaml", "card: 0.5", "card: 0.6")
    build(built)
    assert len(programs_built) == 1
    assert fingerprint(built / "site") == clean_site(built, tmp_path)


def test_a_gpus_figures_edited_build_no_program_again(built: Path, programs_built: list[str],
                                                      gpu_programs_built: list[str], tmp_path: Path):
    before = programs(built)
    gpus = (built / "data" / "gpus.yaml").read_text(encoding="utf-8")
    assert "memory_gb: 80" in gpus
    budget = figures(built, "big")["budget"]
    # The first GPU of 80 GB: its figures are the programs' inputs, on the pages.
    edit(built / "data" / "gpus.yaml", "memory_gb: 80", "memory_gb: 96")
    build(built)
    assert programs_built == [] and gpu_programs_built == [] and programs(built) == before
    assert figures(built, "big")["budget"] != budget
    assert fingerprint(built / "site") == clean_site(built, tmp_path)


def test_programs_no_page_reads_are_removed(built: Path, programs_built: list[str], tmp_path: Path):
    folder = built / ".build-cache" / program_store.FOLDER
    (folder / "0123456789abcdef").write_bytes(b"planted")
    before = programs(built)
    # A model's shape edited: its program is built again, the old one removed, as is the planted file.
    models = (built / "data" / "models.yaml").read_text(encoding="utf-8")
    assert "layers: 61" in models
    edit(built / "data" / "models.yaml", "layers: 61", "layers: 62")
    build(built)
    after = programs(built)
    assert len(after) == MODEL_PROGRAMS + GPU_PROGRAMS and "0123456789abcdef" not in after
    assert len(programs_built) == 1 and len(set(after) - set(before)) == 2  # the model's and the GPU pages'
    assert fingerprint(built / "site") == clean_site(built, tmp_path)
