"""The Jinja2 environment, and the small helpers every template needs: relative URLs, JSON-LD, links."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from gpuguide import atomic
from gpuguide.structure.project_files import RefusedFile, read_project_file


def make_environment(templates_dir: Path, cache_dir: Path | None = None, root: Path | None = None) -> SiteEnvironment:
    """Autoescape on, undefined variables are errors; one environment per build. Templates are read
    through the build's gate, within the project ``root`` (by default the templates' parent)."""
    env = SiteEnvironment(
        loader=GatedLoader(templates_dir, root if root is not None else templates_dir.parent),
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
    env.policies["json.dumps_function"] = dumps_with_encoded
    env.policies["json.dumps_kwargs"] = TOJSON_ARGUMENTS
    return env


class SiteEnvironment(jinja2.Environment):
    """Jinja's environment, which compiles a template from the tree its references were found in
    (``parse_to_compile``, called by ``TemplateReferences``) instead of parsing its source again:
    a cold build parses each template once (``bench/README.md`` gives what it saves)."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        self._trees: dict[tuple[str, str], jinja2.nodes.Template] = {}

    def parse_to_compile(self, source: str, name: str) -> jinja2.nodes.Template:
        """``parse``, the tree kept for the next compilation of ``source`` as ``name``."""
        tree = self._trees[(name, source)] = self.parse(source, name)
        return tree

    def forget_trees(self) -> None:
        """Drop the trees not compiled (a template the bytecode cache had)."""
        self._trees.clear()

    def compile(self, source: Any, name: str | None = None, filename: str | None = None, raw: bool = False,
                defer_init: bool = False) -> Any:
        if isinstance(source, str) and name is not None:
            source = self._trees.pop((name, source), source)
        if raw:  # two calls: the base class's overloads type each value of ``raw``
            return super().compile(source, name, filename, True, defer_init)
        return super().compile(source, name, filename, False, defer_init)


#: How ``tojson`` writes JSON (Jinja's default: keys sorted), and ``EncodedJson`` with it.
TOJSON_ARGUMENTS: dict[str, Any] = {"sort_keys": True}


class EncodedJson:
    """A value written as JSON once, the way ``tojson`` writes it, which ``tojson`` then puts in as
    it is (``dumps_with_encoded``): a planner's program (the GPU pages' is 58 KB of JSON, the same
    on the pages of every language) is encoded once per build, or read as text from the build cache, instead of
    on every page that embeds it."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    @classmethod
    def of(cls, value: Any) -> EncodedJson:
        return cls(json.dumps(value, **TOJSON_ARGUMENTS))


def dumps_with_encoded(value: Any, **arguments: Any) -> str:
    """``json.dumps(value, **arguments)``, with each ``EncodedJson`` in ``value`` written as its text.

    >>> dumps_with_encoded({"b": EncodedJson.of({"y": [1], "x": "<"}), "a": 1}, sort_keys=True)
    '{"a": 1, "b": {"x": "<", "y": [1]}}'
    """
    texts: list[str] = []

    def encoded(item: Any) -> str:
        if type(item) is not EncodedJson:
            raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")
        texts.append(item.text)
        return f"\0{len(texts) - 1}\0"  # a text no page's data holds (a NUL is refused)

    written = json.dumps(value, default=encoded, **arguments)
    for index, text in enumerate(texts):
        written = written.replace(f'"\\u0000{index}\\u0000"', text, 1)
    return written


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


def escaped(value: Any) -> str:
    """``markupsafe.escape(value)`` as a plain string: markup as it is, any other text with ``&``,
    ``<``, ``>``, ``'`` and ``"`` escaped as Jinja escapes them.

    >>> from markupsafe import escape
    >>> [escaped(v) == escape(v) for v in ("80 GB", "<b>&'" + '"', Markup("<i>x</i>"), 42)]
    [True, True, True, True]
    """
    if hasattr(value, "__html__"):
        return str(value.__html__())
    text = str(value)
    if "&" in text or "<" in text or ">" in text or "'" in text or '"' in text:
        return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;")
                .replace('"', "&#34;"))
    return text


def json_ld(data: Any) -> Markup:
    """Serialise data for a ``<script type="application/ld+json">``: no value can close the script.

    ``<``, ``>`` and ``&`` are written as JSON escapes, which parse to the same string.

    >>> str(json_ld({"a": "</script><b>"}))
    '{"a":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


