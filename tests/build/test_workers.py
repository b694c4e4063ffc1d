"""Rendering pages (``gpuguide.build.workers``): writing a file, rendering one page of the tiny
site, and rendering many in this process or in a pool of forked workers with the same results."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sites import edit, fingerprint, tiny_project

from gpuguide.build import card_cache, workers
from gpuguide.build.link_check import link_target, parse_page
from gpuguide.build.pipeline import Options, Site, load
from gpuguide.build.workers import render_one, render_pages, write_file
from gpuguide.errors import Problems
from gpuguide.project import Project
from gpuguide.render.cards import Card, draw
from gpuguide.render.renderer import PageRenderer
from gpuguide.structure.pages import Page

# --- write_file ---------------------------------------------------------------------------------

def test_write_file_makes_missing_folders_and_returns_the_file_stat(tmp_path: Path):
    for target in (tmp_path / "fr" / "index.html",  # one folder to make
                   tmp_path / "fr" / "gpu" / "h100" / "index.html"):  # several
        stat = write_file(str(target), b"<p>page</p>")
        assert target.read_bytes() == b"<p>page</p>"
        on_disk = target.stat()
        assert (stat.st_size, stat.st_mtime_ns, stat.st_ino) == (11, on_disk.st_mtime_ns, on_disk.st_ino)


def test_write_file_replaces_a_longer_file_whole(tmp_path: Path):
    target = tmp_path / "fr" / "index.html"
    write_file(str(target), b"x" * 1000)
    stat = write_file(str(target), b"short")  # the old tail must not survive
    assert target.read_bytes() == b"short" and stat.st_size == 5


def test_write_file_writes_large_and_empty_files(tmp_path: Path):
    data = bytes(range(256)) * 40_000  # 10 MB: more than one write() may take
    assert write_file(str(tmp_path / "big.bin"), data).st_size == len(data)
    assert (tmp_path / "big.bin").read_bytes() == data
    assert write_file(str(tmp_path / "empty" / "index.html"), b"").st_size == 0
    assert (tmp_path / "empty" / "index.html").read_bytes() == b""


# --- render_one and render_pages on the tiny site ----------------------------------------------

@pytest.fixture(scope="module")
def tiny_loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, Site]:
    """The tiny site loaded and validated (not rendered), shared by the tests that only read it."""
    project = Project(tiny_project(tmp_path_factory.mktemp("workers") / "tiny"))
    return project, load(project, Options(parallel=False))


def _renderer(project: Project, site: Site) -> PageRenderer:
    """A fresh renderer (its own problems), its templates compiled as the pipeline does."""
    renderer = PageRenderer(site.dataset, site.library, site.languages, project.templates_dir, Problems(project.root))
    renderer.compile_templates({page.meta.layout for page in site.library.published})
    assert renderer.problems.items == []
    return renderer


def _page(site: Site, output: str) -> Page:
    return next(page for page in site.library.published if page.output_path == output)


def _soup_links(soup: BeautifulSoup, output: str) -> list[str]:
    """The page's internal addresses, each once, found by another parser."""
    hrefs = ([tag["href"] for tag in soup.find_all(["a", "link"], href=True)]
             + [tag["src"] for tag in soup.find_all(["img", "script"], src=True)])
    return sorted({href for href in hrefs if link_target(output, href) is not None})


def test_render_one_without_staging_keeps_the_html_and_writes_nothing(tiny_loaded, tmp_path: Path):
    project, site = tiny_loaded
    renderer = _renderer(project, site)
    result = render_one(renderer, _page(site, "fr/entrainement/index.html"), None)
    assert result.output == "fr/entrainement/index.html"
    assert result.written is False and result.problems == [] and result.html is not None
    assert (result.size, result.mtime_ns) == (0, 0)
    soup = BeautifulSoup(result.html, "lxml")
    assert soup.html["lang"] == "fr"
    # base_url of the tiny site's data/site.yaml, then the page's URL.
    assert soup.find("link", rel="canonical")["href"] == "https://tiny.example.com/fr/entrainement/"
    assert sorted(link.href for link in result.parsed.links) == _soup_links(soup, "fr/entrainement/index.html")
    assert all(link.target == link_target("fr/entrainement/index.html", link.href) for link in result.parsed.links)
    assert {tag["id"] for tag in soup.find_all(id=True)} <= set(result.parsed.ids)
    # The Markdown link to methodologie.md (line 25 of the source) became the page's relative URL.
    assert result.link_lines == {"../methodologie/": 25}
    assert result.reads, "a use-case page reads the GPUs' data"
    assert list(project.root.glob(".site-*")) == []


