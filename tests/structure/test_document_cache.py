"""The data files' YAML kept between builds (``yaml_documents.DocumentCache``): a file whose text
parsed before is not parsed again, gives back the same values with the same types, and its errors
still point at their lines."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import pytest

from gpuguide.errors import Problems
from gpuguide.structure import yaml_documents
from gpuguide.structure.dataset import load_dataset
from gpuguide.structure.yaml_documents import DocumentCache, parse_yaml
from sites import ROOT

KEY = "code-version"


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(ROOT / "data", target)
    return target


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts parsed with PyYAML (not found in the cache), in order."""
    seen: list[str] = []
    real = yaml_documents.parse_yaml

    def counting(text: str, *args, **kwargs):
        seen.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(yaml_documents, "parse_yaml", counting)
    return seen


def types(value: object) -> object:
    """``value``'s shape with each scalar replaced by its type: equal only when the types are."""
    if isinstance(value, dict):
        return {key: types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [types(item) for item in value]
    return type(value)


def load_twice(data_dir: Path, cache_file: Path) -> tuple[Problems, Problems]:
    """Load ``data_dir`` with a cache saved to ``cache_file``, then again from what was saved."""
    first = Problems(data_dir.parent)
    documents = DocumentCache.load(cache_file, KEY)
    load_dataset(data_dir, first, documents=documents)
    documents.save(cache_file, KEY)
    second = Problems(data_dir.parent)
    load_dataset(data_dir, second, documents=DocumentCache.load(cache_file, KEY))
    return first, second


def test_every_data_file_comes_back_from_the_cache_with_its_values_types_and_positions(data_copy, tmp_path, parses):
    cache_file = tmp_path / "documents.cache"
    documents = DocumentCache.load(cache_file, KEY)
    files = sorted(data_copy.rglob("*.yaml"))
    fresh = {path: documents.parse(path.read_text(encoding="utf-8"), path, Problems(tmp_path)) for path in files}
    documents.save(cache_file, KEY)
    assert len(parses) == len(files)

    again = DocumentCache.load(cache_file, KEY)
    for path, document in fresh.items():
        found = again.parse(path.read_text(encoding="utf-8"), path, Problems(tmp_path))
        assert found is not None and document is not None
        assert found.value == document.value and types(found.value) == types(document.value), path
        # Positions are found again from the text, only when asked for.
        some_paths = list(document.positions)[:: max(1, len(document.positions) // 20)]
        assert [found.position(key) for key in some_paths] == [document.position(key) for key in some_paths]
    assert len(parses) == 2 * len(files)  # each text parsed once more: for the positions asked above
    prices = again.parse((data_copy / "prices.yaml").read_text(encoding="utf-8"), data_copy / "prices.yaml",
                         Problems(tmp_path))
    assert prices is not None and type(prices.value["as_of"]) is datetime.date


def test_a_rebuild_parses_only_the_file_whose_text_changed(data_copy, tmp_path, parses):
    cache_file = tmp_path / "documents.cache"
    first, second = load_twice(data_copy, cache_file)
    assert first.items == second.items == []
    loaded = len(parses)
    prices = data_copy / "prices.yaml"
    text = prices.read_text(encoding="utf-8")
    prices.write_text(text.replace("h100-sxm: ", "h100-sxm: 1", 1), encoding="utf-8")
    documents = DocumentCache.load(cache_file, KEY)
    dataset = load_dataset(data_copy, Problems(tmp_path), documents=documents)
    assert parses[loaded:] == [prices.read_text(encoding="utf-8")]
    assert dataset is not None and dataset.prices["h100-sxm"].usd_per_gpu_hour >= 10
    documents.save(cache_file, KEY)
    assert len(DocumentCache.load(cache_file, KEY).values) == len(list(data_copy.rglob("*.yaml")))  # the old one dropped


def test_a_schema_error_in_a_cached_file_still_names_its_line(data_copy, tmp_path):
    gpus = data_copy / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    line = text.count("\n", 0, text.index("    bandwidth_gbs: 7700")) + 1
    gpus.write_text(text.replace("    bandwidth_gbs: 7700", "    bandwidth_gbs: lots", 1), encoding="utf-8")
    first, second = load_twice(data_copy, tmp_path / "documents.cache")
    assert [str(problem) for problem in first.errors] == [str(problem) for problem in second.errors]
    assert any(problem.line == line and "bandwidth_gbs" in str(problem) for problem in second.errors)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",  # a duplicate key: a problem, reported at every load
    '"\\0date": 2026-01-01\n',  # a key the cache's own encoding of dates uses
    "when: 2026-01-01 10:00:00\n",  # a time: JSON would not give it back as one
])
def test_what_the_cache_could_not_give_back_exactly_is_parsed_every_time(tmp_path, text):
    documents = DocumentCache(None)
    path = tmp_path / "file.yaml"
    problems = Problems(tmp_path)
    document = documents.parse(text, path, problems)
    assert documents.used == {}
    if document is not None and not problems.items:
        assert document.value == parse_yaml(text, path, Problems(tmp_path)).value


def test_a_damaged_or_foreign_cache_file_is_no_cache(data_copy, tmp_path, parses):
    cache_file = tmp_path / "documents.cache"
    load_twice(data_copy, cache_file)
    data = bytearray(cache_file.read_bytes())
    data[-5] ^= 0xFF
    cache_file.write_bytes(bytes(data))
    assert DocumentCache.load(cache_file, KEY).values == {}
    load_twice(data_copy, cache_file)
    assert DocumentCache.load(cache_file, "another-code-version").values == {}


def test_a_build_keeps_the_data_and_a_price_edit_parses_prices_yaml_alone(tmp_path, parses):
    from sites import build, edit, fingerprint, tiny_project

    root = tiny_project(tmp_path / "tiny")
    build(root)
    assert (root / ".build-cache" / "documents.cache").is_file()
    before = len(parses)
    edit(root / "data" / "prices.yaml", "card: 0.5", "card: 0.6")
    build(root)
    data = {path.read_text(encoding="utf-8") for path in (root / "data").rglob("*.yaml")}
    # (front matters go through ``parse_yaml`` too: only the data files' texts count here)
    assert [text for text in parses[before:] if text in data] == [(root / "data" / "prices.yaml").read_text(encoding="utf-8")]
    clean = tiny_project(tmp_path / "clean")
    (clean / "data" / "prices.yaml").write_bytes((root / "data" / "prices.yaml").read_bytes())
    build(clean)
    assert fingerprint(root / "site") == fingerprint(clean / "site")
