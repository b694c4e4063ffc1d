"""The build, top-down: load → validate → compute and render → check → publish.

``load_site`` reads and validates everything; ``check_site`` also renders every page in memory and
checks the links, and writes nothing (``build.py check`` stops there); ``build_site`` writes what
``check_site`` produced into a staging folder and swaps it into ``site/`` only when all of that
succeeded.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .content import Library, load_library
from .checks import check_links
from .datasets import Dataset, load_dataset
from .errors import BuildFailed, Problem, Problems
from .publish import discard, staging_dir, swap_into_place
from .render import PageRenderer
from .search import build_search_index
from .sitemap import robots_txt, sitemap_xml
from .translations import check_translations

log = logging.getLogger("gpuguide")


@dataclass(frozen=True)
class Project:
    """Where a site's inputs and output live; every path derives from the project root."""

    root: Path

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def assets_dir(self) -> Path:
        return self.root / "templates" / "assets"

    @property
    def site_dir(self) -> Path:
        return self.root / "site"


@dataclass
class LoadedSite:
    dataset: Dataset
    library: Library
    problems: Problems


@dataclass(frozen=True)
class BuildResult:
    pages_written: int
    seconds: float
    warnings: list[Problem]


def load_site(project: Project, strict: bool = False) -> LoadedSite:
    """Read and validate data and content; raise BuildFailed with every problem found."""
    problems = Problems(project.root)
    dataset = load_dataset(project.data_dir, problems)
    library = load_library(project.content_dir, dataset, problems)
    if dataset is not None:
        check_translations(library, dataset, problems)
    problems.raise_if_errors(strict)
    assert dataset is not None  # load_dataset returns None only after reporting an error
    return LoadedSite(dataset, library, problems)


#: Called as ``progress(done, total)`` while pages render (the command line shows it on a terminal).
Progress = Callable[[int, int], None]


@dataclass
class CheckedSite:
    """A site rendered in memory whose links all resolve: what ``build`` writes and ``check`` discards."""

    loaded: LoadedSite
    pages: dict[str, str]  # output path → HTML
    assets: dict[str, Path]  # output path → file to copy

    @property
    def warnings(self) -> list[Problem]:
        return sorted(set(self.loaded.problems.warnings))


def render_site(project: Project, site: LoadedSite, strict: bool = False,
                progress: Progress | None = None) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """Every published page's HTML by output path, and each page's Markdown link lines.

    A page that failed is left out, its problems reported in ``site.problems``.
    """
    renderer = PageRenderer(site.dataset, site.library, project.templates_dir, site.problems)
    rendered: dict[str, str] = {}
    published = site.library.published
    for done, page in enumerate(published, 1):
        html = renderer.render(page)
        if html is not None:
            rendered[str(page.output_path)] = html
        if progress is not None:
            progress(done, len(published))
    root = renderer.render_root()
    if root is not None:
        rendered["index.html"] = root
    # Servers look for /404.html: the default language's "not found" page.
    not_found = site.library.find("not_found", site.dataset.config.default_language)
    if not_found is not None and str(not_found.output_path) in rendered:
        rendered["404.html"] = rendered[str(not_found.output_path)]
    return rendered, renderer.link_lines


def check_site(project: Project, strict: bool = False, progress: Progress | None = None) -> CheckedSite:
    """Load, validate, render every page in memory and check every link; write nothing.

    ``build.py check`` stops here, so template errors and broken links are caught without a build.
    """
    site = load_site(project, strict)
    rendered, link_lines = render_site(project, site, strict, progress)
    assets = _asset_files(project)
    sources = {str(page.output_path): page.source for page in site.library.published}
    # Pages that failed to render are already reported: links to them are not broken links too.
    failed = {path for path in [*sources, "index.html"] if path not in rendered}
    check_links(rendered, set(assets) | failed, sources, site.problems, link_lines)
    site.problems.raise_if_errors(strict)
    return CheckedSite(site, rendered, assets)


def build_site(project: Project, strict: bool = False, progress: Progress | None = None,
               search: bool = True) -> BuildResult:
    """Build the whole site into ``site/``; on any error ``site/`` is left exactly as it was.

    ``search=False`` skips the Pagefind index (faster previews and benchmarks).
    """
    started = time.perf_counter()
    checked = check_site(project, strict, progress)
    site = checked.loaded
    config = site.dataset.config
    texts = {**checked.pages,
             "sitemap.xml": sitemap_xml(site.library, config.base_url, config.default_language),
             "robots.txt": robots_txt(config.base_url)}
    staging = staging_dir(project.site_dir)
    try:
        for relative, html in sorted(texts.items()):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(html, encoding="utf-8")
        for relative, source in sorted(checked.assets.items()):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        if search:
            build_search_index(staging, site.problems)
            site.problems.raise_if_errors(strict)
        swap_into_place(staging, project.site_dir)
    except BaseException:
        discard(staging)
        raise
    return BuildResult(len(checked.pages), time.perf_counter() - started, checked.warnings)


def _asset_files(project: Project) -> dict[str, Path]:
    """Static files shipped with the templates, by output path (``assets/style.css``)."""
    if not project.assets_dir.is_dir():
        return {}
    return {f"assets/{path.relative_to(project.assets_dir).as_posix()}": path
            for path in sorted(project.assets_dir.rglob("*")) if path.is_file()}
