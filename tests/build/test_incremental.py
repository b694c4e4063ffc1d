"""The build cache never serves stale output, and re-renders exactly the pages that depend on a change.

Each test builds a copy of the project, changes one input, rebuilds incrementally, and compares
the result with a clean full build of the same inputs: byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import struct
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from sites import build, copy_project, tiny_project

from gpuguide import cached
from gpuguide.build import manifest as manifest_module
from gpuguide.build.pipeline import Options, run
from gpuguide.project import Project
from gpuguide.structure import loading
from gpuguide.structure.project_files import FileState

# Each test builds the real project two or three times.
pytestmark = pytest.mark.slow


def fingerprint(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def clean_build(root: Path, tmp_path: Path) -> dict[str, str]:
    """A full build of the same inputs, with no cache and no previous site."""
    clean = tmp_path / "clean"
    for part in ("content", "data", "templates"):
        shutil.copytree(root / part, clean / part)
    result = run(Project(clean), Options(search=False))
    assert result.rendered == result.pages
    return fingerprint(clean / "site")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(copy_project(tmp_path / "project"))
    run(project, Options(search=False))
    return project


def rebuild(project: Project) -> set[str]:
    """Rebuild and return which pages were rendered again: their files were replaced (a page
    rendered to the same bytes keeps its old file). A new file is known by its inode and its
    modification time together: a file system may give it the inode number just freed."""
    def files() -> dict[str, tuple[int, int]]:
        return {p.relative_to(project.site_dir).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
                for p in project.site_dir.rglob("*.html")}

    before = files()
    run(project, Options(search=False))
    after = files()
    return {path for path, state in after.items() if before.get(path) != state} - {"index.html", "404.html"}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_no_change_renders_nothing(project: Project):
    assert rebuild(project) == set()


def test_a_price_change_renders_only_the_pages_that_show_that_gpu(project: Project, tmp_path: Path):
    edit(project.data_dir / "prices.yaml", "h100-sxm: 2.88", "h100-sxm: 2.79")
    rendered = rebuild(project)
    assert "fr/gpu/h100-sxm/index.html" in rendered and "en/gpus/h100-sxm/index.html" in rendered
    assert "fr/comparer/h100-sxm-vs-a100-sxm/index.html" in rendered
    assert "fr/entrainement-llm/index.html" in rendered  # its table shows the H100 SXM's price
    assert "fr/comparer/b300-vs-b200/index.html" not in rendered
    assert "fr/gpu/b300/index.html" not in rendered
    # The GPU's own pages, its comparisons, the use-case pages and the model pages (each lists
    # every GPU's price for its configurations): about 120 of 513 pages, nothing else.
    assert len(rendered) < 130
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_a_template_change_renders_only_the_pages_of_that_layout(project: Project, tmp_path: Path):
    edit(project.templates_dir / "comparison.html", '<article class="comparison">',
         '<article class="comparison pair">')
    rendered = rebuild(project)
    assert rendered and all("/comparer/" in path or "/compare/" in path for path in rendered)
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_a_ui_string_change_renders_only_the_pages_that_show_it(project: Project, tmp_path: Path):
    edit(project.data_dir / "ui" / "en.yaml", "gpu_specifications: Specifications",
         "gpu_specifications: Vendor specifications")
    rendered = rebuild(project)
    assert rendered == {path for path in rendered if path.startswith("en/gpus/")}
    assert len(rendered) == len(list((project.site_dir / "en" / "gpus").glob("*/index.html")))
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_a_gpu_record_change_reaches_every_page_that_shows_it(project: Project, tmp_path: Path):
    edit(project.data_dir / "gpus.yaml", "bandwidth_gbs: 2039", "bandwidth_gbs: 2040")
    rendered = rebuild(project)
    assert "en/gpus/a100-sxm/index.html" in rendered and "en/gpus/index.html" in rendered
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_editing_one_page_renders_that_page(project: Project, tmp_path: Path):
    edit(project.content_dir / "en" / "llm-training.md", "Training a model from scratch",
         "Training a model from the ground up")
    assert rebuild(project) == {"en/llm-training/index.html"}
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_edits_in_a_row_append_to_the_caches_and_each_renders_only_what_it_changed(project: Project, tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch):
    # The build and content caches are journals: a one-page edit appends that page's entries. Edits
    # in a row, then a price change (the records' digests change), each read the appended state back.
    # The builds run seconds after the files were written, as they do once a checkout is a few seconds
    # old: the states are settled (``cached.settled``; the first build after the copy saved them unsettled,
    # and the next one saves every file's state again, whole).
    monkeypatch.setattr(manifest_module, "time", SimpleNamespace(time_ns=lambda: time.time_ns() + 3 * 10**9))
    edit(project.content_dir / "en" / "fine-tuning.md", "## What matters: fine-tuning",
         "One more paragraph.\n\n## What matters: fine-tuning")
    assert rebuild(project) == {"en/fine-tuning/index.html"}
    caches = {name: project.cache_dir / name for name in ("pages.cache", "content.cache")}
    saved = {name: path.read_bytes() for name, path in caches.items()}
    edit(project.content_dir / "en" / "llm-training.md", "Training a model from scratch",
         "Training a model from the ground up")
    assert rebuild(project) == {"en/llm-training/index.html"}
    edit(project.content_dir / "en" / "llm-inference.md", "## What matters", "One more paragraph.\n\n## What matters")
    assert rebuild(project) == {"en/llm-inference/index.html"}
    for name, path in caches.items():
        now = path.read_bytes()  # two records appended after what was saved, not the whole written again
        assert now.startswith(saved[name]) and len(now) - len(saved[name]) < len(saved[name]) // 4, name
    edit(project.data_dir / "prices.yaml", "h100-sxm: 2.88", "h100-sxm: 2.79")
    rendered = rebuild(project)
    assert "fr/gpu/h100-sxm/index.html" in rendered and "fr/gpu/b300/index.html" not in rendered
    assert rebuild(project) == set()
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def rendered_in_process(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], set[str]]:
    """Rebuild in this process: the pages rendered again, and the pages whose files were replaced."""
    from gpuguide.render.renderer import PageRenderer

    rendered: set[str] = set()
    render = PageRenderer.render

    def counting(self: PageRenderer, page):  # type: ignore[no-untyped-def]
        rendered.add(page.output_path)
        return render(self, page)

    monkeypatch.setattr(PageRenderer, "render", counting)
    before = {p.relative_to(project.site_dir).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
              for p in project.site_dir.rglob("*.html")}
    run(project, Options(search=False, parallel=False))
    replaced = {p.relative_to(project.site_dir).as_posix() for p in project.site_dir.rglob("*.html")
                if before.get(p.relative_to(project.site_dir).as_posix()) != (p.stat().st_ino, p.stat().st_mtime_ns)}
    return rendered, replaced - {"index.html", "404.html"}


def test_a_use_case_title_change_renders_the_pages_that_show_it_and_gives_the_others_the_new_menu(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    edit(project.content_dir / "en" / "llm-training.md", "title: GPUs for training large language models",
         "title: GPUs to train large language models")
    rendered, replaced = rendered_in_process(project, monkeypatch)
    english = {p.relative_to(project.site_dir).as_posix(): p.read_text(encoding="utf-8")
               for p in (project.site_dir / "en").rglob("index.html")}
    # Every English page shows the menu (but the redirects of pairs named in the other order):
    # each has the new title; no French page changed.
    menus = {output for output, text in english.items() if 'id="site-menu"' in text}
    assert len(menus) > len(english) / 2 and replaced == menus
    assert all("GPUs to train large language models" in english[output] for output in menus)
    # Rendered again: the page itself and those that show use-case titles in their content (the
    # home page, the other use cases, GPU and comparison pages); not the guides, the model pages.
    assert "en/llm-training/index.html" in rendered and "en/index.html" in rendered
    assert "en/gpus/h100-sxm/index.html" in rendered
    assert not any(output.startswith(("en/models/", "en/guides/", "fr/")) for output in rendered)
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


#: The menu as a template written before the marks of ``render.shell`` lists it: by itself.
MENU_BY_ITSELF = """{% for link in use_case_menu %}
            <li><a href="{{ url(link.url) }}"{% if link.url == page.url %} aria-current="page"{% endif %}>{{ link.label }}</a></li>
{% endfor %}
"""


def test_a_template_that_lists_the_use_cases_itself_shows_a_changed_title_on_every_page(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    edit(project.templates_dir / "base.html", "{{ use_case_menu_mark[0] }}\n", MENU_BY_ITSELF)
    run(project, Options(search=False))
    edit(project.content_dir / "en" / "llm-training.md", "title: GPUs for training large language models",
         "title: GPUs to train large language models")
    rendered, replaced = rendered_in_process(project, monkeypatch)
    # Every English page with a menu is rendered again: its template read the titles.
    shown = {p.relative_to(project.site_dir).as_posix() for p in (project.site_dir / "en").rglob("index.html")
             if 'id="site-menu"' in p.read_text(encoding="utf-8")}
    assert shown <= rendered and shown == replaced
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_a_guide_title_change_renders_only_the_pages_that_list_that_guide(project: Project, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    edit(project.content_dir / "en" / "guides" / "choosing-gpus-deep-learning-llm.md",
         "title: How to choose GPUs for deep learning and LLMs", "title: Choosing GPUs for deep learning and LLMs")
    rendered, replaced = rendered_in_process(project, monkeypatch)
    assert rendered == replaced
    assert "en/guides/choosing-gpus-deep-learning-llm/index.html" in rendered and "en/guides/index.html" in rendered
    assert len(rendered) < 10, sorted(rendered)
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def test_the_reads_that_changed_are_those_added_removed_or_changed():
    from gpuguide.build.render_plan import RecordDigests

    digests = RecordDigests.__new__(RecordDigests)  # the table alone: what ``changed_since`` compares
    digests.table = {("gpus", "a100"): "d1", ("gpus", "h100"): "d2-new", ("ui-en", "title"): "d3"}
    last = {("gpus", "a100"): "d1", ("gpus", "h100"): "d2", ("gpus", "b200"): "d4"}
    assert digests.changed_since(last) == {("gpus", "h100"), ("ui-en", "title"), ("gpus", "b200")}
    assert digests.changed_since(dict(digests.table)) == frozenset()


def test_an_entry_is_kept_unless_its_key_or_one_of_its_reads_changed():
    from gpuguide.build.page_cache import BuildCache, PageEntry

    key = ("layout-digest", "body-digest", "meta-digest", None)
    entry = PageEntry(key, (("gpus", "h100-sxm"), ("ui-en", "title")), 10, 20, None, frozenset(), "", "")
    cache = BuildCache("global", {"en/a/index.html": entry})
    assert cache.unchanged("en/a/index.html", key, frozenset()) is entry
    assert cache.unchanged("en/a/index.html", key, frozenset({("gpus", "b200")})) is entry
    assert cache.unchanged("en/a/index.html", key, frozenset({("gpus", "b200"), ("ui-en", "title")})) is None
    assert cache.unchanged("en/a/index.html", ("layout-digest", "body-edited", "meta-digest", None), frozenset()) is None
    assert cache.unchanged("en/b/index.html", key, frozenset()) is None


def test_the_records_saved_are_those_of_the_build_whether_they_changed_or_not(tmp_path: Path):
    # The records' saved list is written again as it is while they are unchanged: a change, even
    # made in place in the dict that was loaded, must reach the file.
    from gpuguide.build.page_cache import BuildCache

    project = Project(tmp_path)
    first = {("ui-en", "title"): "d3", ("gpus", "h100-sxm"): "d1", ("gpus", "a100"): "d2"}
    BuildCache("key", {}, "", dict(first)).save(project)
    loaded = BuildCache.load(project, "key")
    assert loaded.records == first
    loaded.save(project)  # unchanged
    assert BuildCache.load(project, "key").records == first
    loaded.records = {("gpus", "a100"): "d2-new"}
    loaded.save(project)
    again = BuildCache.load(project, "key")
    assert again.records == {("gpus", "a100"): "d2-new"}
    again.records[("ui-fr", "title")] = "d4"
    again.save(project)
    assert BuildCache.load(project, "key").records == {("gpus", "a100"): "d2-new", ("ui-fr", "title"): "d4"}
    # Saved sorted, whichever order the build made them in: the same records, the same bytes.
    BuildCache("key", {}, "", dict(reversed(list(first.items())))).save(project)
    reordered = (project.cache_dir / BuildCache.FILE).read_bytes()
    BuildCache("key", {}, "", first).save(project)
    assert (project.cache_dir / BuildCache.FILE).read_bytes() == reordered


def test_a_page_touched_in_site_is_rendered_again(project: Project):
    page = project.site_dir / "fr" / "gpu" / "index.html"
    page.write_text("vandalised", encoding="utf-8")
    rendered = rebuild(project)
    assert rendered == {"fr/gpu/index.html"}
    assert "vandalised" not in page.read_text(encoding="utf-8")


def test_a_lost_or_corrupt_cache_means_a_full_build(project: Project, tmp_path: Path):
    (project.cache_dir / "pages.cache").write_bytes(b"not a pickle")
    edit(project.root / "content" / "en" / "llm-training.md", "Training a model", "Training any model")
    assert len(rebuild(project)) > 400
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)


def run_cli(root: Path, *args: str) -> str:
    import subprocess
    import sys

    from sites import ROOT

    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(root), "--no-search", *args],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_rebuild_with_nothing_changed_does_nothing_and_says_so(tmp_path: Path):
    root = copy_project(tmp_path)
    assert "rendered" in run_cli(root)
    before = fingerprint(root / "site")
    assert "nothing changed since the last build" in run_cli(root)
    assert fingerprint(root / "site") == before
    # Any input touched, or site/ touched, and it builds again; then nothing is left to do.
    page = root / "content" / "en" / "llm-training.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    assert "nothing changed" not in run_cli(root)
    assert "nothing changed since the last build" in run_cli(root)
    (root / "site" / "en" / "gpus" / "index.html").write_text("vandalised", encoding="utf-8")
    assert "nothing changed" not in run_cli(root)
    assert "vandalised" not in (root / "site" / "en" / "gpus" / "index.html").read_text(encoding="utf-8")
    assert "nothing changed since the last build" in run_cli(root)
    # A file that is not the build's (put there by someone else) is left alone, as Hugo does.
    (root / "site" / "stray.html").write_text("not ours", encoding="utf-8")
    assert "nothing changed since the last build" in run_cli(root)


def test_front_matter_from_the_content_cache_still_points_at_its_lines(project: Project):
    """A page left unchanged comes from the content cache, without its YAML parsed again: an
    error found in it later still names its file and line."""
    from gpuguide.errors import BuildFailed

    unchanged = project.content_dir / "en" / "llm-training.md"
    fields = unchanged.read_text(encoding="utf-8").split("---")[1]
    line = 1 + next(number for number, text in enumerate(fields.splitlines()) if text.startswith("slug:"))
    slug = next(text for text in fields.splitlines() if text.startswith("slug:"))
    # Another page, edited to take the same URL: the unchanged page is the one reported.
    other = project.content_dir / "en" / "fine-tuning.md"
    edit(other, next(text for text in other.read_text(encoding="utf-8").splitlines() if text.startswith("slug:")),
         slug)
    with pytest.raises(BuildFailed) as failure:
        run(project, Options(search=False))
    messages = [str(problem) for problem in failure.value.problems]
    assert any("llm-training.md" in message and f":{line}:" in message for message in messages), messages


def test_the_saved_cache_loads_back_equal_with_each_list_of_reads_shared(project: Project):
    from gpuguide.build.link_check import ParsedPage, resolve_links
    from gpuguide.build.page_cache import BuildCache, LinkRecord, PageEntry, PageLinks
    from gpuguide.render.cards import Card

    saved = BuildCache.load(project, "key")  # another key: nothing
    assert saved.pages == {}
    card = Card("EverXCloud", "Title", ("≈ 10B",))

    def record(output: str, n: int) -> LinkRecord:
        parsed = ParsedPage({"main"}, resolve_links(output, ["#main", "../other/", "https://example.com/#x"]))
        return LinkRecord.of(parsed, {"#main": 3}, card if n else None)

    entries = {output: PageEntry.rendered(("layout-digest", f"body-{n}", f"meta-{n}", None),
                                          (("gpus", "h100-sxm"), ("ui-en", f"s{n % 2}")), n, n, record(output, n),
                                          f"menu-digest {n} {n + 40}")
               for n, output in enumerate(["en/a/index.html", "en/b/index.html", "en/c/index.html"])}
    BuildCache("key", entries, "<urlset/>", {("gpus", "h100-sxm"): "d1"}).save(project)
    loaded = BuildCache.load(project, "key")
    assert loaded.pages == entries and loaded.sitemap == "<urlset/>" and loaded.records == {("gpus", "h100-sxm"): "d1"}
    # Only the internal links with a #fragment are kept (the others resolve while the set of pages is
    # the same; external ones are not checked).
    assert loaded.pages["en/b/index.html"].links == PageLinks(frozenset({"main"}), ("#main",), {"#main": 3}, card)
    assert loaded.pages["en/b/index.html"].anchor_targets == {"en/b/index.html"}
    assert loaded.pages["en/b/index.html"].card_file == card.file_name and loaded.pages["en/a/index.html"].card_file is None
    assert loaded.pages["en/c/index.html"].menu == "menu-digest 2 42"
    a, b, c = (loaded.pages[f"en/{name}/index.html"].reads for name in "abc")
    assert a is c and a is not b  # equal lists of reads are one object once loaded
    assert a[0] is b[0]


def test_an_unchanged_pages_card_touched_or_lost_in_site_is_put_back(project: Project, tmp_path: Path):
    # A one-page edit updates site/ in place; the other pages' cards are trusted only if they are as
    # the last build left them, else put back from the cache (drawn again if the cache lost it).
    site = project.site_dir
    touched, lost, redrawn = (site / "fr" / "gpu" / "og.png", site / "en" / "gpus" / "og.png",
                              site / "fr" / "entrainement-llm" / "og.png")
    touched.write_bytes(b"\x89PNG vandalised")
    lost.unlink()
    same_inode = [p for p in (project.cache_dir / "cards").iterdir() if p.stat().st_ino == redrawn.stat().st_ino]
    assert same_inode, "a card in site/ is a hard link to its drawing in the cache"
    same_inode[0].unlink()
    redrawn.unlink()
    edit(project.content_dir / "en" / "llm-training.md", "Training a model from scratch",
         "Training a model from the ground up")
    assert rebuild(project) == {"en/llm-training/index.html"}
    assert fingerprint(site) == clean_build(project.root, tmp_path)
    assert same_inode[0].is_file()  # drawn again into the cache


# --- Caches that cannot hurt, edits never missed, no stray temporary files (the tiny site) -----------

CACHE_FILES = ("inputs.cache", "pages.cache", "content.cache")
#: An edit of one page's text and a price: a build that consults every cache (which pages to keep,
#: which front matter to reuse, whether anything changed).
EDITS = ((Path("content/en/training.md"), "Training takes memory", "Training needs memory"),
         (Path("data/prices.yaml"), "card: 0.5", "card: 0.6"))


class Plant:
    """Unpickling it creates ``marker``: a planted cache file could run anything instead."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Path.touch, (self.marker,))


