"""The package type-checks with mypy at the strictness pyproject.toml states ([tool.mypy])."""

from __future__ import annotations

import pytest
from mypy import api

from sites import ROOT


@pytest.mark.slow
def test_the_package_type_checks():
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "gpuguide")])
    assert status == 0, stdout + stderr
