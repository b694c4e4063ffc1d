"""Which pages to render, and how ``site/`` is then updated.

- **A page is reused** (``plan``) when its own key (its Markdown and front matter, the templates of
  its layout, what it is about: ``page_key``; the inputs every page shares: ``global_key``) is
  unchanged, none of the data records, UI strings and other pages' texts it read while rendering
  (``render.reads``) changed since the last build (``RecordDigests.changed_since``), and its file in
  ``site/`` is the one the last build wrote. When only the use-case menu changed (its titles), the
  file is kept with the new menu put in (``render.shell``): on the real site, a use case's title
  edited renders 217 pages and resplices 42 where it rendered all 900 (the dev server's rebuild:
  1.6 s against 3.9 s).
- **How to publish** (``publish_mode``): at most half the pages changed, and the search index need
  not be rebuilt: their files replace the old ones in place (under a journal); otherwise a whole
  new site is swapped in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpuguide.build.fingerprints import code_version, digest
from gpuguide.build.manifest import SiteCheck
from gpuguide.build.page_cache import BuildCache, PageEntry, PageKey

if TYPE_CHECKING:
    from gpuguide.render.reads import Read
    from gpuguide.structure.dataset import Dataset
    from gpuguide.structure.library import Library
    from gpuguide.structure.pages import Page

def global_key(dataset: Dataset, library: Library, assets: Iterable[str]) -> str:
    """What every page depends on: the code, the configuration, the use cases and price date, the
    published anchors and measurements, every page's front matter but its texts (URLs and tables
    appear in menus, lists and links; a page notes which other pages' titles it shows) and the
    asset files. Templates and UI strings are not in it: a page depends on the templates of its
    layout and on the strings it looked up. No option changes a page's HTML."""
    from gpuguide.render.cards import drawing_identity

    # Every page's language, file and front matter (its digest), joined into one text (cheaper to
    # digest than the ``repr`` of as many tuples); none of them holds a NUL.
    structure = "\0".join([f"{page.lang}\0{page.source_name}\0{page.structure_digest}" for page in library.pages])
    anchors = [anchor.model_dump_json() for anchor in dataset.anchors]
    # Measurements are shown on model, GPU, use-case and methodology pages and change a few times a
    # year: any change renders everything again rather than tracking who shows which.
    measured = [record.model_dump_json() for record in (*dataset.benchmarks.values(), *dataset.measurements)]
    return digest(code_version(), dataset.config.model_dump_json(), list(dataset.use_cases), dataset.prices_as_of,
                  anchors, measured, structure, sorted(assets), drawing_identity())


