"""Digests the build's caches are keyed by: ``digest`` of any parts, and ``code_version``, the
generator's own source with the Python and library versions that shape the output (``LIBRARIES``):
a new version of either rebuilds everything."""

from __future__ import annotations

import hashlib
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

#: Bump to invalidate every cache (a change in how entries are computed).
CACHE_FORMAT = 9

#: The libraries whose versions shape the output: a new version rebuilds everything.
LIBRARIES = ("jinja2", "markupsafe", "markdown-it-py", "mdit-py-plugins", "babel", "pydantic", "pyyaml",
             "python-slugify", "num2words", "lxml", "pagefind", "pillow")


def digest(*parts: Any) -> str:
    """A short digest of ``parts``: text as UTF-8, bytes as they are, anything else by ``repr``."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        # Each part is tagged with its kind, so "1" and 1 differ.
        if isinstance(part, bytes):
            hasher.update(b"b")
            hasher.update(part)
        elif isinstance(part, str):
            hasher.update(b"s")
            hasher.update(part.encode("utf-8", "surrogatepass"))
        else:
            hasher.update(b"r")
            hasher.update(repr(part).encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()


@lru_cache(maxsize=1)
def library_versions() -> tuple[tuple[str, str | None], ...]:
    versions: list[tuple[str, str | None]] = []
    for name in LIBRARIES:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, None))
    return tuple(versions)


def code_files() -> list[Path]:
    package = Path(__file__).resolve().parent.parent
    return sorted(package.rglob("*.py"))


@lru_cache(maxsize=1)
def code_version() -> str:
    """The generator's own source, the Python version and the libraries' versions."""
    return digest(CACHE_FORMAT, sys.version, *[path.read_bytes() for path in code_files()], library_versions())

