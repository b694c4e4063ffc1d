"""Whether anything changed since the last build: the one place that decides it, before anything is loaded.

One change rule: a file's ``FileState`` (size, times, inode), taken before it is read
(``structure.project_files``), and compared by content when its times were too close to the snapshot to
tell an edit made just after it (``cached.settled``). The ``Manifest`` records the states of every
input file (content, data, templates, the generator's code), the library versions and the options
of the last successful build, and every file it wrote in ``site/``: when all are as they were, the
command says so and stops. What a killed dev-server edit left in ``site/`` (a temporary file) is
removed first (``remove_stray_temporaries``), when an edit was left unfinished (``site_edit``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gpuguide import cached
from gpuguide.build.fingerprints import CACHE_FORMAT, code_files, digest, library_versions
from gpuguide.cached import Invalid, Snapshot
from gpuguide.project import Project
from gpuguide.structure.project_files import FileState, file_state, walk_names

if TYPE_CHECKING:  # the no-change check runs before the heavy modules are imported
    from gpuguide.build.page_cache import PageEntry
    from gpuguide.errors import Problem

def _states(folder: Path, root: Path) -> dict[str, FileState | str]:
    """The state of every file under ``folder``, as the loader will see them (``walk_files``: symlinks
    within the project followed, others refused: a refusal is part of the state, so the build runs
    and reports it)."""
    files, refused = walk_names(folder, root)
    found: dict[str, FileState | str] = {path: state for path in files if (state := file_state(path))}
    found.update({path: f"{Snapshot.REFUSED}{reason}" for path, reason in refused})
    return found


def input_states(project: Project) -> Snapshot:
    """Every input's state, taken before the build reads anything: content, data, templates, code;
    and the content digest of each file whose state does not yet tell a later edit (``cached.settled``)."""
    taken_ns = time.time_ns()  # before the first state: a file's times are compared with it
    states = Snapshot(taken_ns=taken_ns)
    for folder in (project.content_dir, project.data_dir, project.templates_dir):
        states.update(_states(folder, project.root))
        states.walked.add(str(folder))
    for path in code_files():
        stat = path.stat()
        states[str(path)] = FileState(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
    # Read now, before the build reads it: an edit saved from now on differs from this digest.
    states.racy = {path: content_digest(path) for path, state in states.items()
                   if not isinstance(state, str) and not cached.settled(state, taken_ns)}
    return states


def content_digest(path: str) -> str:
    """A digest of the file's bytes ("unreadable" if it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            return hashlib.file_digest(stream, lambda: hashlib.blake2b(digest_size=16)).hexdigest()
    except OSError:
        return "unreadable"


@dataclass
class Manifest:
    """What the last successful build was made from, and what it wrote: ``.build-cache/inputs.cache``."""

    inputs: Snapshot  # each ``FileState`` loads back as a plain tuple (equal to it)
    options: dict[str, Any]
    written: dict[str, tuple[int, int]]  # file under site/ → (size, mtime)
    pages: int
    warnings: list[Problem]

    FILE = "inputs.cache"

    @staticmethod
    def _key() -> str:
        return digest(CACHE_FORMAT, sys.version, library_versions())

    @classmethod
    def load(cls, project: Project) -> Manifest | None:
        """What the last successful build recorded, if anything. What follows judges ``site/`` by
        it: the temporary files a killed edit left there are removed first."""
        marker = project.cache_dir / SITE_EDIT_MARKER
        if marker.exists():
            remove_stray_temporaries(project.site_dir)
            marker.unlink(missing_ok=True)
        return cached.load(project.cache_dir / cls.FILE, cls._key(), _decode_manifest)

    def unchanged(self, project: Project, options: dict[str, Any], inputs: Snapshot, site: SiteCheck) -> bool:
        """Nothing changed since that build (then site/ is already right): the same options and
        inputs, and every file it wrote in site/ as it left it (``site``). An input whose state was
        not settled when that build took it must also have the content it had then."""
        if self.options != options or self.inputs != inputs:
            return False
        for path, then in self.inputs.racy.items():
            if (inputs.racy.get(path) or content_digest(path)) != then:
                return False
        if site.changed():
            return False
        if self.inputs.racy.keys() - inputs.racy.keys():
            # Those files' states are settled now: record them as of this snapshot, so the next
            # check need not read them again (only a cache: a failure to save changes nothing).
            self.inputs = inputs
            try:
                self.save(project)
            except OSError:
                pass
        return True

    def save(self, project: Project) -> None:
        # Flat lists of numbers, decoded by ``zip`` into tuples (twenty thousand files at once).
        states = {path: state for path, state in self.inputs.items() if not isinstance(state, str)}
        refused = {path: state for path, state in self.inputs.items() if isinstance(state, str)}
        cached.save(project.cache_dir / self.FILE, self._key(), {
            "inputs": list(states), "states": [number for state in states.values() for number in state],
            "refused": refused, "taken_ns": self.inputs.taken_ns, "racy": self.inputs.racy,
            "options": self.options, "written": list(self.written),
            "sizes": [number for state in self.written.values() for number in state],
            "pages": self.pages,
            "warnings": [[w.path, w.line, w.column, w.message, w.hint, w.severity] for w in self.warnings],
        })


