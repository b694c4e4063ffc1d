"""Loading pages with the content cache: an unchanged file is not parsed again, an edited one is;
a broken file is reported with its file and line on every load, never cached; one file read again
on its own gets the same URL."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sites import tiny_project

from gpuguide import cached
from gpuguide.cached import Snapshot
from gpuguide.errors import Problems
from gpuguide.structure import loading
from gpuguide.structure.dataset import load_dataset
from gpuguide.structure.loading import ContentCache, load_library, read_page
from gpuguide.structure.project_files import FileState

PAGE = ('---\ntitle: "{title}"\ndescription: D\nslug: {slug}\ntranslation_key: {slug}\nlayout: guide\n---\n'
        "Body of {slug}.\n")


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """Two languages, three small pages, one in a folder."""
    folder = tmp_path / "content"
    for path, slug in (("fr/alpha.md", "alpha"), ("fr/guides/bravo.md", "bravo"), ("en/alpha.md", "alpha")):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(PAGE.format(title=slug.title(), slug=slug), encoding="utf-8")
    return folder


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file whose front matter the loader parses, in order."""
    parsed: list[Path] = []
    real = loading.split_front_matter

    def counting(text, path, problems, *front):
        parsed.append(Path(path))
        return real(text, path, problems, *front)

    monkeypatch.setattr(loading, "split_front_matter", counting)
    return parsed


def load(content: Path, cache: ContentCache | None = None) -> tuple[dict[str, str], list[str]]:
    """URL → title of every page, and every problem, as an editor reads them."""
    problems = Problems(content.parent)
    library = load_library(content, None, problems, cache)
    return {page.url: page.meta.title for page in library.pages}, [str(problem) for problem in problems.items]


def later(path: Path, old: str, new: str) -> None:
    """Edit a file after a pause, so its times surely differ from those the cache recorded."""
    time.sleep(0.01)
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


def test_without_a_dataset_every_language_folder_is_loaded(content: Path):
    pages, problems = load(content)
    assert problems == []
    # The folder under the language starts the URL.
    assert pages == {"/en/alpha/": "Alpha", "/fr/alpha/": "Alpha", "/fr/guides/bravo/": "Bravo"}


def test_an_unchanged_file_is_not_parsed_again(content: Path, parses: list[Path]):
    cache = ContentCache()
    first = load(content, cache)
    assert len(parses) == 3 and len(cache.sources) == 3
    parses.clear()
    assert load(content, cache) == first
    assert parses == []


def test_an_edited_file_is_parsed_again_and_only_it(content: Path, parses: list[Path]):
    cache = ContentCache()
    load(content, cache)
    parses.clear()
    later(content / "fr" / "alpha.md", 'title: "Alpha"', 'title: "Alpha 2"')
    pages, problems = load(content, cache)
    assert parses == [content / "fr" / "alpha.md"]
    assert pages["/fr/alpha/"] == "Alpha 2" and pages["/en/alpha/"] == "Alpha" and problems == []


def test_an_edit_of_the_same_size_with_its_old_mtime_restored_is_seen(content: Path):
    cache = ContentCache()
    load(content, cache)
    path = content / "fr" / "alpha.md"
    stat = os.stat(path)
    later(path, 'title: "Alpha"', 'title: "Omega"')  # same length
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert load(content, cache)[0]["/fr/alpha/"] == "Omega"


def test_a_file_saved_again_with_the_same_text_is_not_parsed_and_its_body_is_current(content: Path,
                                                                                     parses: list[Path]):
    cache = ContentCache()
    load(content, cache)
    path = content / "fr" / "alpha.md"
    before = cache.sources[str(path)].state
    parses.clear()
    later(path, "Body", "Body")  # written again: new times, same text
    problems = Problems(content.parent)
    library = load_library(content, None, problems, cache)
    assert parses == []
    assert next(p for p in library.pages if p.source == path).body == "Body of alpha.\n"
    # The cache now holds the new state: the next load does not even read the file.
    assert cache.sources[str(path)].state != before