def test_render_one_pauses_the_collector_for_the_page_only_and_makes_no_cycle(tiny_loaded):
    """The collector is paused while a page renders (rendering makes no reference cycle, so its
    passes were pure cost); it is on again after, and every page of every layout leaves nothing
    for it to find."""
    import gc

    project, site = tiny_loaded
    renderer = _renderer(project, site)
    seen: list[bool] = []
    render = renderer.render
    renderer.render = lambda page: (seen.append(gc.isenabled()), render(page))[1]  # type: ignore[method-assign]
    gc.collect()
    assert gc.isenabled()
    gc.disable()  # so that what the pages leave stays for gc.collect() to count
    try:
        for page in site.library.published:
            render_one(renderer, page, None)
        assert gc.collect() == 0  # no unreachable cycle
    finally:
        gc.enable()
    assert seen == [False] * len(site.library.published)
    render_one(renderer, site.library.published[0], None)
    assert gc.isenabled() and seen[-1] is False


def test_render_one_writes_the_page_into_staging_and_gives_its_card_to_draw(tiny_loaded, tmp_path: Path):
    project, site = tiny_loaded
    renderer = _renderer(project, site)
    page = _page(site, "fr/entrainement/index.html")
    kept = render_one(renderer, page, None)
    renderer.card_cache = tmp_path / "cards"
    staging = tmp_path / "staging"
    result = render_one(renderer, page, staging)
    target = staging / "fr" / "entrainement" / "index.html"
    assert result.written is True and result.html is None  # the HTML is on disk, not carried back
    assert target.read_bytes() == kept.html  # the same page as when only checked
    stat = target.stat()
    assert (result.size, result.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    parsed = parse_page(target.read_bytes(), "fr/entrainement/index.html")  # what it wrote, found by lxml
    assert set(result.parsed.ids) == set(parsed.ids) and set(result.parsed.links) == set(parsed.links)
    assert result.card is not None and result.card.title in BeautifulSoup(kept.html, "lxml").title.get_text()
    assert not (tmp_path / "cards").exists()  # drawn by render_pages once the pages are rendered
    assert fingerprint(staging).keys() == {"fr/entrainement/index.html"}  # nothing else written


def test_render_one_keeps_only_the_links_a_known_file_does_not_settle(tiny_loaded, tmp_path: Path):
    # Given the files known to exist, a page's result keeps the links the link check must still
    # look at: those with a #fragment and those to a file not known. Its cache entry keeps all.
    project, site = tiny_loaded
    page = _page(site, "fr/entrainement/index.html")
    whole = render_one(_renderer(project, site), page, None)
    links = whole.parsed.links
    assert any(link.fragment for link in links) and any(not link.fragment for link in links)
    known = {link.target for link in links if not link.fragment}
    unknown = next(link for link in links if not link.fragment)
    known.discard(unknown.target)
    renderer = _renderer(project, site)
    renderer.card_cache = tmp_path / "cards"
    result = render_one(renderer, page, tmp_path / "staging", known)
    expected = [link for link in links if link.fragment or link.target == unknown.target]
    assert list(result.parsed.links) == expected and unknown in expected
    assert result.parsed.ids == whole.parsed.ids  # the targets of other pages' anchors
    assert result.link_lines == {href: line for href, line in whole.link_lines.items()
                                 if href in {link.href for link in expected}}
    # What the next build reads of the page: every id and every anchor link, as before.
    entry_links = result.entry(("", "", "", None)).links
    assert entry_links.ids == frozenset(whole.parsed.ids)
    assert entry_links.fragment_links == tuple(link.href for link in links if "#" in link.href)
    assert entry_links.link_lines == whole.link_lines


def _break_guides(root: Path) -> None:
    """The guide template uses a variable nobody defines: each guide page fails to render."""
    edit(root / "templates" / "guide.html", "<h1>{{ title }}</h1>", "<h1>{{ title }}{{ no_such_variable }}</h1>")


def test_render_one_of_a_failing_page_reports_it_and_writes_nothing(tmp_path: Path):
    project = Project(tiny_project(tmp_path / "tiny"))
    _break_guides(project.root)
    site = load(project, Options(parallel=False))
    renderer = _renderer(project, site)
    staging = tmp_path / "staging"
    result = render_one(renderer, _page(site, "fr/guides/premier-guide/index.html"), staging)
    assert result.written is False and result.html is None
    assert len(result.problems) == 1 and "no_such_variable" in result.problems[0].message
    assert result.problems == renderer.problems.items  # the renderer's own list holds them too
    assert not staging.exists() or fingerprint(staging) == {}


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers for the tiny site's few pages: no minimum, small chunks, two cores at least."""
    monkeypatch.setattr(workers, "PARALLEL_MIN_PAGES", 1)
    monkeypatch.setattr(workers, "PARALLEL_CHUNK", 8)
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)


