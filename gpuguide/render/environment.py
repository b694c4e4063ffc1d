"""The Jinja2 environment, and the small helpers every template needs: relative URLs, JSON-LD, links."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup


def make_environment(templates_dir: Path, cache_dir: Path | None = None) -> jinja2.Environment:
    """Autoescape on, undefined variables are errors; one environment per build."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Each build makes its own environment, so a template never changes during one: without
        # this, every page's get_template would stat its template file again.
        auto_reload=False,
        # Compiled templates kept between builds (keyed by name and source digest): a one-page
        # rebuild compiles nothing.
        bytecode_cache=_CompiledTemplates(cache_dir) if cache_dir is not None else None,
    )


@dataclass(frozen=True)
class Link:
    label: str
    url: str | None  # None: the page does not exist (yet); shown as plain text, never a dead link
    lang: str | None = None
    description: str | None = None


def relative_url(from_url: str, to_url: str) -> str:
    """Link from the page at ``from_url`` to ``to_url`` (both site-absolute), as a relative URL.

    Relative links keep the site browsable from disk (``file://``) and from any base path.

    >>> relative_url("/fr/entrainement-llm/", "/en/llm-training/")
    '../../en/llm-training/'
    >>> relative_url("/", "/assets/style.css")
    'assets/style.css'
    >>> relative_url("/fr/gpu/h100/", "/fr/gpu/#faq")
    '../#faq'
    """
    # What posixpath.relpath(to_url, dirname(from_url)) gives for site URLs (tests compare the
    # two), without its normalisation of both paths: pages call this a dozen times each.
    path, hash_, fragment = to_url.partition("#")
    here = [part for part in from_url.split("/")[:-1] if part]
    there = [part for part in path.split("/") if part]
    common = 0
    for mine, theirs in zip(here, there):
        if mine != theirs:
            break
        common += 1
    target = "/".join([".."] * (len(here) - common) + there[common:])
    if not target:
        target = "./"
    elif path.endswith("/"):
        target += "/"
    return target + hash_ + fragment


def json_ld(data: Any) -> Markup:
    """Serialise data for a ``<script type="application/ld+json">``: no value can close the script.

    ``<``, ``>`` and ``&`` are written as JSON escapes, which parse to the same string.

    >>> str(json_ld({"a": "</script><b>"}))
    '{"a":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates, in the build cache; one that cannot be written (a full
    disk) only means compiling again next time."""

    def __init__(self, folder: Path):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        super().__init__(str(folder))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


class TemplateReferences:
    """The templates each template extends, includes or imports, found by parsing it; kept between
    builds in ``references.json`` beside the compiled templates, by a digest of the source (parsing
    the templates was a second of every rebuild)."""

    FILE = "references.json"

    def __init__(self, env: jinja2.Environment, cache_dir: Path | None):
        self.env = env
        self.file = cache_dir / self.FILE if cache_dir is not None else None
        self._known: dict[str, list[str]] = {}
        if self.file is not None:
            try:
                loaded = json.loads(self.file.read_text(encoding="utf-8"))
                if isinstance(loaded, dict):
                    self._known = {key: [str(ref) for ref in refs] for key, refs in loaded.items() if isinstance(refs, list)}
            except (OSError, ValueError):
                pass
        self._changed = False

    def of(self, name: str, source: str) -> list[str]:
        """What ``name`` (whose text is ``source``) refers to; raises TemplateSyntaxError."""
        from jinja2 import meta

        key = hashlib.blake2b(source.encode("utf-8"), digest_size=16).hexdigest()
        if key not in self._known:
            self._known[key] = sorted(ref for ref in meta.find_referenced_templates(self.env.parse(source, name)) if ref)
            self._changed = True
        return self._known[key]

    def save(self) -> None:
        if self.file is None or not self._changed:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.file.with_name(f".{self.file.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(self._known, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.file)
        except OSError:
            pass  # only a cache: the next build parses again
