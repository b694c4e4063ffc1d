"""The real data loads; broken copies fail with the file, line and field in the message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuguide.structure.dataset import load_dataset
from gpuguide.errors import Problems
from sites import ROOT

DATA = ROOT / "data"


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of data/ to break one file of. UI strings are stubbed only where the branch has none."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    for language in ("fr", "en"):
        ui = target / "ui" / f"{language}.yaml"
        if not ui.exists():
            ui.parent.mkdir(exist_ok=True)
            ui.write_text("strings:\n  placeholder: text\n", encoding="utf-8")
    return target


def load(data_dir: Path):
    problems = Problems(root=data_dir.parent)
    return load_dataset(data_dir, problems), [str(p) for p in problems.items]


def replace_once(path: Path, old: str, new: str) -> int:
    """Replace the first ``old`` in ``path``; return the 1-based line it was on."""
    text = path.read_text(encoding="utf-8")
    index = text.index(old)
    path.write_text(text[:index] + new + text[index + len(old):], encoding="utf-8")
    return text.count("\n", 0, index) + 1


def test_real_dataset_loads_without_problems(data_copy):
    dataset, problems = load(data_copy)
    assert problems == []
    assert list(dataset.gpus)[:9] == ["b300", "b200", "mi325x", "mi300x", "h200", "h100-nvl", "h100-sxm",
                                      "a100-sxm", "a100-pcie"]
    assert len(dataset.gpus) == 20
    assert dataset.llm_models["deepseek-r1"].kv_compressed_dim == 576
    assert dataset.diffusion_models["sd-3-5-large"].memory_gb == {"bf16": 18, "fp8": 11}


def test_reference_figures_are_unchanged(data_copy):
    # The reference page (shared/seeds/000_baa267abb4623a1f.txt) prints these. Its B300/B200 cells said "not
    # published" from the DGX pages; they now show the per-GPU figures of NVIDIA's HGX specifications.
    dataset, _ = load(data_copy)
    figures = {gpu_id: (g.memory_gb, g.memory_type, g.bandwidth_gbs, g.bf16_tflops)
               for gpu_id, g in list(dataset.gpus.items())[:9]}
    assert figures == {
        "b300": (288, "HBM3e", 7700, 2250), "b200": (180, "HBM3e", 7700, 2250),
        "mi325x": (256, "HBM3e", 6000, 1307.4), "mi300x": (192, "HBM3", 5300, 1307.4),
        "h200": (141, "HBM3e", 4800, 989), "h100-nvl": (94, "HBM3", 3900, 835),
        "h100-sxm": (80, "HBM3", 3350, 989), "a100-sxm": (80, "HBM2e", 2039, 312),
        "a100-pcie": (80, "HBM2e", 1935, 312),
    }


def test_every_gpu_and_model_has_an_https_source_and_new_gpus_have_no_price(data_copy):
    dataset, _ = load(data_copy)
    for record in [*dataset.gpus.values(), *dataset.llm_models.values(), *dataset.diffusion_models.values()]:
        assert record.source.startswith("https://")
    assert set(dataset.prices) == set(list(dataset.gpus)[:9])


def test_wrong_type_names_file_line_and_field(data_copy):
    gpus = data_copy / "gpus.yaml"
    line = replace_once(gpus, "memory_gb: 80\n", 'memory_gb: "80 Go"\n')
    dataset, problems = load(data_copy)
    assert dataset is None
    assert any(p.startswith(f"data/gpus.yaml:{line}:") and "`memory_gb`" in p and "'80 Go'" in p
               for p in problems), problems


def test_unknown_key_names_file_line_and_field(data_copy):
    gpus = data_copy / "gpus.yaml"
    line = replace_once(gpus, "    memory_type: HBM3e\n", "    memory_type: HBM3e\n    memory_gbs: 1\n") + 1
    dataset, problems = load(data_copy)
    assert dataset is None
    # The machinery points at the value of the unknown key (column 17), on its line.
    assert f"data/gpus.yaml:{line}:17: error: unknown field `memory_gbs` (did you mean `memory_gb`?)" in problems


def test_duplicate_gpu_id(data_copy):
    gpus = data_copy / "gpus.yaml"
    line = replace_once(gpus, "  - id: b200\n", "  - id: b300\n")
    dataset, problems = load(data_copy)
    assert dataset is None
    assert f"data/gpus.yaml:{line}:9: error: duplicate GPU id `b300` (each GPU needs its own id)" in problems


def test_missing_source(data_copy):
    models = data_copy / "models.yaml"
    text = models.read_text(encoding="utf-8")
    first = text.index("  - id: deepseek-r1\n")
    line = text.count("\n", 0, first) + 1
    models.write_text(text.replace("    source: https://huggingface.co/deepseek-ai/DeepSeek-R1\n", "", 1),
                      encoding="utf-8")
    dataset, problems = load(data_copy)
    assert dataset is None
    assert any(p.startswith(f"data/models.yaml:{line}:") and "missing required field `source`" in p
               for p in problems), problems


def test_duplicate_model_id(data_copy):
    models = data_copy / "models.yaml"
    line = replace_once(models, "  - id: llama-3-1-8b\n", "  - id: llama-3-70b\n")
    dataset, problems = load(data_copy)
    assert dataset is None
    assert f"data/models.yaml:{line}:9: error: duplicate model id `llama-3-70b` (each model needs its own id)" \
        in problems


def test_memory_figure_without_what_it_includes(data_copy):
    models = data_copy / "models.yaml"
    text = models.read_text(encoding="utf-8")
    start = text.index("    memory_includes: >-\n      Stability AI's statement")
    end = text.index("    source: https://stability.ai/news/stable-diffusion-sdxl")
    models.write_text(text[:start] + text[end:], encoding="utf-8")
    dataset, problems = load(data_copy)
    assert dataset is None
    assert any(p.startswith("data/models.yaml:") and "memory_includes" in p for p in problems), problems


def test_missing_models_file(data_copy):
    (data_copy / "models.yaml").unlink()
    dataset, problems = load(data_copy)
    assert dataset is None
    assert "data/models.yaml:1:1: error: the file is missing (restore it from version control)" in problems