class Bench:
    """The tiny site built twice (its caches hold an appended record), saved to be put back before each
    damaged build; and the site a clean build of the edited inputs gives."""

    def __init__(self, root: Path, expected: dict[str, str]):
        self.root = root
        self.expected = expected
        self.caches = {name: (root / ".build-cache" / name).read_bytes() for name in CACHE_FILES}
        self.texts = {path: (root / path).read_text(encoding="utf-8") for path, _, _ in EDITS}
        self.site_copy = root.parent / "site-as-built"
        shutil.copytree(root / "site", self.site_copy)  # copy2: sizes and times as the build left them

    def build_with(self, name: str, data: bytes) -> None:
        """Put everything back, replace the cache file ``name`` by ``data``, edit, build: the site must
        be the clean build's, byte for byte."""
        for path, text in self.texts.items():
            (self.root / path).write_text(text, encoding="utf-8")
        shutil.rmtree(self.root / "site")
        shutil.copytree(self.site_copy, self.root / "site")
        for cache_name, saved in self.caches.items():
            (self.root / ".build-cache" / cache_name).write_bytes(data if cache_name == name else saved)
        for path, old, new in EDITS:
            edit(self.root / path, old, new)
        outcome = build(self.root)
        assert not outcome.unchanged
        assert fingerprint(self.root / "site") == self.expected, name


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Bench:
    base = tmp_path_factory.mktemp("damaged-caches")
    clean = tiny_project(base / "clean")
    for path, old, new in EDITS:
        edit(clean / path, old, new)
    build(clean)
    root = tiny_project(base / "tiny")
    build(root)
    edit(root / "content/fr/entrainement.md", "## ", "Un paragraphe de plus.\n\n## ")
    build(root)  # the journals now end with an appended record
    edit(root / "content/fr/entrainement.md", "Un paragraphe de plus.\n\n## ", "## ")
    build(root)
    return Bench(root, fingerprint(clean / "site"))


