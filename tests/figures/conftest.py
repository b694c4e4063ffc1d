"""Fixtures of the figures tests: the tiny site's data with the real UI strings, loaded once per
test file (a file may make variants of it), and its two languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from sites import tiny_project

from gpuguide.errors import Problems
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.language import Language


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    root: Path = tiny_project(tmp_path_factory.mktemp("figures") / "tiny")
    problems = Problems(root)
    loaded = load_dataset(root / "data", problems)
    assert loaded is not None, [str(p) for p in problems.items]
    return loaded


@pytest.fixture(scope="module")
def fr(dataset: Dataset) -> Language:
    return dataset.languages()["fr"]


@pytest.fixture(scope="module")
def en(dataset: Dataset) -> Language:
    return dataset.languages()["en"]
