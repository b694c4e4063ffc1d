"""The configuration to rent found without every GPU type's answer (``cheapest.cheapest_plan``) is
the first rentable one of ``planner.plans``: over every model, preset and format of the real data,
with and without a speed asked for, at 20 and at 100 GPU types, and on hand-made ties."""

from __future__ import annotations

from pathlib import Path

import pytest
from scaled_site import write_scaled

from gpuguide.errors import Problems
from gpuguide.figures import planner, serving
from gpuguide.figures.cheapest import cheapest_plan
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.plan_tables import model_formats, preset_workload
from gpuguide.figures.records import model_shape, serving_gpus
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.structure.dataset import Dataset, load_dataset
from sites import ROOT

LLAMA_3_1_8B = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256, hidden_size=4096)
LLAMA_3_1_70B = ModelShape(70_553_706_496, 80, 8, 128, 131_072, attention_heads=64, vocab_size=128_256, hidden_size=8192)


def _load(root: Path) -> Dataset:
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    assert dataset is not None, [str(problem) for problem in problems.items]
    return dataset


@pytest.fixture(scope="module")
def real() -> Dataset:
    return _load(ROOT)


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    root = tmp_path_factory.mktemp("scaled")
    write_scaled(root, 100)
    return _load(root)


@pytest.mark.parametrize("which", ["real", "scaled"])
@pytest.mark.parametrize("target", [None, 20, 150])
def test_the_cheapest_is_the_first_rentable_plan_of_every_model_preset_and_format(which, target, request):
    dataset: Dataset = request.getfixturevalue(which)
    gpus = tuple(serving_gpus(dataset.gpus, dataset.prices))
    compared = found = 0
    for llm in dataset.llm_models.values():
        shape = model_shape(llm)
        for weights in model_formats(llm):
            for preset in serving.PRESETS:
                workload = preset_workload(preset, weights)
                expected = planner.cheapest(planner.plans(shape, workload, gpus, target))
                assert cheapest_plan(shape, workload, gpus, target) == expected, (llm.id, weights, preset.key)
                compared += 1
                found += expected is not None
    assert compared >= 3 * len(dataset.llm_models) and found > 0
    if target == 150:  # beyond some models' reach on any GPU: "nothing to rent" is compared too
        assert found < compared


def test_a_tie_on_price_is_broken_as_the_plans_break_it():
    # Two GPU types at the same hourly price: the faster one costs less per million tokens and
    # comes first in the plans, though it is listed second.
    slow = ServingGpu("slow", 80, 2000, {"bf16": 300}, 8, 2.00)
    fast = ServingGpu("fast", 80, 3000, {"bf16": 300}, 8, 2.00)
    workload = Workload(8192, 1, "bf16")
    expected = planner.cheapest(planner.plans(LLAMA_3_1_8B, workload, [slow, fast]))
    assert expected is not None and expected.gpu_id == "fast"
    assert cheapest_plan(LLAMA_3_1_8B, workload, [slow, fast]) == expected


def test_a_gpu_too_slow_for_the_speed_asked_gives_way_to_a_dearer_one():
    # The cheapest floor (one small GPU) cannot reach the speed asked for: the search goes on.
    cheap = ServingGpu("cheap", 24, 300, {"bf16": 121}, 1, 0.40)
    quick = ServingGpu("quick", 80, 3350, {"bf16": 989}, 8, 2.88)
    workload = Workload(4096, 1, "bf16")
    assert cheapest_plan(LLAMA_3_1_8B, workload, [cheap, quick]).gpu_id == "cheap"
    assert cheapest_plan(LLAMA_3_1_8B, workload, [cheap, quick], 100).gpu_id == "quick"
    assert cheapest_plan(LLAMA_3_1_8B, workload, [cheap, quick], 10**6) is None


def test_nothing_rentable_is_none_and_a_gpu_without_an_offer_is_never_the_answer():
    unoffered = ServingGpu("unoffered", 80, 3350, {"bf16": 989}, 8, None)
    small = ServingGpu("small", 24, 300, {"bf16": 121}, 1, 0.40)
    workload = Workload(8192, 1, "bf16")
    assert cheapest_plan(LLAMA_3_1_70B, workload, [unoffered, small]) is None  # 141 GB on one 24 GB GPU
    assert cheapest_plan(LLAMA_3_1_8B, workload, [unoffered]) is None
