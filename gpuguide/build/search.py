"""Static search: Pagefind indexes the staged site before it is published.

Pagefind (``pip install 'pagefind[extended]'``, a wheel that ships its binary) writes one index
per ``<html lang>`` into ``pagefind/``; the search page loads the index of its own language, so
results never mix languages. Only ``<main data-pagefind-body>`` is indexed (not menus or footers).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cbor2

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
        make_deterministic(site_dir / "pagefind")


#: The header of Pagefind's data files (then CBOR, the whole gzip-compressed).
MAGIC = b"pagefind_dcd"


def make_deterministic(folder: Path) -> None:
    """Make two indexes of the same site byte-identical. Pagefind writes its filters (a page's type)
    and the languages of its entry file in hash-map order, which changes from run to run, and
    names each file by a hash of its bytes: the filters are sorted, written again (gzip without a
    timestamp) under a name from their new bytes, and the metadata that names them, then the entry
    file that names the metadata, follow. The files mean exactly what they meant."""
    entry_file = folder / "pagefind-entry.json"
    if not entry_file.is_file():
        return
    entry = json.loads(entry_file.read_text(encoding="utf-8"))
    for lang, language in sorted(entry.get("languages", {}).items()):
        if "hash" not in language:
            continue
        meta_file = folder / f"pagefind.{language['hash']}.pf_meta"
        meta = _read(meta_file)
        renamed = {}
        for pair in meta[3]:  # the filters: [name, its file's hash]
            old = folder / "filter" / f"{pair[1]}.pf_filter"
            name, values = _read(old)
            data = _write_bytes([name, sorted(values, key=lambda value: value[0])])
            renamed[pair[1]] = new = f"{lang}_{hashlib.sha256(data).hexdigest()[:7]}"
            old.unlink()
            (folder / "filter" / f"{new}.pf_filter").write_bytes(data)
        meta[3] = sorted([[pair[0], renamed[pair[1]]] for pair in meta[3]])
        data = _write_bytes(meta)
        meta_file.unlink()
        language["hash"] = f"{lang}_{hashlib.sha256(data).hexdigest()[:10]}"
        (folder / f"pagefind.{language['hash']}.pf_meta").write_bytes(data)
    entry["languages"] = dict(sorted(entry.get("languages", {}).items()))
    entry_file.write_text(json.dumps(entry, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _read(path: Path) -> Any:
    raw = gzip.decompress(path.read_bytes())
    if not raw.startswith(MAGIC):
        raise ValueError(f"{path}: not a Pagefind data file")
    return cbor2.loads(raw[len(MAGIC):])


def _write_bytes(value: Any) -> bytes:
    return gzip.compress(MAGIC + cbor2.dumps(value), mtime=0)