def damaged(data: bytes, marker: Path) -> dict[str, bytes]:
    """The cache file ``data``, damaged every way a disk, a killed build or a stranger can."""
    header = len(cached.MAGIC) + 4
    variants = {f"cut at {cut}": data[:cut] for cut in (0, header + 3, header + 12 + 5, len(data) // 2, len(data) - 1)}
    for position in (0, len(cached.MAGIC), header + 2, header + 8 + 2, header + 12 + 2, len(data) // 3,
                     len(data) // 2, len(data) - 12, len(data) - 1):
        flipped = bytearray(data)
        flipped[position] ^= 0x04
        variants[f"byte {position} flipped"] = bytes(flipped)
    variants["huge length"] = data[:header] + struct.pack("<Q", 2**63) + data[header + 8:]
    variants["another format"] = data[:len(cached.MAGIC)] + struct.pack("<I", cached.FORMAT + 1) + data[header:]
    payload = pickle.dumps(("key", Plant(marker)))
    variants["planted pickle"] = payload
    variants["planted pickle, framed"] = struct.pack("<Q", len(payload)) + payload
    return variants


@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_damaged_or_planted_cache_file_never_runs_code_and_the_site_is_a_clean_builds(bench: Bench, name: str):
    marker = bench.root.parent / f"planted-{name}-ran"
    pickle.loads(pickle.dumps(Plant(marker)))  # the plant is live: unpickling it runs its code
    assert marker.exists()
    marker.unlink()
    bench.build_with(name, bench.caches[name])  # undamaged first: the bench itself is right
    for how, data in damaged(bench.caches[name], marker).items():
        try:
            bench.build_with(name, data)
        except AssertionError as failure:
            raise AssertionError(f"{name}, {how}: {failure}") from None
        assert not marker.exists(), f"{name}, {how}: the planted pickle ran"


def coarse_file_state(path: Path | str) -> FileState | None:
    """A file system that keeps times to the second (and one time for both)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    second = stat.st_mtime_ns // 10**9 * 10**9
    return FileState(stat.st_size, second, second, stat.st_ino)


def test_a_same_size_edit_in_the_second_of_the_snapshot_is_never_missed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    root = tiny_project(tmp_path / "tiny")
    page = root / "content" / "en" / "training.md"
    second = (time.time_ns() // 10**9 - 60) * 10**9  # the second of the snapshot, on a clock the test sets
    monkeypatch.setattr(manifest_module, "file_state", coarse_file_state)
    monkeypatch.setattr(loading, "file_state", coarse_file_state)
    monkeypatch.setattr(manifest_module, "time", SimpleNamespace(time_ns=lambda: second + 300_000_000))
    os.utime(page, ns=(second, second))  # saved at .1 s, the build's snapshot taken at .3 s …
    build(root)
    assert "GPUs for training" in (root / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")
    edit(page, 'title: "GPUs for training"', 'title: "GPUs for teaching"')  # … saved again at .6 s,
    os.utime(page, ns=(second, second))  # the same size, in the same second: the same state
    assert coarse_file_state(page) == manifest_module.Manifest.load(Project(root)).inputs[str(page)]  # type: ignore[union-attr]
    outcome = build(root)
    assert not outcome.unchanged and outcome.rendered > 0
    assert "GPUs for teaching" in (root / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")
    assert build(root).unchanged  # and once built, nothing is left to do
    racy = manifest_module.Manifest.load(Project(root)).inputs.racy  # type: ignore[union-attr]
    assert str(page) in racy  # compared by content at each check while its state is not settled …
    monkeypatch.setattr(manifest_module, "time", SimpleNamespace(time_ns=lambda: time.time_ns() + 5 * 10**9))
    assert build(root).unchanged
    assert manifest_module.Manifest.load(Project(root)).inputs.racy == {}  # type: ignore[union-attr]
    # … then no more: the check saved the states as of a snapshot they are settled for.
    # A content edit the content cache alone would miss (the no-change check sees the data file's
    # change): the page's state is the one that cache saved, its text is new.
    edit(page, 'title: "GPUs for teaching"', 'title: "GPUs for learning"')
    os.utime(page, ns=(second, second))
    edit(root / "data" / "prices.yaml", "card: 0.5", "card: 0.6")
    build(root)
    assert "GPUs for learning" in (root / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")


def test_stray_temporary_files_in_site_are_removed_by_the_next_build(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    build(root)
    site = root / "site"
    # What a dev-server edit killed between its write and its rename leaves (``build.session``), and
    # the other write-then-rename patterns; a hidden file someone put there is not the build's.
    strays = [site / "en" / "training" / ".index.html.tmp-4242", site / ".index.html.tmp-77",
              site / "fr" / ".og.png.tmp-4242", site / "en" / ".sitemap.xml.tmp-4242"]
    kept = site / "fr" / ".well-known-note"

    def plant() -> None:
        for stray in strays:
            stray.write_text("half a page", encoding="utf-8")
        kept.write_text("not ours", encoding="utf-8")
        (root / ".build-cache" / manifest_module.SITE_EDIT_MARKER).touch()  # as the killed edit left it

    plant()
    assert build(root).unchanged  # nothing changed: still, the strays go
    assert [stray for stray in strays if stray.exists()] == [] and kept.exists()
    plant()
    edit(root / "content" / "en" / "training.md", "Training takes memory", "Training needs memory")
    outcome = build(root)  # a one-page edit: site/ updated in place
    assert 0 < outcome.rendered < outcome.pages
    assert [stray for stray in strays if stray.exists()] == [] and kept.exists()
    plant()
    shutil.rmtree(root / ".build-cache")  # a full build: a new site swapped in
    build(root)
    assert [stray for stray in strays if stray.exists()] == []


def test_site_is_walked_for_temporary_files_only_after_an_unfinished_edit(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    root = tiny_project(tmp_path / "tiny")
    build(root)
    walks: list[Path] = []
    remove = manifest_module.remove_stray_temporaries
    monkeypatch.setattr(manifest_module, "remove_stray_temporaries", lambda site: walks.append(site) or remove(site))
    assert build(root).unchanged and walks == []  # no edit was left unfinished: site/ is not walked
    marker = root / ".build-cache" / manifest_module.SITE_EDIT_MARKER
    with pytest.raises(OSError):  # an edit that fails between its writes leaves the marker
        with manifest_module.site_edit(Project(root)):
            raise OSError("disk full")
    assert marker.exists()
    assert build(root).unchanged and walks == [root / "site"] and not marker.exists()
    with manifest_module.site_edit(Project(root)):  # one that finishes removes it
        assert marker.exists()
    assert not marker.exists()
