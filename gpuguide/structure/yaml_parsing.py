"""Parsing YAML with PyYAML into values that remember where each came from
(``yaml_documents.parse_yaml``, which imports this module only when a text must be parsed: a
build whose YAML all comes from the caches, a page's body edited, never loads PyYAML).

PyYAML's composer gives every node a start mark; the values are built from the node tree with a
map from each value's path (``("gpus", 3, "memory_gb")``) to its line and column, so that schema
errors found later can point at the exact line. Duplicate keys, which PyYAML accepts silently,
anchors and aliases, and deep nesting are reported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpuguide.errors import Problems
from gpuguide.structure.project_files import CONTROL_CHARACTER
from gpuguide.structure.yaml_documents import PathKey, Position, YamlDocument

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


def parse(text: str, path: Path, problems: Problems, line_offset: int = 0) -> YamlDocument | None:
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
