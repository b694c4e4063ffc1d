"""Where a site's inputs and output live (standard library only: the command line loads it first)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    """Where a site's inputs and output live; every path derives from the project root."""

    root: Path

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def assets_dir(self) -> Path:
        return self.root / "templates" / "assets"

    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    @property
    def cache_dir(self) -> Path:
        """The build cache (``.build-cache/``): safe to delete; the next build is then a full one."""
        return self.root / ".build-cache"