def test_a_body_edit_keeps_the_cached_front_matter_and_takes_the_new_body(content: Path, parses: list[Path]):
    cache = ContentCache()
    load(content, cache)
    path = content / "fr" / "alpha.md"
    before = cache.sources[str(path)]
    parses.clear()
    later(path, "Body of alpha.", "Body of alpha, edited at length.")
    problems = Problems(content.parent)
    library = load_library(content, None, problems, cache)
    page = next(p for p in library.pages if p.source == path)
    assert parses == [] and problems.items == []
    assert page.body == "Body of alpha, edited at length.\n" and page.meta.title == "Alpha"
    # Its digests are the new body's, as a page parsed from this text would have them.
    fresh = read_page(path, "fr", content, Problems(content.parent))
    assert fresh is not None
    assert (page.body_digest, page.translation_hash, page.meta_digest, page.structure_digest) == (
        fresh.body_digest, fresh.translation_hash, fresh.meta_digest, fresh.structure_digest)
    assert page.front_matter.position(("slug",)) == fresh.front_matter.position(("slug",))
    # The cache holds the new text's state and digests, and the same front matter.
    after = cache.sources[str(path)]
    assert after.state != before.state and after.digest != before.digest
    assert (after.body_digest, after.translation_hash) == (fresh.body_digest, fresh.translation_hash)
    assert after._replace(state=before.state, digest=before.digest, body_digest=before.body_digest,
                          translation_hash=before.translation_hash) == before
    parses.clear()
    assert load(content, cache)[0]["/fr/alpha/"] == "Alpha" and parses == []


@pytest.mark.parametrize("old, new", [
    ('title: "Alpha"', 'title: "Alpha 2"'),  # a field
    ("slug: alpha\n", "slug: alpha\n\n"),  # the same fields, the body a line further
    ("---\ntitle", "--- \ntitle"),  # the same YAML, the body a character further
])
def test_a_front_matter_edit_is_parsed_again(content: Path, parses: list[Path], old: str, new: str):
    cache = ContentCache()
    load(content, cache)
    path = content / "fr" / "alpha.md"
    parses.clear()
    later(path, old, new)
    problems = Problems(content.parent)
    library = load_library(content, None, problems, cache)
    assert parses == [path]
    page = next(p for p in library.pages if p.source == path)
    fresh = read_page(path, "fr", content, Problems(content.parent))
    assert fresh is not None and problems.items == []
    assert (page.meta, page.body, page.body_offset, page.body_line) == (
        fresh.meta, fresh.body, fresh.body_offset, fresh.body_line)
    assert page.front_matter.position(("layout",)) == fresh.front_matter.position(("layout",))


def test_a_broken_file_is_reported_with_file_and_line_every_time_and_never_cached(content: Path,
                                                                                parses: list[Path]):
    cache = ContentCache()
    broken = content / "fr" / "alpha.md"
    broken.write_text(broken.read_text(encoding="utf-8").replace("layout: guide", "layout: gide"), encoding="utf-8")
    for _ in range(2):
        pages, problems = load(content, cache)
        assert "/fr/alpha/" not in pages and len(pages) == 2
        # `layout:` is line 6 of the file; its value starts in column 9.
        assert [p.split(" (")[0] for p in problems] == [
            ("content/fr/alpha.md:6:9: error: `layout`: input should be 'home', 'use_case', 'catalogue', 'gpu', "
            "'comparisons', 'comparison', 'models', 'model', 'guides', 'guide', 'methodology', 'search' or "
            "'not_found', got 'gide'")]
        assert str(broken) not in cache.sources
    # Parsed on both loads: it was never taken from the cache.
    assert parses.count(broken) == 2


def test_the_unreadable_files_are_listed_by_language(content: Path):
    (content / "en" / "empty.md").write_bytes(b"")
    problems = Problems(content.parent)
    library = load_library(content, None, problems)
    assert library.unreadable == (("en", content / "en" / "empty.md"),)
    assert [str(p) for p in problems.items] == [
        "content/en/empty.md:1:1: error: the file is empty (add content or delete the file)"]


