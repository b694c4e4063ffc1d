"""Translations: which pages are missing in a language, and which are older than their source.

The default language (``default_language`` in data/site.yaml) is the source. A translation records
what it was made from in its front matter, ``translated_from: <hash>``: the start of the SHA-256 of
the source page's Markdown body and the translation's language (``stamp_for``). When the source body changes, its hash no longer matches and the
translation is reported stale. ``build.py translations --stamp content/en/page.md`` writes the
current hash after the translation has been brought up to date.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gpuguide.structure.library import Library
from gpuguide.structure.pages import Page
from gpuguide.structure.dataset import Dataset
from gpuguide import atomic
from gpuguide.errors import Problems

Status = Literal["up to date", "stale", "unknown freshness", "missing"]


@dataclass(frozen=True)
class TranslationStatus:
    translation_key: str
    lang: str
    status: Status
    source: Page | None  # the default-language page
    page: Page | None  # the translation; None when missing


def translation_statuses(library: Library, dataset: Dataset) -> list[TranslationStatus]:
    """For each source page and each other language: up to date, stale, unknown freshness or missing."""
    default = dataset.config.default_language
    statuses: list[TranslationStatus] = []
    for key, pages in sorted(library.translations.items()):
        source = pages.get(default)
        if source is None or source.subject is not None:  # no source (an error), or a generated page
            continue
        for lang in dataset.config.languages:
            if lang == default:
                continue
            page = pages.get(lang)
            if page is None:
                status: Status = "missing"
            elif page.meta.translated_from is None:
                status = "unknown freshness"
            elif stamp_for(source, lang).startswith(page.meta.translated_from):
                status = "up to date"
            else:
                status = "stale"
            statuses.append(TranslationStatus(key, lang, status, source, page))
    return statuses


def check_translations(library: Library, dataset: Dataset, problems: Problems) -> None:
    """Warn about stale translations and translations of unknown freshness (errors under --strict).

    Missing translations are reported by ``content`` already.
    """
    for item in translation_statuses(library, dataset):
        page, source = item.page, item.source
        if page is None or source is None or item.status in ("up to date", "missing"):
            continue
        stamp = f"then run `python build.py translations --stamp {problems.relative(page.source)}`"
        if item.status == "stale":
            pos = page.front_matter.position(("translated_from",))
            problems.warning(page.source, pos.line, pos.column,
                             f"this translation is older than its source {problems.relative(source.source)} "
                             f"(`translated_from: {page.meta.translated_from}`, the source is now "
                             f"`{stamp_for(source, page.lang)}`)",
                             f"bring the translation up to date, {stamp}")
        else:
            pos = page.front_matter.position(("translation_key",))
            problems.warning(page.source, pos.line, pos.column,
                             "unknown freshness: the page does not say which version of "
                             f"{problems.relative(source.source)} it translates",
                             f"check it against the source, {stamp}")


def stamp_for(source: Page, lang: str) -> str:
    """What a translation into ``lang`` of ``source``'s current version records: the source's hash
    and the translation's own language, hashed together. A page copied from another language keeps
    the other language's stamp, which does not match: it is reported stale until translated and
    stamped, never up to date."""
    return stamp_of(source.translation_hash, lang)


def stamp_of(source_hash: str, lang: str) -> str:
    """``stamp_for`` from the source's ``body_hash``: the hash and the language, hashed together."""
    return hashlib.sha256(f"{source_hash}\0{lang}".encode("utf-8")).hexdigest()[:len(source_hash)]


def stamp(path: Path, library: Library, dataset: Dataset) -> str:
    """Write the source's current hash into the translation at ``path``; only that line changes.

    Returns the hash; raises ValueError (with a message for the editor) if ``path`` is not a translation.
    """
    wanted = path.resolve()
    page = next((p for p in library.pages if p.source.resolve() == wanted and p.subject is None), None)
    if page is None:
        raise ValueError(f"{path}: not a page under content/")
    default = dataset.config.default_language
    if page.lang == default:
        raise ValueError(f"{path}: a `{default}` page is a source, not a translation; stamp its translations")
    source = library.translations.get(page.meta.translation_key, {}).get(default)
    if source is None:
        raise ValueError(f"{path}: no `{default}` page has the translation key `{page.meta.translation_key}`")
    digest = stamp_for(source, page.lang)
    # Whole or not at all: a full disk must not cut the translation (its last bytes lost).
    atomic.write_bytes(page.source, _with_stamp(page.source.read_bytes().decode("utf-8"), digest).encode("utf-8"),
                       durable=True)
    return digest


def _with_stamp(text: str, digest: str) -> str:
    """``text`` (a Markdown file) with its front matter's ``translated_from`` set to ``digest``, every
    other byte kept: the old value replaced whole (even on several lines), or a new line put after
    the whole ``translation_key`` value (even a block scalar).

    >>> print(_with_stamp("---\\ntitle: T\\ntranslation_key: >-\\n  k\\nlayout: guide\\n---\\nBody\\n", "abc"), end="")
    ---
    title: T
    translation_key: >-
      k
    translated_from: "abc"
    layout: guide
    ---
    Body
    """
    import yaml  # only to stamp a translation: a build does not load PyYAML for it

    lines = text.splitlines(keepends=True)
    end = next(index for index in range(1, len(lines)) if lines[index].strip() == "---")
    mapping = yaml.compose("".join(lines[1:end]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert mapping is not None  # the page loaded: its front matter is a mapping
    spans = {key.value: (key.start_mark.line + 1, value.end_mark.line + (1 if value.end_mark.column else 0) + 1)
             for key, value in mapping.value}  # (first line, line after the value), in file lines
    ending = lines[0][len(lines[0].rstrip("\r\n")):] or "\n"
    # Quoted: a hash made only of digits would otherwise be read by YAML as a number.
    stamp_line = f'translated_from: "{digest}"{ending}'
    if "translated_from" in spans:
        first, after = spans["translated_from"]
        after = min(after, end)
        return "".join([*lines[:first], stamp_line, *lines[after:]])
    after = min(spans["translation_key"][1], end)
    return "".join([*lines[:after], stamp_line, *lines[after:]])
