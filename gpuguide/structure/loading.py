"""Loading pages: every Markdown file of every language, parsed and validated, with a cache.

A file whose state (size, times, inode: ``project_files.file_state``, taken before reading) is unchanged
since the last load is not read again: its front matter comes from the content cache. A state too
close to the snapshot to tell an edit made just after it (``cached.settled``) is saved so that it
never matches: that file is read again, and compared by its text's digest. A cold load of
thousands of files parses on every core.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import multiprocessing as mp
import os
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from gpuguide import cached
from gpuguide.cached import Invalid
from gpuguide.errors import Problems
from gpuguide.processes import forked_workers
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.library import Library
from gpuguide.structure.generated_pages import generated_pages
from gpuguide.structure.pages import Page, PageMeta
from gpuguide.structure.schema import validate
from gpuguide.structure.shared_facts import share_facts
from gpuguide.structure.project_files import FileState, file_state, folders_resolved_once, read_text, walk_files
from gpuguide.structure.yaml_documents import (FRONT_MATTER_OFFSET, DocumentCache, YamlDocument, front_matter_text,
                                                split_front_matter)


class ParsedSource(NamedTuple):
    """A Markdown file's front matter, parsed and validated: what the content cache keeps of it."""

    state: FileState  # taken before reading: unchanged, the file is not read again
    digest: str  # of the file's text: a file saved again with the same text is not parsed again
    body_digest: str
    translation_hash: str
    meta_digest: str
    structure_digest: str
    # The YAML's value, which validated as ``PageMeta``: validated again when loaded (its fields
    # are not kept beside it: with them, decoding the cache took three times as long).
    front_matter: Any
    yaml: str  # the YAML's text, parsed again only if a position is asked for (an error to report)
    body_offset: int
    body_line: int


#: Source path → its front matter as last parsed; ``load_library`` reads and refreshes it.
ParsedSources = dict[str, ParsedSource]


class ContentCache:
    """Each Markdown file's front matter as last parsed and validated, so a load parses only the files
    whose state changed. Valid for one code version; saved as a ``cached.Journal`` (one flat list per
    file): a build after an edit appends the entries of the files it parsed. With it, beside it,
    the data files' YAML (``documents``, read by ``dataset.load_dataset``)."""

    DOCUMENTS = "documents.cache"  # in the same folder

    def __init__(self, sources: ParsedSources | None = None, journal: cached.Journal | None = None,
                 documents: DocumentCache | None = None):
        self.sources: ParsedSources = sources or {}
        self._journal = journal
        self.taken_ns: int | None = None  # when the states of ``sources`` were taken (``load_library``)
        self.documents = documents if documents is not None else DocumentCache()

    @classmethod
    def load(cls, path: Path, key: str) -> ContentCache:
        journal = cached.Journal.load(path, key, _decode_sources)
        # ``load_library`` keeps the very objects loaded for the files unchanged: a later save
        # compares with them.
        return cls(dict(journal.entries), journal, DocumentCache.load(path.with_name(cls.DOCUMENTS), key))

    def save(self, path: Path, key: str) -> None:
        self.documents.save(path.with_name(self.DOCUMENTS), key)
        journal = self._journal
        if journal is None or journal.path != path or journal.key != key:
            journal = self._journal = cached.Journal(path, key)
        taken_ns = self.taken_ns if self.taken_ns is not None else time.time_ns()
        journal.save(self.sources, {}, lambda sources: _encode_sources(sources, taken_ns))


#: The size saved for a state that is not ``settled``: no file has it, so the file is read again.
_UNSETTLED = -1


def _encode_sources(sources: ParsedSources, taken_ns: int) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for name, source in sources.items():
        size, mtime_ns, ctime_ns, inode = source.state
        if not cached.settled(source.state, taken_ns):
            size = _UNSETTLED
        rows.append([name, size, mtime_ns, ctime_ns, inode, *source[1:]])
    return rows


def _decode_sources(saved: Any) -> ParsedSources:
    if type(saved) is not list:
        raise Invalid("the content cache's entries")
    sources: ParsedSources = {}
    for row in saved:
        (name, size, mtime_ns, ctime_ns, inode, digest, body_digest, translation_hash, meta_digest, structure_digest,
         front_matter, yaml, body_offset, body_line) = row
        # Chained ``is`` tests, not ``all()`` over a generator: ten thousand rows in half the time.
        if not (type(name) is type(digest) is type(body_digest) is type(translation_hash) is type(meta_digest)
                is type(structure_digest) is type(yaml) is str
                and type(size) is type(mtime_ns) is type(ctime_ns) is type(inode) is type(body_offset)
                is type(body_line) is int and type(front_matter) is dict and body_offset >= 0 and body_line >= 0):
            raise Invalid("an entry of the content cache")
        # The state stays a plain tuple, equal to the ``FileState`` it was saved from.
        sources[name] = _new_source(ParsedSource, ((size, mtime_ns, ctime_ns, inode), digest, body_digest,
                                                   translation_hash, meta_digest, structure_digest, front_matter,
                                                   yaml, body_offset, body_line))
    return sources