class TemplateDigests:
    """The digest of a layout's template and of every template it extends or includes: a template
    change re-renders exactly the pages whose layout uses it. Built from what compiling the
    templates found (``PageRenderer.template_sources`` and ``template_references``)."""

    def __init__(self, sources: dict[str, str], references: dict[str, list[str]]):
        self.sources = sources
        self.references = references
        self._memo: dict[str, str] = {}

    def closure(self, name: str) -> list[str]:
        seen: list[str] = []
        pending = [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.append(current)
            pending.extend(self.references[current])
        return sorted(seen)

    def layout(self, name: str) -> str:
        if name not in self._memo:
            self._memo[name] = digest(*[(ref, self.sources[ref]) for ref in self.closure(name)])
        return self._memo[name]




def page_key(page: Page, templates: TemplateDigests) -> PageKey:
    """The page's ``PageKey``: compared as it is, nothing to hash (ten thousand pages, each build)."""
    return (templates.layout(f"{page.meta.layout}.html"), page.body_digest, page.meta_digest,
            page.subject.ids if page.subject is not None else None)


class RecordDigests:
    """The digest of every record, of each table's id list, of each whole table, and of each UI string:
    what a page may read (``render.reads``), each with the digest of what it read."""

    def __init__(self, dataset: Dataset, library: Library):
        from gpuguide.render.reads import ALL, KEYS, PAGE_TEXTS, TRACKED_TABLES

        self.table: dict[Read, str] = {}
        for name in TRACKED_TABLES:
            records = getattr(dataset, name)
            per_record = {key: digest(value.model_dump_json() if hasattr(value, "model_dump_json") else value)
                          for key, value in records.items()}
            self.table.update({(name, key): value for key, value in per_record.items()})
            self.table[(name, KEYS)] = digest(tuple(records))
            self.table[(name, ALL)] = digest(sorted(per_record.items()))
        # A page's texts as other pages show them: its front matter's digest (a change of anything
        # else in it renders every page again, by the global key).
        self.table.update({(PAGE_TEXTS, page.output_path): page.meta_digest for page in library.pages})
        for lang, strings in dataset.strings.items():
            name = f"ui-{lang}"
            self.table.update({(name, key): digest(text) for key, text in strings.items()})
            self.table[(name, ALL)] = digest(sorted((key, repr(text)) for key, text in strings.items()))

    def changed_since(self, last: dict[Read, str]) -> frozenset[Read]:
        """The reads whose value differs from ``last`` (the table of the last build): added, removed or
        changed. A page that read none of them reads the same values again."""
        if self.table == last:  # the usual case, a text edited: one comparison in C, not a lookup per read
            return frozenset()
        return frozenset(read for read in self.table.keys() | last.keys() if self.table.get(read) != last.get(read))


@dataclass
class Plan:
    """Which published pages to render (their indexes), which to keep as they are in site/, and which
    to keep with the use-case menu put in again (``render.shell``: only the menu's titles changed)."""

    keys: dict[str, PageKey]  # output path → page key
    render: list[int]
    reused: dict[str, PageEntry]
    respliced: dict[int, PageEntry]  # index → the last build's entry


def plan(pages: tuple[Page, ...], cache: BuildCache, templates: TemplateDigests, digests: RecordDigests,
         site: SiteCheck, menus: dict[str, str], reuse: bool = True) -> Plan:
    """Render the pages whose inputs changed; keep the others (``cache``: kept for this build's global
    key), with their menu put in again where its digest (``menus``: by language) changed.
    ``reuse=False`` renders everything."""
    from gpuguide.render.shell import read_record, same_menu

    keys = {page.output_path: page_key(page, templates) for page in pages}
    changed = digests.changed_since(cache.records)
    candidates = {output: entry for output, key in keys.items()
                  if reuse and (entry := cache.unchanged(output, key, changed)) is not None}
    # And its file in site/ is the one the last build wrote; else someone touched it: render it again.
    on_disk = site.as_written(candidates)
    render: list[int] = []
    reused: dict[str, PageEntry] = {}
    respliced: dict[int, PageEntry] = {}
    for index, page in enumerate(pages):
        output = page.output_path
        entry = candidates.get(output)
        if entry is None or on_disk.get(output) != (entry.size, entry.mtime_ns):
            render.append(index)
            continue
        if same_menu(entry.menu, menus[page.lang]):
            reused[output] = entry
            continue
        recorded = read_record(entry.menu)
        if recorded is None:
            render.append(index)
        elif not recorded[1]:  # no menu shown (a redirect)
            reused[output] = entry
        else:
            respliced[index] = entry
    return Plan(keys, render, reused, respliced)


def publish_mode(plan: Plan, written: int, total: int, index_search: bool) -> Literal["update", "swap"]:
    """Update site/ in place when at most half the pages changed and the search index need not be
    built (``index_search``: a page was rendered, or site/ has no index yet); otherwise write the
    whole site beside it, indexed, and swap. A swap links every kept page and card into the new
    site and deletes the old one: a use case's title edited on the real site (261 of 900 pages
    written) published in 0.27-0.37 s by an update against 0.29-0.57 s by a swap."""
    if plan.reused and not index_search and written <= total // 2:
        return "update"
    return "swap"

