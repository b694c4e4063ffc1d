"""YAML that remembers where each value came from (``parse_yaml``, ``YamlDocument``), and the
front matter of Markdown files (``split_front_matter``).

PyYAML's composer gives every node a start mark; we build plain Python values from the node tree
and keep a map from each value's path (``("gpus", 3, "memory_gb")``) to its line and column, so
that schema errors found later can point at the exact line. Duplicate keys, which PyYAML accepts
silently, are reported here.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from gpuguide import cached
from gpuguide.errors import Problems
from gpuguide.structure.project_files import CONTROL_CHARACTER

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


# libyaml's parser (C) when PyYAML was built with it: five times faster on front matter, same
# nodes, marks and errors as the pure-Python SafeLoader.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _PositionLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader used only for its composer and scalar constructor."""


#: How deep mappings and lists may nest: the site's own files need 5; anything far deeper is a mistake
#: (or an attack), refused before Python recursion could fail on it.
MAX_YAML_DEPTH = 32


def _check_events(text: str, path: Path, problems: Problems, line_offset: int) -> bool:
    """Refuse what the site never needs and a hostile file could abuse: anchors and aliases (a
    "billion laughs" document expands to gigabytes) and deep nesting. One pass over libyaml's
    events, before anything is built; syntax errors are left to the parse that follows."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_BaseLoader):
            mark = event.start_mark
            where = (mark.line + 1 + line_offset, mark.column + 1) if mark else (1 + line_offset, 1)
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                problems.error(path, *where, "YAML anchors and aliases (`&name`, `*name`) are not allowed",
                               "write the value out in full where it is needed")
                return False
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    problems.error(path, *where, f"the YAML nests more than {MAX_YAML_DEPTH} levels deep",
                                   "flatten the structure: the site's files need a handful of levels")
                    return False
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        pass  # the parse below reports it with its position and a hint
    return True


def parse_yaml(text: str, path: Path, problems: Problems, line_offset: int = 0) -> YamlDocument | None:
    """Parse one YAML document; report syntax errors, duplicate keys, values that cannot be read
    (a date that does not exist), anchors and deep nesting, each with its line."""
    if not _check_events(text, path, problems, line_offset):
        return None
    try:
        loader = _PositionLoader(text)
    except yaml.reader.ReaderError as exc:  # a control character: the reader refuses the text up front
        _reader_error(exc, text, path, problems, line_offset)
        return None
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(None, {}, line_offset, text)
        positions: dict[PathKey, Position] = {}
        before = len(problems.items)
        value = _build(loader, node, (), positions, path, problems, line_offset)
        if len(problems.items) > before:
            return None
        return YamlDocument(value, positions, line_offset, text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or "invalid YAML"
        if exc.context and "quoted scalar" in exc.context and exc.context_mark:
            # The scanner fails at the end of the file; the editor's mistake is where the quote opens.
            mark, message = exc.context_mark, "a quote opens here and is never closed"
        line = mark.line + 1 + line_offset if mark else 1 + line_offset
        column = mark.column + 1 if mark else 1
        hint = _yaml_hint(message, text, mark)
        problems.error(path, line, column, f"invalid YAML: {message}", hint)
        return None
    except yaml.reader.ReaderError as exc:
        _reader_error(exc, text, path, problems, line_offset)
        return None
    except yaml.YAMLError as exc:  # errors without a position
        problems.error(path, 1 + line_offset, 1, f"invalid YAML: {exc}")
        return None
    finally:
        loader.dispose()


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


def _reader_error(exc: yaml.reader.ReaderError, text: str, path: Path, problems: Problems, line_offset: int) -> None:
    before = text[: exc.position]
    line = before.count("\n") + 1 + line_offset
    column = exc.position - (before.rfind("\n") + 1) + 1
    problems.error(path, line, column, f"invalid YAML: the character U+{exc.character:04X} is not allowed",
                   "delete the invisible control character (it often comes from copy and paste)")


def _yaml_hint(message: str, text: str, mark: Any) -> str:
    if "\t" in message or "tab" in message:
        return "indent with spaces, not tabs"
    if mark is not None:
        lines = text.splitlines()
        if 0 <= mark.line < len(lines) and "\t" in lines[mark.line]:
            return "indent with spaces, not tabs"
    if "mapping values are not allowed" in message:
        return 'a value that contains ": " must be in quotes, e.g. title: "GPU : le guide"'
    if "quote" in message or "end of stream" in message:
        return "close the quote that opens on this value"
    return "check the indentation and that each `key: value` pair is on its own line"


def _build(loader: yaml.SafeLoader, node: yaml.Node, path: PathKey, positions: dict[PathKey, Position],
           source: Path, problems: Problems, line_offset: int) -> Any:
    positions[path] = Position(node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                problems.error(source, key_node.start_mark.line + 1 + line_offset, key_node.start_mark.column + 1,
                               f"the key `{key_node.value}` is not a plain word",
                               "YAML reads yes/no/on/off as true/false: put the key in quotes")
                continue
            key = str(key)
            if key in result:
                problems.error(source, key_node.start_mark.line + 1 + line_offset, key_node.start_mark.column + 1,
                               f"duplicated key `{key}`",
                               f"it is already set on line {positions[path + (key,)].line + line_offset}; keep one")
                continue
            result[key] = _build(loader, value_node, path + (key,), positions, source, problems, line_offset)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, path + (i,), positions, source, problems, line_offset)
                for i, item in enumerate(node.value)]
    try:
        value = loader.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:  # a date that does not exist, a number too long to read
        problems.error(source, node.start_mark.line + 1 + line_offset, node.start_mark.column + 1,
                       f"cannot read the value `{str(node.value)[:40]}`: {exc}",
                       "write a date as YYYY-MM-DD, and a number in ordinary digits" if "date" in str(exc)
                       or "month" in str(exc) or "day" in str(exc) else "write a plain number or quote the text")
        return None
    if isinstance(value, str) and (control := CONTROL_CHARACTER.search(value)) is not None:
        # Written as an escape (`"\x07"`, `"\0"`): the file itself is clean, the value is not.
        problems.error(source, node.start_mark.line + 1 + line_offset, node.start_mark.column + 1,
                       f"the value contains the control character U+{ord(control.group()):04X}",
                       "remove the escape sequence (`\\x07`, `\\0`, `\\e`…) from the text")
        return None
    return value


#: Lines before the front matter's YAML: the opening ``---``.
FRONT_MATTER_OFFSET = 1


@dataclass
class FrontMatterFile:
    """A Markdown file split into its YAML front matter and its body."""

    front_matter: YamlDocument
    body_offset: int  # index in the text where the body starts
    body_line: int  # 1-based line where the body starts


def split_front_matter(text: str, path: Path, problems: Problems) -> FrontMatterFile | None:
    """Split ``---``-delimited YAML front matter from the Markdown body."""
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
    document = parse_yaml(yaml_text, path, problems, line_offset=FRONT_MATTER_OFFSET)
    if document is None:
        return None
    if not isinstance(document.value, dict):
        problems.error(path, 2, 1, "the front matter must be a list of `key: value` fields")
        return None
    return FrontMatterFile(document, sum(map(len, lines[:index + 1])), index + 2)