def _decode_manifest(saved: Any) -> Manifest:
    inputs, states, written, sizes = saved["inputs"], saved["states"], saved["written"], saved["sizes"]
    if (len(states) != 4 * len(inputs) or len(sizes) != 2 * len(written)
            or not all(type(path) is str for path in (*inputs, *written))):
        raise Invalid("the manifest's lists do not match")
    numbers = iter(states)
    # Plain tuples, made by ``zip`` at C speed: equal to the ``FileState`` each was saved from.
    loaded = cast("Iterable[tuple[str, FileState]]", zip(inputs, zip(numbers, numbers, numbers, numbers)))
    snapshot = Snapshot(loaded, _int(saved["taken_ns"]), _texts(saved["racy"]))
    snapshot.update(_texts(saved["refused"]))
    numbers = iter(sizes)
    warnings = [_warning(warning) for warning in saved["warnings"]]
    options = saved["options"]
    if type(options) is not dict:
        raise Invalid("options")
    return Manifest(snapshot, options, dict(zip(written, zip(numbers, numbers))), _int(saved["pages"]), warnings)


def _warning(saved: Any) -> Problem:
    from gpuguide.errors import Problem

    path, line, column, message, hint, severity = saved
    if (type(path) is not str or type(line) is not int or type(column) is not int or type(message) is not str
            or (hint is not None and type(hint) is not str) or severity not in ("error", "warning")):
        raise Invalid("a warning")
    return Problem(path, line, column, message, hint, severity)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise Invalid("expected a whole number")
    return value


def _texts(value: Any) -> dict[str, str]:
    if type(value) is not dict or not all(type(text) is str for text in value.values()):
        raise Invalid("expected texts by name")
    return value


#: There while the dev server writes pages into ``site/`` (``site_edit``): left by an edit killed
#: between a write and its rename, the one way a temporary file stays in ``site/`` (builds write into
#: a staging folder, which ``publish.recover`` removes). Without it, no build walks the twenty thousand
#: files of ``site/`` to look for one (0.1 s of a one-page edit at 10,000 pages).
SITE_EDIT_MARKER = "site-edit-in-progress"


@contextmanager
def site_edit(project: Project) -> Iterator[None]:
    """Around the dev server's writes into ``site/``: the marker is left if they do not all finish."""
    marker = project.cache_dir / SITE_EDIT_MARKER
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    yield
    marker.unlink(missing_ok=True)


#: The temporary file of a write killed before its rename (``atomic``): ``.<name>.tmp-<pid>``.
_TEMPORARY = re.compile(r"\..+\.tmp-[0-9]+")


