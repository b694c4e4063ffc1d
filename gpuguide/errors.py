"""Problems found in the editors' input, reported all at once with a place and a fix."""

from __future__ import annotations

import difflib
import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in an input file, printed as ``path:line:column: error: message (hint)``."""

    path: str
    line: int
    column: int
    message: str
    hint: str | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


class BuildFailed(Exception):
    """Raised at the end of a stage when it found errors; carries every problem of the run."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = sorted(set(problems))  # generated pages share a source: report each problem once
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass
class Problems:
    """Collects problems across a stage so the editor sees all of them in one run."""

    root: Path = field(default_factory=Path.cwd)
    items: list[Problem] = field(default_factory=list)

    def relative(self, path: Path | str) -> str:
        """``path`` as the editor knows it: relative to the project root."""
        # Absolute, but not resolved: a symbolic link is named where it is, not where it leads.
        absolute_text, root_text = os.path.abspath(path), os.path.abspath(self.root)
        if absolute_text.startswith(root_text + os.sep):  # the usual case, without resolving links
            return Path(absolute_text[len(root_text) + 1:]).as_posix()
        absolute, root = Path(absolute_text), Path(root_text)
        for candidate, base in ((absolute, root), (absolute.resolve(), root.resolve())):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
        return Path(path).as_posix()

    def error(self, path: Path | str, line: int, column: int, message: str, hint: str | None = None) -> None:
        self.items.append(Problem(self.relative(path), line, column, message, hint, "error"))

    def warning(self, path: Path | str, line: int, column: int, message: str, hint: str | None = None) -> None:
        self.items.append(Problem(self.relative(path), line, column, message, hint, "warning"))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.items if p.severity == "warning"]

    def raise_if_errors(self, strict: bool = False) -> None:
        failing = self.items if strict else self.errors
        if failing:
            raise BuildFailed(failing)


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 warnings`` (English: the command line's language).

    >>> plural(1, "error"), plural(0, "warning"), plural(2, "page")
    ('1 error', '0 warnings', '2 pages')
    """
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A hint naming the closest valid choice, for typos such as ``titel``."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


#: What each system error means for a build, and what to do about it (the path goes first).
_SYSTEM_ERRORS: dict[int, tuple[str, str]] = {
    errno.EACCES: ("permission denied", "give the build write access to it, or run it as the project's owner"),
    errno.EPERM: ("the operation is not permitted (an immutable or append-only file?)",
                  "remove the flag (`chattr -i`) or build into another folder"),
    errno.EROFS: ("the file system is read-only", "build on a writable copy of the project, or remount it read-write"),
    errno.ENOSPC: ("no space left on the device", "free some space and build again"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space and build again"),
    errno.ENAMETOOLONG: ("a file name is too long", "shorten the slug or id that makes it"),
    errno.ENOTDIR: ("a file stands where a folder must be", "move the file away"),
    errno.EISDIR: ("a folder stands where a file must be", "move the folder away"),
    errno.EBUSY: ("the folder is in use (a mount point?) and cannot be replaced",
                  "publish into a folder inside the mount: make `site` a symbolic link to it"),
    errno.EXDEV: ("the site and its staging folder are on different devices",
                  "make `site` a symbolic link to a folder on one device, which the build publishes through"),
    errno.EMFILE: ("too many files are open", "raise the limit (`ulimit -n`) and build again"),
    errno.EIO: ("the disk reported an input/output error", "check the disk"),
}


def system_error_message(exc: OSError, root: Path) -> str:
    """A system error as one line naming the path and what to do:
    ``site/fr: no space left on the device (free some space and build again)``."""
    what, hint = _SYSTEM_ERRORS.get(exc.errno or 0, (exc.strerror or str(exc), "check the path and build again"))
    path = exc.filename if exc.filename is not None else None
    where = Problems(root).relative(os.fsdecode(path)) if path is not None else "the project"
    return f"{where}: {what} ({hint})"