_new_source = tuple.__new__  # a ``ParsedSource`` made without calling its ``__new__``, in Python, for each


def load_library(content_dir: Path, dataset: Dataset | None, problems: Problems,
                 cache: ContentCache | None = None, parallel: bool = False,
                 states: Mapping[str, FileState | str] | None = None) -> Library:
    """Read every Markdown file of every configured language; report every problem found.

    Without a valid dataset (its errors are already reported) pages are still read and validated
    on their own, so the editor sees every problem of the run at once. With the content ``cache``,
    a file whose state or text is unchanged is not parsed again; the cache is left holding exactly
    the files that loaded without a problem. With ``parallel`` and nothing cached
    (a cold build of ten thousand pages), files are parsed on every core: worker processes parse
    all but the first share, which this process parses meanwhile. ``states``: the files' states the
    build took before reading anything (``manifest.input_states``: a ``cached.Snapshot``, which says
    when), not taken again.
    """
    parsed = cache.sources if cache is not None else None
    previous = dict(parsed) if parsed is not None else {}
    if cache is not None:
        cache.sources.clear()
        # What the states it will hold are judged against (``cached.settled``): when the build's
        # snapshot was taken (``cached.Snapshot``), else now, before this load takes any.
        cache.taken_ns = states.taken_ns if isinstance(states, cached.Snapshot) else time.time_ns()
    pages: list[Page] = []
    unreadable: list[tuple[str, Path]] = []
    languages = (list(dataset.config.languages) if dataset is not None
                 else sorted(p.name for p in content_dir.iterdir() if p.is_dir()) if content_dir.is_dir() else [])
    files: list[tuple[str, str]] = []  # (language, file name)
    lang_dirs = {lang: content_dir / lang for lang in languages}
    for lang in languages:
        lang_dir = content_dir / lang
        if not lang_dir.is_dir():
            problems.error(lang_dir, 1, 1, f"no content folder for language `{lang}`",
                           f"create {problems.relative(lang_dir)}/ or remove `{lang}` from data/site.yaml")
            continue
        names, refused = _markdown_files(lang_dir, content_dir, states)
        for path, reason in refused:
            problems.error(path, 1, 1, reason, "keep the site's files inside the project folder")
        files += [(lang, name) for name in names]
    # Nothing cached (a first build, or new code): parse on every core.
    workers = min(os.cpu_count() or 1, 8)
    with contextlib.ExitStack() as stack:
        stack.enter_context(folders_resolved_once())
        own = len(files)
        found: Iterator[list[tuple[str, ParsedSource | None]]] = iter(())
        if (parallel and not previous and workers > 1 and len(files) >= PARALLEL_MIN_FILES
                and "fork" in mp.get_all_start_methods()):
            pool = stack.enter_context(forked_workers(workers - 1))
            # This process parses the first share itself while the workers parse the rest;
            # then it loads the rest in order, from what they found.
            own = len(files) // workers
            rest = [name for _, name in files[own:]]
            found = pool.map(_parse_chunk, [rest[start:start + 64] for start in range(0, len(rest), 64)])
        for index, (lang, name) in enumerate(files):
            if index == own:  # the workers' share: loaded from what they parsed
                for chunk in found:
                    previous.update((parsed_name, source) for parsed_name, source in chunk if source is not None)
            page = _load_page(name, lang, problems, previous, parsed, states)
            if page is not None:
                page.folder = _folder(name, lang_dirs[lang], problems)
                pages.append(page)
            else:
                unreadable.append((lang, Path(name)))
    if dataset is not None:
        share_facts(pages, dataset.config.default_language, problems)  # before generators copy their patterns
        pages.extend(generated_pages(pages, dataset, problems))
    return Library(tuple(pages), tuple(unreadable))


def _markdown_files(lang_dir: Path, content_dir: Path,
                    states: Mapping[str, FileState | str] | None) -> tuple[list[str], list[tuple[Path, str]]]:
    """The names of the Markdown files under a language's folder, and the entries refused there. Taken from the
    build's snapshot when it walked the content folder already (``cached.Snapshot.walked``: the
    same walk, in the same order), which saves walking ten thousand files twice; walked now
    otherwise, or when the content or the language's folder is itself a link (refused, or
    followed, on its own terms)."""
    if (isinstance(states, cached.Snapshot) and str(content_dir) in states.walked
            and not os.path.islink(content_dir) and not os.path.islink(lang_dir)):
        prefix = os.path.join(str(lang_dir), "")
        files: list[str] = []
        refused: list[tuple[Path, str]] = []
        for name, state in states.items():
            if not name.startswith(prefix):
                continue
            if isinstance(state, str):
                refused.append((Path(name), state.removeprefix(cached.Snapshot.REFUSED)))
            elif name.endswith(".md"):
                files.append(name)
        return files, refused
    walk = walk_files(lang_dir, content_dir.parent)
    return [str(path) for path in walk.files if path.suffix == ".md"], walk.refused


