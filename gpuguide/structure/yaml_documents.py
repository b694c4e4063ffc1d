"""YAML that remembers where each value came from (``parse_yaml``, ``YamlDocument``), the data
files' YAML kept between builds (``DocumentCache``), and the front matter of Markdown files
(``front_matter_text``, ``split_front_matter``).

The parsing itself, with PyYAML, is ``yaml_parsing``'s: imported on the first text to parse, so a
build whose YAML all comes from the caches (a page's body edited) never loads PyYAML.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from gpuguide import cached
from gpuguide.errors import Problems

PathKey = tuple[str | int, ...]


class Position(NamedTuple):  # a tuple: cheap to build, compare and cache by the hundred thousand
    line: int  # 1-based
    column: int  # 1-based


class YamlDocument:
    """A parsed YAML document and where each of its values starts.

    Built from the content cache, a document holds its value and its YAML text only: positions
    are needed for error messages, so they are found again (by parsing the text) when first asked.
    """

    def __init__(self, value: Any, positions: dict[PathKey, Position] | None, line_offset: int = 0,
                 text: str | None = None):
        self.value = value
        self._positions = positions
        self.line_offset = line_offset  # lines before the YAML starts (front matter: the opening ``---``)
        self.text = text

    @property
    def positions(self) -> dict[PathKey, Position]:
        if self._positions is None:
            self._positions = {}
            if self.text is not None:
                found = parse_yaml(self.text, Path(), Problems(Path()), self.line_offset)
                self._positions = (found._positions or {}) if found is not None else {}
        return self._positions

    def position(self, path: PathKey) -> Position:
        """The position of ``path``, or of its nearest ancestor that has one."""
        positions = self.positions
        while path not in positions and path:
            path = path[:-1]
        pos = positions.get(path, Position(1, 1))
        return Position(pos.line + self.line_offset, pos.column)


def parse_yaml(text: str, path: Path, problems: Problems, line_offset: int = 0) -> YamlDocument | None:
    """Parse one YAML document; report syntax errors, duplicate keys, values that cannot be read
    (a date that does not exist), anchors and deep nesting, each with its line
    (``yaml_parsing.parse``: PyYAML is imported on the first text to parse, 8 ms a build saves
    when every text comes from the caches)."""
    from gpuguide.structure.yaml_parsing import parse

    return parse(text, path, problems, line_offset)


class DocumentCache:
    """The data files' YAML values as last parsed, by the digest of their text
    (``.build-cache/documents.cache``): a build after a page or price edit parses only the files
    whose text changed, not the site's 300 KB of data again (0.15 s of every rebuild of the real
    site). A document found here has no positions: like the front matter the content cache keeps,
    they are found again by parsing its text when an error asks for one. Only a document that parsed
    without a problem, of values JSON keeps (and dates), is kept; valid for one code version."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self.values: dict[str, Any] = values or {}  # digest → value, as loaded
        self.used: dict[str, Any] = {}  # what this load parsed or found: what the next save keeps

    @classmethod
    def load(cls, path: Path, key: str) -> DocumentCache:
        return cls(cached.load(path, key, _decode_documents))

    def save(self, path: Path, key: str) -> None:
        if self.used.keys() != self.values.keys():  # nothing parsed anew, nothing dropped: nothing to write
            cached.save(path, key, {digest: _encode_value(value) for digest, value in self.used.items()})
            self.values = dict(self.used)

    def parse(self, text: str, path: Path, problems: Problems) -> YamlDocument | None:
        """``parse_yaml(text, path, problems)``, from the cache when this text parsed before."""
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        value = self.values.get(digest, _ABSENT)
        if value is not _ABSENT:
            self.used[digest] = value
            return YamlDocument(value, None, 0, text)
        before = len(problems.items)
        document = parse_yaml(text, path, problems)
        if document is not None and len(problems.items) == before and _keeps(document.value):
            self.used[digest] = document.value
        return document


_ABSENT = object()
#: How a date is kept in JSON: a one-key object whose key no YAML file can hold (a NUL is refused).
_DATE = "\0date"


def _keeps(value: Any) -> bool:
    """Whether JSON (and ``_DATE``) gives ``value`` back with the same types."""
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and not key.startswith("\0") and _keeps(item) for key, item in value.items())
    if kind is list:
        return all(_keeps(item) for item in value)
    return kind in (str, int, float, bool, datetime.date) or value is None


def _encode_value(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _encode_value(item) for key, item in value.items()}
    if kind is list:
        return [_encode_value(item) for item in value]
    if kind is datetime.date:
        return {_DATE: value.isoformat()}
    return value


def _decode_value(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        if len(value) == 1 and _DATE in value:
            return datetime.date.fromisoformat(value[_DATE])  # ValueError or TypeError: no cache
        return {key: _decode_value(item) for key, item in value.items()}
    if kind is list:
        return [_decode_value(item) for item in value]
    return value


def _decode_documents(saved: Any) -> dict[str, Any]:
    if type(saved) is not dict:
        raise cached.Invalid("the documents")
    return {digest: _decode_value(value) for digest, value in saved.items()}


#: Lines before the front matter's YAML: the opening ``---``.
FRONT_MATTER_OFFSET = 1


@dataclass
class FrontMatterFile:
    """A Markdown file split into its YAML front matter and its body."""

    front_matter: YamlDocument
    body_offset: int  # index in the text where the body starts
    body_line: int  # 1-based line where the body starts


class FrontMatterText(NamedTuple):
    """Where a Markdown file's front matter is: its YAML text, and where the body starts."""

    yaml: str
    body_offset: int  # index in the text where the body starts
    body_line: int  # 1-based line where the body starts


def front_matter_text(text: str, path: Path, problems: Problems) -> FrontMatterText | None:
    """The ``---``-delimited YAML front matter of a Markdown file, not parsed; reports a missing,
    unclosed or empty one."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        problems.error(path, 1, 1, "the page has no front matter",
                       "start the file with a line `---`, the page's fields (title, description, …), then `---`")
        return None
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            break
    else:
        problems.error(path, 1, 1, "the front matter is not closed", "add a line `---` after the page's fields")
        return None
    yaml_text = "".join(lines[1:index])
    if not yaml_text.strip():
        problems.error(path, 1, 1, "the front matter is empty", "add the page's fields (title, description, …)")
        return None
    return FrontMatterText(yaml_text, sum(map(len, lines[:index + 1])), index + 2)


def split_front_matter(text: str, path: Path, problems: Problems,
                       front: FrontMatterText | None = None) -> FrontMatterFile | None:
    """Split ``---``-delimited YAML front matter from the Markdown body, and parse it. ``front``:
    the file's ``front_matter_text``, if found already."""
    if front is None:
        front = front_matter_text(text, path, problems)
        if front is None:
            return None
    document = parse_yaml(front.yaml, path, problems, line_offset=FRONT_MATTER_OFFSET)
    if document is None:
        return None
    if not isinstance(document.value, dict):
        problems.error(path, 2, 1, "the front matter must be a list of `key: value` fields")
        return None
    return FrontMatterFile(document, front.body_offset, front.body_line)
