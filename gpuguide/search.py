"""Static search: Pagefind indexes the staged site before it is published.

Pagefind (``pip install 'pagefind[extended]'``, a wheel that ships its binary) writes one index
per ``<html lang>`` into ``pagefind/``; the search page loads the index of its own language, so
results never mix languages. Only ``<main data-pagefind-body>`` is indexed (not menus or footers).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .errors import Problems


def build_search_index(site_dir: Path, problems: Problems) -> None:
    """Index ``site_dir`` with Pagefind; report a problem (not a traceback) if it cannot run."""
    command = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--silent"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        problems.error("data/site.yaml", 1, 1, f"the search index could not be built: {exc}",
                       "install Pagefind: pip install 'pagefind[extended]'")
        return
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        problems.error("data/site.yaml", 1, 1,
                       f"the search index could not be built: {detail[-1] if detail else 'Pagefind failed'}",
                       "install Pagefind: pip install 'pagefind[extended]'")