def _comparable(results: list[workers.RenderedPage]) -> list[tuple]:
    # Everything but the modification time, which differs from one write to the next.
    return [(r.output, r.written, r.problems, r.reads, sorted(r.parsed.ids), list(r.parsed.links), r.link_lines,
             r.size, r.html, r.card) for r in results]


def test_render_pages_in_a_pool_gives_what_rendering_in_this_process_gives(tiny_loaded, tmp_path: Path, pool):
    project, site = tiny_loaded
    indexes = list(range(len(site.library.published)))
    serial_progress: list[tuple[int, int]] = []
    serial = render_pages(_renderer(project, site), indexes, tmp_path / "serial",
                          lambda done, total: serial_progress.append((done, total)), parallel=False)
    pooled_progress: list[tuple[int, int]] = []
    pooled = render_pages(_renderer(project, site), indexes, tmp_path / "pooled",
                          lambda done, total: pooled_progress.append((done, total)), parallel=True)
    total = len(indexes)
    # In this process: one step a page. In the pool: one step a chunk of 8 (so the pool did run).
    assert serial_progress == [(done, total) for done in range(1, total + 1)]
    assert pooled_progress == [(min(done, total), total) for done in range(8, total + 8, 8)]
    assert [r.output for r in serial] == [page.output_path for page in site.library.published]  # in order
    assert _comparable(pooled) == _comparable(serial)
    assert all(r.written for r in serial)
    files = fingerprint(tmp_path / "serial")
    assert len(files) == total
    assert fingerprint(tmp_path / "pooled") == files  # the same bytes, written by the workers


