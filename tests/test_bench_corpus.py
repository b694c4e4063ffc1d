"""The benchmark's corpus stays a site our generator builds cleanly: run as the benchmark runs it
(``bench/corpus.py`` as a script, then ``build.py --strict``), never imported by the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sites import ROOT

pytestmark = pytest.mark.slow


def test_the_benchmark_corpus_builds_with_no_error_and_no_warning(tmp_path: Path):
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--pages", "12", "--out", str(tmp_path)],
                   check=True, capture_output=True)
    built = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(tmp_path / "ours"), "--strict",
                            "--no-search"], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "0 warnings" in built.stdout + built.stderr
    assert len(list((tmp_path / "ours" / "site" / "en" / "bench").glob("*/index.html"))) == 12