def remove_stray_temporaries(site_dir: Path) -> list[str]:
    """Remove the temporary files a killed build or dev-server edit left anywhere in ``site_dir``
    (no build or edit runs meanwhile: the caller holds the build lock); return them (relative)."""
    removed: list[str] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(site_dir / relative if relative else site_dir) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(f"{relative}{entry.name}/")
                    elif entry.name.startswith(".") and _TEMPORARY.fullmatch(entry.name):
                        try:
                            os.unlink(entry.path)
                        except FileNotFoundError:
                            continue
                        removed.append(relative + entry.name)
        except (FileNotFoundError, NotADirectoryError):
            continue  # no site yet (a first build), or a folder gone meanwhile
    return sorted(removed)


class SiteCheck:
    """The files of site/ no longer as the last build wrote them (another size or modification time,
    or gone): the one look a build takes at site/, for the no-change check, the pages to keep and
    the cards to keep. A child process takes it on the other core while this one walks the inputs
    and loads the site (twenty thousand ``stat`` at ten thousand pages: 50 ms of a one-page edit,
    which then waits for none of it); this process does, if it cannot or may not (``fork``) fork."""

    def __init__(self, site_dir: Path, written: dict[str, tuple[int, int]], fork: bool = True):
        self.site_dir, self.written = site_dir, written
        self._found: frozenset[str] | None = None
        self._child: tuple[int, int] | None = None  # pid, read end of its pipe
        if not written:
            self._found = frozenset()
        if not written or not fork or not hasattr(os, "fork"):  # no fork on Windows
            return
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:  # the child: no cleanup of the parent's objects, no return into its code
            code = 1
            try:
                os.close(read_end)
                with open(write_end, "wb") as out:
                    out.write(b"\0".join(os.fsencode(relative) for relative in self._look()))
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        self._child = (pid, read_end)

    def _look(self) -> list[str]:
        found = site_states(self.site_dir, self.written)
        return [relative for relative, state in self.written.items() if found.get(relative) != state]

    def changed(self) -> frozenset[str]:
        """Those files (the child's answer, waited for; looked up here if it has none)."""
        if self._found is None:
            answer = self._answer()
            self._found = frozenset(self._look() if answer is None else answer)
        return self._found

    def as_written(self, relatives: Iterable[str]) -> dict[str, tuple[int, int]]:
        """Of ``relatives``, the files still as the last build wrote them, with that state."""
        changed, written = self.changed(), self.written
        return {relative: written[relative] for relative in relatives if relative in written and relative not in changed}

    def _answer(self) -> list[str] | None:
        if self._child is None:
            return None
        pid, read_end = self._child
        self._child = None
        try:
            with open(read_end, "rb") as answer:
                data = answer.read()
            _, status = os.waitpid(pid, 0)
        except OSError:
            return None
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        return [os.fsdecode(name) for name in data.split(b"\0")] if data else []

    def close(self) -> None:
        """End the child if its answer was not asked for (a build that failed first)."""
        if self._child is not None:
            pid, read_end = self._child
            self._child = None
            os.close(read_end)  # its write fails, and it leaves
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


def site_states(site_dir: Path, relatives: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Size and modification time of each of ``relatives`` (paths under ``site_dir``) that exists.
    Looked up from the open folder (``dir_fd``): twenty thousand files without joining their paths
    or walking the folders above ``site/`` each time."""
    try:
        folder = os.open(site_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return {}
    found: dict[str, tuple[int, int]] = {}
    try:
        for relative in relatives:
            try:
                stat = os.stat(relative, dir_fd=folder)
            except OSError:
                continue
            found[relative] = (stat.st_size, stat.st_mtime_ns)
    finally:
        os.close(folder)
    return found


def written_files(site_dir: Path, pages: dict[str, PageEntry], others: Iterable[str],
                  known: dict[str, tuple[int, int]] | None = None) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file of the site: the pages' are in their entries (taken
    when written, or checked when reused), ``known`` ones were checked by this build, the others
    are looked up."""
    files = {output: (entry.size, entry.mtime_ns) for output, entry in pages.items()}
    known = known or {}
    files.update({relative: known[relative] for relative in others if relative in known})
    unknown = [relative for relative in others if relative not in known]
    found = site_states(site_dir, unknown)
    for relative in unknown:
        if relative not in found:  # written by this build: it must be there
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(site_dir / relative))
    files.update(found)
    return files