class TemplateRefused(jinja2.TemplateNotFound):
    """A template the gate refuses (outside the project, not a regular file, too large)."""

    def __init__(self, name: str, refused: RefusedFile):
        super().__init__(name, refused.reason)
        self.refused = refused


class GatedLoader(jinja2.FileSystemLoader):
    """Jinja's file loader, reading each template through the build's gate (``read_project_file``):
    a template linked outside the project (to ``/proc/self/environ``…) is refused, never published."""

    def __init__(self, templates_dir: Path, root: Path):
        super().__init__(templates_dir)
        self.root = root

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = jinja2.loaders.split_template_path(template)
        for folder in self.searchpath:
            filename = os.path.join(folder, *pieces)
            try:
                source = read_project_file(filename, self.root).decode(self.encoding)
            except FileNotFoundError:
                continue
            except RefusedFile as refused:
                raise TemplateRefused(template, refused) from None
            mtime = os.path.getmtime(filename)
            return source, os.path.normpath(filename), lambda: os.path.getmtime(filename) == mtime
        raise jinja2.TemplateNotFound(template)


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates, in the build cache; one that cannot be written (a full
    disk) only means compiling again next time.

    Compiled templates are code, run as they are loaded: each file carries an HMAC of its bytes
    under a key that lives outside the project (``cache_key``), and a file whose tag does not
    match (planted, restored from a cache the machine does not control, damaged) is not loaded:
    the template is compiled again."""

    def __init__(self, folder: Path):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        super().__init__(str(folder))
        self._key = cache_key()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(self._get_cache_filename(bucket), "rb") as stream:
                data = stream.read(MAX_COMPILED_BYTES + 1)
        except OSError:
            return
        tag, code = data[:TAG_BYTES], data[TAG_BYTES:]
        if self._key is None or len(data) > MAX_COMPILED_BYTES or not hmac.compare_digest(tag, self._tag(code)):
            return  # not ours: compile again
        bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if self._key is None:
            return
        code = bucket.bytecode_to_string()
        try:
            atomic.write_bytes(Path(self._get_cache_filename(bucket)), self._tag(code) + code)
        except OSError:
            pass  # only a cache: the next build compiles again

    def _tag(self, code: bytes) -> bytes:
        assert self._key is not None
        return hmac.new(self._key, code, hashlib.sha256).digest()


TAG_BYTES = 32  # an HMAC-SHA256
MAX_COMPILED_BYTES = 8 * 1024 * 1024  # a compiled template is tens of KB


def cache_key() -> bytes | None:
    """The key that authenticates compiled templates: ``GPUGUIDE_CACHE_KEY`` when set (a CI secret:
    a cache restored from elsewhere is then only trusted when it was written with it), else a
    random key kept in the user's cache folder (``$XDG_CACHE_HOME/gpuguide/cache-key``, made on
    first use, readable by the user alone), never in the project: whoever can write the project's
    build cache cannot forge a tag. None (no key can be kept): compiled templates are not cached."""
    secret = os.environ.get("GPUGUIDE_CACHE_KEY")
    if secret:
        return hashlib.sha256(secret.encode("utf-8")).digest()
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(home) / "gpuguide" / "cache-key"
    try:
        key = path.read_bytes()
        if len(key) == 32:
            return key
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, os.urandom(32), mode=0o600)
        key = path.read_bytes()  # another build may have made it first: the one on disk wins
        return key if len(key) == 32 else None
    except OSError:
        return None


class TemplateReferences:
    """The templates each template extends, includes or imports, found by parsing it; kept between
    builds in ``references.json`` beside the compiled templates, by a digest of the source (so that
    a rebuild does not parse every template again)."""

    FILE = "references.json"

    def __init__(self, env: SiteEnvironment, cache_dir: Path | None):
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
            tree = self.env.parse_to_compile(source, name)
            self._known[key] = sorted(ref for ref in meta.find_referenced_templates(tree) if ref)
            self._changed = True
        return self._known[key]

    def save(self) -> None:
        """Keep what was found for the next build; drop the trees no compilation took (a template
        whose compiled code the bytecode cache had)."""
        self.env.forget_trees()
        if self.file is None or not self._changed:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_text(self.file, json.dumps(self._known, sort_keys=True))
        except OSError:
            pass  # only a cache: the next build parses again
