"""Static search: Pagefind indexes the staged site before it is published.

Pagefind (``pip install 'pagefind[extended]'``, a wheel that ships its binary) writes one index
per ``<html lang>`` into ``pagefind/``; the search page loads the index of its own language, so
results never mix languages. Only ``<main data-pagefind-body>`` is indexed (not menus or footers).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gpuguide.errors import Problems


def build_search_index(site_dir: Path, problems: Problems) -> None:
    """Index ``site_dir`` with Pagefind; report a problem (not a traceback) if it cannot run."""
    command = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--silent"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        problems.error(problems.root / "data" / "site.yaml", 1, 1, f"the search index could not be built: {exc}",
                       "install Pagefind: pip install 'pagefind[extended]'")
        return
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        problems.error(problems.root / "data" / "site.yaml", 1, 1,
                       f"the search index could not be built: {detail[-1] if detail else 'Pagefind failed'}",
                       "install Pagefind: pip install 'pagefind[extended]'")
    else:
        _sort_entry(site_dir / "pagefind" / "pagefind-entry.json")


def _sort_entry(entry: Path) -> None:
    """Pagefind lists the languages of its entry file in hash-map order, which changes from run to
    run; sorting them makes two builds of the same input byte-identical (the JSON means the same)."""
    if not entry.is_file():
        return
    data = json.loads(entry.read_text(encoding="utf-8"))
    if isinstance(data.get("languages"), dict):
        data["languages"] = dict(sorted(data["languages"].items()))
    entry.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
