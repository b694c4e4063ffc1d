"""What a page's rendering read (``render.reads``): the tracked views of the dataset and of a
language note each record and UI string handed out, and leave the shared dataset untouched."""

from __future__ import annotations

import pytest
from sites import tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.project import Project
from gpuguide.render.reads import (
    ALL,
    KEYS,
    TRACKED_TABLES,
    Reads,
    TrackedMapping,
    tracked_dataset,
    tracked_language,
)
from gpuguide.structure.language import MissingUiString


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The tiny site loaded once for this file (nothing rendered)."""
    root = tiny_project(tmp_path_factory.mktemp("reads") / "tiny")
    return load(Project(root), Options(search=False, parallel=False))


def _mapping() -> tuple[TrackedMapping[int], Reads]:
    reads = Reads()
    return TrackedMapping("gpus", {"a": 1, "b": 2}, reads), reads


def test_reads_start_empty_and_note_pairs_once() -> None:
    reads = Reads()
    assert reads.keys == set()
    reads.note("gpus", "a")
    reads.note("gpus", "a")
    reads.note("prices", "a")
    assert reads.keys == {("gpus", "a"), ("prices", "a")}


def test_reading_one_record_notes_only_that_record() -> None:
    mapping, reads = _mapping()
    assert mapping["a"] == 1
    assert reads.keys == {("gpus", "a")}


def test_a_missing_record_is_noted_too() -> None:
    # A page that looked for a record that does not exist depends on it: adding it must re-render the page.
    mapping, reads = _mapping()
    with pytest.raises(KeyError):
        mapping["zzz"]
    assert "yyy" not in mapping
    assert mapping.get("xxx") is None
    assert reads.keys == {("gpus", "zzz"), ("gpus", "yyy"), ("gpus", "xxx")}


def test_listing_ids_notes_the_ids_not_the_records() -> None:
    mapping, reads = _mapping()
    assert list(mapping) == ["a", "b"]
    assert len(mapping) == 2
    assert list(mapping.keys()) == ["a", "b"]
    assert reads.keys == {("gpus", KEYS)}


def test_reading_every_record_notes_all() -> None:
    for read in (lambda m: dict(m.items()), lambda m: list(m.values())):
        mapping, reads = _mapping()
        read(mapping)
        assert reads.keys == {("gpus", ALL)}


def test_a_tracked_mapping_is_read_only() -> None:
    mapping, _ = _mapping()
    with pytest.raises(TypeError):
        mapping["c"] = 3  # type: ignore[index]


def test_the_tracked_dataset_wraps_every_tracked_table(site: Site) -> None:
    reads = Reads()
    tracked = tracked_dataset(site.dataset, reads)
    for name in TRACKED_TABLES:
        view = getattr(tracked, name)
        assert isinstance(view, TrackedMapping) and view.name == name
        assert dict(view.data) == dict(getattr(site.dataset, name))
    assert tracked.config == site.dataset.config  # the rest is shared as it is


def test_the_tracked_dataset_notes_records_and_prices(site: Site) -> None:
    reads = Reads()
    tracked = tracked_dataset(site.dataset, reads)
    assert tracked.gpus["big"].model == "Big"
    assert tracked.price("big").usd_per_gpu_hour == 2.88  # data/prices.yaml
    assert tracked.price("pcie") is None  # no offer: still a read (an offer added later shows up)
    assert tracked.llm_models["small-llm"].name == "Small LLM"
    assert reads.keys == {("gpus", "big"), ("prices", "big"), ("prices", "pcie"), ("llm_models", "small-llm")}


def test_the_shared_dataset_is_left_untouched(site: Site) -> None:
    reads = Reads()
    tracked_dataset(site.dataset, reads)
    for name in TRACKED_TABLES:
        assert not isinstance(getattr(site.dataset, name), TrackedMapping)
    # Reading the shared dataset notes nothing anywhere.
    site.dataset.gpus["card"]
    assert reads.keys == set()


def test_two_views_note_into_their_own_reads(site: Site) -> None:
    first, second = Reads(), Reads()
    tracked_dataset(site.dataset, first).gpus["big"]
    tracked_dataset(site.dataset, second).gpus["card"]
    assert first.keys == {("gpus", "big")} and second.keys == {("gpus", "card")}


def test_the_tracked_language_notes_ui_strings_by_language(site: Site) -> None:
    reads = Reads()
    fr = tracked_language(site.languages["fr"], reads)
    en = tracked_language(site.languages["en"], reads)
    assert fr.ui("nav_home") == "Accueil"  # data/ui/fr.yaml
    assert en.ui("nav_home") == "Home"
    assert en.name == "English"
    assert reads.keys == {("ui-fr", "nav_home"), ("ui-en", "nav_home"), ("ui-en", "language_name")}
    assert fr.code == "fr" and fr.locale == site.languages["fr"].locale


def test_a_missing_ui_string_is_still_an_error_and_a_read(site: Site) -> None:
    reads = Reads()
    language = tracked_language(site.languages["en"], reads)
    with pytest.raises(MissingUiString):
        language.ui("no_such_string")
    assert ("ui-en", "no_such_string") in reads.keys
    assert not isinstance(site.languages["en"].strings, TrackedMapping)