def read_page(path: Path, lang: str, content_dir: Path, problems: Problems) -> Page | None:
    """One Markdown file read and validated again, on its own (the dev server, after an edit)."""
    page = _load_page(str(path), lang, problems, {}, None)
    if page is not None:
        page.folder = _folder(str(path), content_dir / lang, problems)
    return page


_FOLDER = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _folder(name: str, lang_dir: Path, problems: Problems) -> str:
    """The page's folder under its language, which starts its URL; its names must be URL-safe."""
    folder, bad = _folder_names(os.path.dirname(name), str(lang_dir))
    for part in bad:
        problems.error(name, 1, 1, f"the folder name `{part}` cannot be part of a URL",
                       "name content folders with lower-case letters, digits and dashes")
    return folder


@functools.lru_cache(maxsize=1024)  # a site has far fewer folders than pages
def _folder_names(parent: str, lang_dir: str) -> tuple[str, tuple[str, ...]]:
    """``parent`` (a folder under ``lang_dir``) as a URL path, and its names that cannot be in one."""
    parts = Path(parent).relative_to(lang_dir).parts
    return "/".join(parts), tuple(part for part in parts if not _FOLDER.match(part))


#: Below this many files to parse, forking workers costs more than it saves.
PARALLEL_MIN_FILES = 500


def _parse_chunk(names: list[str]) -> list[tuple[str, ParsedSource | None]]:
    """In a worker: parse and validate files into content cache entries; a file with any problem
    is left to the main process, which parses it again and reports its problems in order."""
    parsed: list[tuple[str, ParsedSource | None]] = []
    for name in names:
        found: ParsedSources = {}
        _load_page(name, "", Problems(Path(name).parent), {}, found)
        parsed.append((name, found.get(name)))
    return parsed


def _load_page(name: str, lang: str, problems: Problems, previous: ParsedSources,
               parsed: ParsedSources | None, states: Mapping[str, FileState | str] | None = None) -> Page | None:
    """The page in the file ``name``: from the content cache when its state (or else its text) is
    the one cached, else parsed and validated."""
    known = previous.get(name)
    # Taken before reading: an edit saved meanwhile shows as a change next time.
    taken = states.get(name) if states is not None else None
    state = taken if isinstance(taken, FileState) else file_state(name)
    if known is not None and known.state == state:
        page = _cached_page(name, lang, known)
        if page is not None:
            if parsed is not None:
                parsed[name] = known
            return page
    path = Path(name)
    text = read_text(path, problems)
    if text is None:
        return None
    text_digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    page = _cached_page(name, lang, known) if known is not None and known.digest == text_digest else None
    if page is not None and known is not None:  # saved again, same text
        page.known_body = text[known.body_offset:]
        if parsed is not None and state is not None:
            parsed[name] = known._replace(state=state)
        return page
    before = len(problems.items)
    front = front_matter_text(text, path, problems)
    if front is None:
        return None
    if known is not None and front == (known.yaml, known.body_offset, known.body_line):
        # Only the body changed (an editor's usual edit): the front matter is the one cached, which
        # parsed and validated without a problem; its YAML is not parsed again.
        page = _cached_page(name, lang, known, body=text[front.body_offset:])
        if page is not None:
            if parsed is not None and state is not None:
                parsed[name] = known._replace(state=state, digest=text_digest, body_digest=page.body_digest,
                                              translation_hash=page.translation_hash)
            return page
    parts = split_front_matter(text, path, problems, front)
    if parts is None:
        return None
    meta = validate(PageMeta, parts.front_matter, path, problems)
    if meta is None:
        return None
    page = Page.from_text(path, lang, meta, parts.front_matter, text[parts.body_offset:], parts.body_offset,
                          parts.body_line)
    # A page with warnings is not cached: they must be reported again next time.
    if parsed is not None and state is not None and len(problems.items) == before:
        parsed[name] = ParsedSource(state, text_digest, page.body_digest, page.translation_hash,
                                         page.meta_digest, page.structure_digest, parts.front_matter.value,
                                         parts.front_matter.text or "",
                                         parts.body_offset, parts.body_line)
    return page


def _cached_page(name: str, lang: str, known: ParsedSource, body: str | None = None) -> Page | None:
    """The page as the content cache knows it (with ``body``: its front matter only, and that body),
    or None if its fields no longer validate (a cache written by an older version of the schema)."""
    try:
        meta = PageMeta.model_validate(known.front_matter)
    except ValidationError:
        return None
    return Page(name, lang, meta, YamlDocument(known.front_matter, None, FRONT_MATTER_OFFSET, known.yaml),
                known.body_offset, known.body_line, known_body=body,
                known_body_digest=known.body_digest if body is None else None,
                known_translation_hash=known.translation_hash if body is None else None,
                known_meta_digest=known.meta_digest, known_structure_digest=known.structure_digest)
