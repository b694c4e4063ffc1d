"""Reading editors' files: UTF-8 text, YAML that remembers where each value came from, front matter.

PyYAML's composer gives every node a start mark; we build plain Python values from the node tree
and keep a map from each value's path (``("gpus", 3, "memory_gb")``) to its line and column, so
that schema errors found later can point at the exact line. Duplicate keys, which PyYAML accepts
silently, are reported here.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from gpuguide.errors import Problems

PathKey = tuple[str | int, ...]


class FileState(NamedTuple):
    """What says a file changed, the one rule every cache and the no-change check use: size,
    modification and status-change times, inode. It is taken BEFORE the file is read, so an edit
    saved while a build runs always differs from what the build recorded (the next build sees it).
    A write changes ``ctime`` even when a tool restores ``mtime``."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int


def file_state(path: Path | str) -> FileState | None:
    """The state of ``path`` (following a symlink to its target), or None if it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return FileState(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


#: The largest file the build reads: far beyond any page, data file, template or asset of a site
#: (the real site's largest is under 1 MB), small enough that no file can exhaust memory.
MAX_FILE_BYTES = 16 * 1024 * 1024


class RefusedFile(Exception):
    """A file the build does not read: outside the project, not a regular file, or too large."""

    def __init__(self, path: Path | str, reason: str, hint: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.hint = Path(path), reason, hint


def inside(root_real: str, path: str) -> bool:
    """Whether the resolved ``path`` is ``root_real`` (resolved) or under it."""
    return os.path.commonpath([root_real, path]) == root_real


def open_project_file(path: Path | str, root: Path | str | None, max_bytes: int = MAX_FILE_BYTES) -> tuple[int, int]:
    """The one gate for every file the build reads (content, data, UI strings, templates, assets):
    an open descriptor and the file's size, or RefusedFile when it resolves outside the project
    ``root`` (a symbolic link, or a linked folder above it), is no regular file (a named pipe would
    block the build for good, a device never ends) or is larger than ``max_bytes``;
    FileNotFoundError when it does not exist. ``root`` None: the caller found the file by a walk
    that kept to the project (a page's body, read again)."""
    real = os.path.realpath(path)
    if root is not None and not inside(os.path.realpath(root), real):
        raise RefusedFile(path, f"the file leads outside the project, to {real}",
                          "keep the site's files inside the project folder: copy the file in rather than link it")
    try:
        # Non-blocking: opening a named pipe must not wait for a writer; fstat then refuses it.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RefusedFile(path, f"the file cannot be read ({exc.strerror})",
                          "check its permissions: the build must be able to read it") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise RefusedFile(path, "it is not a regular file (a named pipe, a device or a socket)",
                              "replace it with an ordinary file")
        if status.st_size > max_bytes:
            raise RefusedFile(path, f"the file is {status.st_size:,} bytes, over the {max_bytes:,} a file may have",
                              "split it into smaller files")
    except BaseException:
        os.close(fd)
        raise
    return fd, status.st_size


def read_project_file(path: Path | str, root: Path | str | None, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """A file's bytes, through the gate (``open_project_file``)."""
    fd, expected = open_project_file(path, root, max_bytes)
    try:
        # The size it has, and one byte more: a file that grows while it is read stops at the limit too.
        chunks, size, want = [], 0, expected + 1
        while size <= max_bytes:
            chunk = os.read(fd, min(want, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size, want = size + len(chunk), 65536
        if size > max_bytes:
            raise RefusedFile(path, f"the file grew past the {max_bytes:,} bytes a file may have while it was read",
                              "split it into smaller files")
        return b"".join(chunks)
    except OSError as exc:
        raise RefusedFile(path, f"the file cannot be read ({exc.strerror})", "check the disk and the file") from None
    finally:
        os.close(fd)


#: Names the walks skip, everywhere: hidden files and editors' leftovers (an Emacs lock ``.#page.md``
#: and autosave ``#page.md#``, a macOS resource fork ``._page.md``, a backup ``page.md~``).
def ignored_name(name: str) -> bool:
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))


class Walk(NamedTuple):
    """The files under a folder, and the entries refused with the reason."""

    files: list[Path]
    refused: list[tuple[Path, str]]


def walk_files(folder: Path, root: Path) -> Walk:
    """Every file under ``folder``, in sorted-path order (each folder's entries by name).

    Symbolic links are followed only when they stay inside the project ``root``: a link leaving
    it (which would publish any file of the machine), a broken link and a loop are refused, each
    with its reason, never followed.
    """
    files, refused = walk_names(folder, root)
    return Walk([Path(name) for name in files], [(Path(name), reason) for name, reason in refused])


def walk_names(folder: Path, root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """``walk_files`` with paths as strings: the no-change check walks ten thousand files before
    anything else, and making a ``Path`` of each was a third of its time."""
    real_root = os.path.realpath(root)
    files: list[str] = []
    refused: list[tuple[str, str]] = []
    if folder.is_dir() and not inside(real_root, os.path.realpath(folder)):
        # The folder itself is a link (or under one) that leaves the project: none of it is read.
        return files, [(str(folder), f"the folder leads outside the project, to {os.path.realpath(folder)}")]

    def visit(current: str, above: frozenset[tuple[int, int]]) -> None:
        # A loop is a folder reached again below itself; a folder also reached through a link
        # elsewhere (a sibling alias) is no loop, and is walked under both names.
        stat = os.stat(current)
        identity = (stat.st_dev, stat.st_ino)
        if identity in above:
            refused.append((current, "the folder links back to a folder above it (a loop)"))
            return
        above = above | {identity}
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            refused.append((current, f"the folder cannot be read ({exc.strerror})"))
            return
        for entry in entries:
            if ignored_name(entry.name):
                continue
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if not inside(real_root, target):
                    refused.append((entry.path, f"the symbolic link leads outside the project, to {target}"))
                    continue
                if not os.path.exists(target):
                    refused.append((entry.path, "the symbolic link leads nowhere (its target is missing)"))
                    continue
            if entry.is_dir():
                visit(entry.path, above)
            elif entry.is_file():
                files.append(entry.path)
            else:
                refused.append((entry.path, "it is not a regular file (a named pipe, a device or a socket)"))

    if folder.is_dir():
        visit(str(folder), frozenset())
    return files, refused


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


#: Characters no page may carry: C0 and C1 controls but tab, line feed and carriage return (HTML
#: forbids them; a terminal escape in a title would reach every reader's tab).
CONTROL_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def read_text(path: Path, problems: Problems) -> str | None:
    """The file's text, read through the gate (``read_project_file``, within ``problems.root``), or
    None after reporting why it cannot be used (refused, not UTF-8, empty)."""
    try:
        raw = read_project_file(path, problems.root)
    except FileNotFoundError:
        problems.error(path, 1, 1, "the file is missing", "restore it from version control")
        return None
    except RefusedFile as refused:
        problems.error(path, 1, 1, refused.reason, refused.hint)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        # In characters, as every other position: the valid text before the byte on its line.
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start:exc.start].decode("utf-8", "replace")) + 1
        problems.error(path, line, column, f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                       "save it as UTF-8 in your editor")
        return None
    text = text.removeprefix("\ufeff")  # a byte order mark is no content
    control = CONTROL_CHARACTER.search(text)
    if control is not None:
        line = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        problems.error(path, line, column, f"the file contains the control character U+{ord(control.group()):04X}",
                       "delete the invisible control character (it often comes from copy and paste)")
        return None
    if not text.strip():
        problems.error(path, 1, 1, "the file is empty", "add content or delete the file")
        return None
    return text


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