def test_a_cached_page_still_knows_the_lines_of_its_fields(content: Path):
    cache = ContentCache()
    load(content, cache)
    library = load_library(content, None, Problems(content.parent), cache)
    alpha = next(p for p in library.pages if p.url == "/fr/alpha/")
    assert alpha.front_matter.position(("slug",)).line == 4  # `slug:` is the file's fourth line
    assert alpha.body_line == 8 and alpha.body == "Body of alpha.\n"


def test_a_cache_entry_the_schema_no_longer_accepts_is_parsed_again(content: Path, parses: list[Path]):
    cache = ContentCache()
    load(content, cache)
    path = str(content / "fr" / "alpha.md")
    entry = cache.sources[path]
    # A front matter the schema accepted once and no longer does (a layout since retired).
    cache.sources[path] = entry._replace(front_matter={**entry.front_matter, "layout": "retired_layout"})
    parses.clear()
    pages, problems = load(content, cache)
    assert parses == [Path(path)] and pages["/fr/alpha/"] == "Alpha" and problems == []


def test_the_saved_cache_works_for_its_key_only(content: Path, tmp_path: Path, parses: list[Path]):
    cache = ContentCache()
    load(content, cache)
    saved = tmp_path / "cache" / "content.cache"
    cache.save(saved, "v1")
    parses.clear()
    assert load(content, ContentCache.load(saved, "v1"))[0]["/fr/guides/bravo/"] == "Bravo"
    assert parses == []
    assert ContentCache.load(saved, "v2").sources == {}  # another code version: nothing cached
    saved.write_bytes(b"not a pickle")
    assert ContentCache.load(saved, "v1").sources == {}


def test_read_page_reads_one_file_again_with_its_folder(content: Path):
    problems = Problems(content.parent)
    bravo = read_page(content / "fr" / "guides" / "bravo.md", "fr", content, problems)
    assert bravo is not None and bravo.url == "/fr/guides/bravo/" and problems.items == []
    (content / "fr" / "guides" / "bravo.md").write_text("no front matter\n", encoding="utf-8")
    assert read_page(content / "fr" / "guides" / "bravo.md", "fr", content, problems) is None
    assert [p.split(" (")[0] for p in map(str, problems.items)] == [
        "content/fr/guides/bravo.md:1:1: error: the page has no front matter"]