@pytest.mark.parametrize("parallel", [False, True])
def test_render_pages_draws_the_card_of_every_page_written_once(tiny_loaded, tmp_path: Path, pool,
                                                                 monkeypatch: pytest.MonkeyPatch, parallel: bool):
    # Every page written has its card in the cache, drawn once, the same bytes as a card drawn on
    # its own; a build that writes nothing draws nothing.
    project, site = tiny_loaded
    indexes = list(range(len(site.library.published)))
    renderer = _renderer(project, site)
    renderer.card_cache = tmp_path / "cards"
    log = tmp_path / "drawn.txt"  # appended to by whichever process draws

    def spy(card: Card) -> bytes:
        with log.open("a", encoding="utf-8") as out:
            out.write(card.file_name + "\n")
        return draw(card)

    monkeypatch.setattr(card_cache, "draw", spy)  # before the workers are forked
    monkeypatch.setattr(workers, "CARD_BATCH", 2)  # several batches on the tiny site
    progress: list[tuple[int, int, str]] = []
    results = render_pages(renderer, indexes, tmp_path / "staging",
                           lambda done, total, stage="rendering": progress.append((done, total, stage)),
                           parallel=parallel)
    cards = {result.output: result.card for result in results}
    assert all(result.written for result in results)  # a redirect has no card of its own
    names = sorted({card.file_name for card in cards.values() if card is not None})
    assert len(names) > 2 * workers.CARD_BATCH
    assert sorted(os.listdir(tmp_path / "cards")) == names
    assert sorted(log.read_text(encoding="utf-8").split()) == names  # each once
    for card in filter(None, cards.values()):
        assert (tmp_path / "cards" / card.file_name).read_bytes() == draw(card)
    # The pages' progress, then the cards': one step a card here, a batch of 2 in the pool.
    drawing = [step for step in progress if step[2] == "drawing cards"]
    assert progress[:-len(drawing)][-1] == (len(indexes), len(indexes), "rendering")
    step = 2 if parallel else 1
    assert drawing == [(min(done, len(names)), len(names), "drawing cards")
                       for done in range(step, len(names) + step, step)]
    checker = _renderer(project, site)
    checker.card_cache = tmp_path / "checked"
    unwritten = render_pages(checker, indexes, None, parallel=parallel)  # as build.py check: nothing written
    assert all(result.html is not None for result in unwritten)
    assert not (tmp_path / "checked").exists()


def test_a_read_sent_back_by_the_workers_is_one_object_for_the_build(tiny_loaded, tmp_path: Path, pool):
    # Each chunk's pages are unpickled with their own copies of the reads: the build keeps one of each.
    project, site = tiny_loaded
    indexes = list(range(len(site.library.published)))
    pooled = render_pages(_renderer(project, site), indexes, tmp_path / "pooled", parallel=True)
    objects: dict[tuple[str, str], set[int]] = {}
    for result in pooled:
        for read in result.reads:
            objects.setdefault(read, set()).add(id(read))
    shared = [read for read in objects if sum(read in r.reads for r in pooled) > 8]  # read in more than a chunk
    assert shared, "pages of several chunks read the same records"
    assert all(len(objects[read]) == 1 for read in objects)


def test_render_pages_of_some_pages_only(tiny_loaded, tmp_path: Path, pool):
    project, site = tiny_loaded
    indexes = [index for index, page in enumerate(site.library.published) if page.lang == "en"][:10]
    results = render_pages(_renderer(project, site), indexes, tmp_path / "staging", parallel=True)
    assert [r.output for r in results] == [site.library.published[i].output_path for i in indexes]
    assert set(fingerprint(tmp_path / "staging")) == {r.output for r in results}


def test_problems_found_in_workers_are_added_to_the_renderers(tmp_path: Path, pool):
    project = Project(tiny_project(tmp_path / "tiny"))
    _break_guides(project.root)
    site = load(project, Options(parallel=False))
    # A dozen pages (two chunks), the guides among them.
    indexes = [index for index, page in enumerate(site.library.published)
               if page.meta.layout in ("guide", "guides", "home", "catalogue", "methodology", "models")]
    assert len(indexes) == 12
    serial_renderer, pooled_renderer = _renderer(project, site), _renderer(project, site)
    serial = render_pages(serial_renderer, indexes, tmp_path / "serial", parallel=False)
    pooled = render_pages(pooled_renderer, indexes, tmp_path / "pooled", parallel=True)
    failed = sorted(r.output for r in pooled if not r.written)
    assert failed == ["en/guides/first-guide/index.html", "fr/guides/premier-guide/index.html"]
    assert sorted(r.output for r in serial if not r.written) == failed
    assert len(pooled_renderer.problems.items) == 2
    assert sorted(pooled_renderer.problems.items) == sorted(serial_renderer.problems.items)
    assert fingerprint(tmp_path / "pooled") == fingerprint(tmp_path / "serial")