def test_a_language_of_site_yaml_without_its_folder_names_the_fix(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    for path in sorted((root / "content" / "en").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (root / "content" / "en").rmdir()
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    library = load_library(root / "content", dataset, problems)
    [problem] = [p for p in problems.items if "no content folder" in p.message]
    assert (problem.path, problem.line, problem.message) == ("content/en", 1, "no content folder for language `en`")
    assert problem.hint == "create content/en/ or remove `en` from data/site.yaml"  # relative, as every path shown
    assert {page.lang for page in library.pages} == {"fr"}


SECOND = 10**9


def coarse_file_state(path: Path | str) -> FileState | None:
    """A file system that keeps times to the second (and one time for both)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    second = stat.st_mtime_ns // SECOND * SECOND
    return FileState(stat.st_size, second, second, stat.st_ino)


def snapshot(content: Path, taken_ns: int) -> Snapshot:
    return Snapshot({str(path): coarse_file_state(path) for path in content.rglob("*.md")}, taken_ns)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file the loader reads, in order."""
    read: list[Path] = []
    real = loading.read_text

    def counting(path, problems):
        read.append(Path(path))
        return real(path, problems)

    monkeypatch.setattr(loading, "read_text", counting)
    return read


def test_a_same_size_edit_in_the_second_of_the_snapshot_is_seen_through_the_saved_cache(
        content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[Path]):
    monkeypatch.setattr(loading, "file_state", coarse_file_state)
    path = content / "fr" / "alpha.md"
    second = (time.time_ns() // SECOND - 60) * SECOND
    os.utime(path, ns=(second, second))  # saved at .1 s; the build's snapshot at .3 s
    cache, saved = ContentCache(), tmp_path / "content.cache"
    load_library(content, None, Problems(content.parent), cache, states=snapshot(content, second + SECOND // 3))
    cache.save(saved, "v1")
    taken = coarse_file_state(path)
    later(path, 'title: "Alpha"', 'title: "Omega"')  # saved again at .6 s: same size, same second
    os.utime(path, ns=(second, second))
    assert coarse_file_state(path) == taken
    reads.clear()
    problems = Problems(content.parent)
    library = load_library(content, None, problems, ContentCache.load(saved, "v1"), states=snapshot(content, time.time_ns()))
    assert {page.url: page.meta.title for page in library.pages}["/fr/alpha/"] == "Omega"
    assert path in reads  # read again, its text compared with the digest cached


def test_a_settled_state_is_trusted_without_reading_the_file(content: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, reads: list[Path]):
    # The states taken seconds after the files' last change: any later edit changes them.
    monkeypatch.setattr(loading, "file_state", coarse_file_state)
    cache, saved = ContentCache(), tmp_path / "content.cache"
    load_library(content, None, Problems(content.parent), cache,
                 states=snapshot(content, time.time_ns() + 3 * SECOND))
    cache.save(saved, "v1")
    reads.clear()
    library = load_library(content, None, Problems(content.parent), ContentCache.load(saved, "v1"),
                           states=snapshot(content, time.time_ns() + 4 * SECOND))
    assert reads == [] and len(library.pages) == 3


@pytest.mark.parametrize("row", [
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10],  # a field short
    ["name", "1", 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10, 1],  # a size that is text
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", [], "yaml", 10, 1],  # front matter that is a list
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", "x", "yaml", 10, 1],  # front matter that is text
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", -5, 1],  # a body before the file's start
    [["name"], 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10, 1],
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", None, {}, "yaml", 10, 1],  # no structure digest
    ["name", 1, 2, 3, True, "d", "b", "t", "m", "s", {}, "yaml", 10, 1],  # an inode that is a boolean
    ["name", 1, 2, 3, 4, 5, "b", "t", "m", "s", {}, "yaml", 10, 1],  # a digest that is a number
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, None, 10, 1],  # no YAML text
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10, 1.0],  # a line that is not an integer
    ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10, -1],  # a line before the first
], ids=["short", "size-text", "front-matter-list", "front-matter-text", "negative-offset", "name-list",
        "structure-none", "inode-bool", "digest-number", "yaml-none", "line-float", "negative-line"])
def test_a_content_cache_entry_of_another_shape_is_no_cache(tmp_path: Path, row: list[object]):
    saved = tmp_path / "content.cache"
    good = ["name", 1, 2, 3, 4, "d", "b", "t", "m", "s", {}, "yaml", 10, 1]
    cached.Journal(saved, "v1").save({"x": None}, {}, lambda entries: [good])
    assert list(ContentCache.load(saved, "v1").sources) == ["name"]  # the right shape loads
    cached.Journal(saved, "v1").save({"x": None}, {}, lambda entries: [good, row])
    assert ContentCache.load(saved, "v1").sources == {}


def test_the_files_come_from_the_builds_snapshot_without_a_second_walk(content: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch):
    from gpuguide.build.manifest import _states

    outside = tmp_path.parent / f"{tmp_path.name}-secret.md"
    outside.write_text("secret", encoding="utf-8")
    (content / "fr" / "leak.md").symlink_to(outside)  # refused, with its reason, either way
    (content / "fr" / "notes.txt").write_text("not a page", encoding="utf-8")

    def walked(states: Snapshot | None) -> tuple[list[str], list[str]]:
        problems = Problems(content.parent)
        library = load_library(content, None, problems, states=states)
        return [page.url for page in library.pages], [str(problem) for problem in problems.items]

    expected = walked(None)  # the loader's own walk
    assert expected[1] == [f"content/fr/leak.md:1:1: error: the symbolic link leads outside the project, to {outside} "
                           "(keep the site's files inside the project folder)"]
    snapshot = Snapshot(_states(content, content.parent), time.time_ns())
    snapshot.walked.add(str(content))
    monkeypatch.setattr(loading, "walk_files", lambda *args: pytest.fail("walked the content again"))
    assert walked(snapshot) == expected
    # A snapshot that did not walk the folder (the manifest's, a partial one) is not trusted for it.
    partial = Snapshot({str(content / "fr" / "alpha.md"): snapshot[str(content / "fr" / "alpha.md")]})
    with pytest.raises(pytest.fail.Exception):
        walked(partial)
