"""The planner: each GPU type's smallest configuration for a workload, why the others lose, the order
of the answers, and the launch settings; on hand-made GPUs and on the real data's two worked workloads."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from gpuguide.errors import Problems
from gpuguide.figures import engine_budget, planner, planner_program, roofline, serving, sizing
from gpuguide.figures.planner import cheapest, command_arguments, plan_gpu, plans, vllm_arguments
from gpuguide.figures.records import model_shape, serving_gpus
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.structure.dataset import load_dataset
from sites import ROOT

LLAMA_3_1_8B = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256, hidden_size=4096)
H100 = ServingGpu("h100-sxm", 80, 3350, {"bf16": 989, "fp8": 1979}, 8, 2.88)
A100 = ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79)
L4 = ServingGpu("l4", 24, 300, {"bf16": 121, "fp8": 242.5}, 1, None)
PAIR = ServingGpu("pair", 48, 960, {"bf16": 180}, 2, 1.00)


def test_a_configuration_that_fits_one_gpu_is_one_gpu():
    plan = plan_gpu(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), H100)
    assert (plan.gpu_count, plan.reason, plan.usd_per_hour) == (1, None, Fraction(288, 100))
    assert plan.usd_per_million_tokens == roofline.usd_per_million_tokens(plan.usd_per_hour,
                                                                         plan.bounds.total_tokens_per_second)


def test_why_the_others_lose():
    ten_users = Workload(32_768, 10, "bf16")
    assert plan_gpu(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), L4).reason == "no_offer"
    assert plan_gpu(LLAMA_3_1_8B, ten_users, L4).reason == "fast_link"  # 8 L4 over PCIe would hold it
    assert plan_gpu(LLAMA_3_1_8B, Workload(131_072, 64, "bf16"), L4).reason == "memory"
    slow = plan_gpu(LLAMA_3_1_8B, ten_users, PAIR, min_user_tokens_per_second=1000)
    assert slow.reason == "speed" and slow.gpu_count == 2  # the largest it could link, still too slow


def test_a_speed_target_takes_more_gpus_when_that_reaches_it():
    one = plan_gpu(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), H100)
    target = one.bounds.user_tokens_per_second * Fraction(3, 2)
    faster = plan_gpu(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), H100, min_user_tokens_per_second=target)
    assert faster.gpu_count == 2 and faster.bounds.user_tokens_per_second >= target


def test_the_cheapest_rentable_comes_first_then_no_offer_then_the_losers():
    found = plans(LLAMA_3_1_8B, Workload(32_768, 10, "bf16"), [L4, H100, A100, PAIR])
    assert [(p.gpu_id, p.reason) for p in found] == [
        ("a100-sxm", None), ("pair", None), ("h100-sxm", None), ("l4", "fast_link")]
    assert cheapest(found).gpu_id == "a100-sxm"
    assert cheapest([p for p in found if p.reason]) is None


def test_launch_settings_state_what_the_configuration_was_sized_for():
    arguments = vllm_arguments(LLAMA_3_1_8B, Workload(200_000, 3, "fp8", "fp8"), 2)
    assert command_arguments(arguments) == ("--tensor-parallel-size 2 --max-model-len 131072 --kv-cache-dtype fp8 "
                                            "--gpu-memory-utilization 0.9 --max-num-seqs 3 --quantization fp8")
    native_fp8 = ModelShape(671 * 10**9, 61, 128, 128, 131_072, native_format="fp8", attention_heads=128)
    assert dict(vllm_arguments(native_fp8, Workload(8192, 1, "native"), 8))["--quantization"] is None
    assert "--quantization" not in command_arguments(vllm_arguments(native_fp8, Workload(8192, 1, "native"), 8))
    assert float(dict(vllm_arguments(LLAMA_3_1_8B, Workload(8192, 1), 1))["--gpu-memory-utilization"]) == float(
        engine_budget.ENGINE_MEMORY_SHARE)


# --- The two workloads, on the real data -------------------------------------------------

@pytest.fixture(scope="module")
def dataset():
    loaded = load_dataset(Path(ROOT) / "data", Problems(ROOT))
    assert loaded is not None
    return loaded


def test_qwen3_32b_16k_context_20_users_at_20_tokens_per_second_each(dataset):
    shape = model_shape(dataset.llm_models["qwen3-32b"])
    workload = Workload(16_384, 20, "native")
    found = plans(shape, workload, serving_gpus(dataset.gpus, dataset.prices), min_user_tokens_per_second=20)
    best = cheapest(found)
    assert best is not None and best.bounds.user_tokens_per_second >= 20
    assert engine_budget.memory_per_gpu_bytes(shape, workload, best.gpu_count) <= best.budget_per_gpu_bytes
    rentable = [p for p in found if p.rentable]
    assert all(best.usd_per_hour <= p.usd_per_hour for p in rentable)
    assert dict(vllm_arguments(shape, workload, best.gpu_count))["--max-num-seqs"] == 20


def test_llama_3_3_70b_fp8_32k_context_10_users(dataset):
    shape = model_shape(dataset.llm_models["llama-3-3-70b"])
    for kv_cache in ("bf16", "fp8"):
        workload = Workload(32_768, 10, "fp8", kv_cache)
        best = cheapest(plans(shape, workload, serving_gpus(dataset.gpus, dataset.prices)))
        assert best is not None and best.usd_per_million_tokens is not None
        gpu = dataset.gpus[best.gpu_id]
        assert best.gpu_count == 1 or best.gpu_count <= gpu.interconnect.gpus
        assert dict(vllm_arguments(shape, workload, best.gpu_count))["--kv-cache-dtype"] == (
            "fp8" if kv_cache == "fp8" else "auto")


def test_every_plan_of_every_model_is_consistent(dataset):
    """For each model and preset: a shown configuration fits its budget, within its fast-link group
    unless it says otherwise, its GPU count divides the heads, and its price is count × offer."""
    gpus = serving_gpus(dataset.gpus, dataset.prices)
    for llm in dataset.llm_models.values():
        shape = model_shape(llm)
        for preset in serving.PRESETS:
            workload = Workload(preset.context_tokens, preset.users)
            for plan in plans(shape, workload, gpus):
                if plan.gpu_count is None:
                    assert plan.reason == "memory"
                    continue
                assert engine_budget.tensor_parallel_allowed(shape, plan.gpu_count)
                assert engine_budget.memory_per_gpu_bytes(shape, workload, plan.gpu_count) <= plan.budget_per_gpu_bytes
                link = dataset.gpus[plan.gpu_id].interconnect.gpus
                assert (plan.gpu_count == 1 or plan.gpu_count <= link) == (plan.reason != "fast_link")
                price = dataset.price(plan.gpu_id)
                assert plan.usd_per_hour == (None if price is None else
                                             sizing.exact(price.usd_per_gpu_hour) * plan.gpu_count)
                assert (plan.reason == "no_offer") == (price is None and plan.reason not in ("fast_link",))


# --- The program: one for every GPU type, its figures as inputs -----------------------------------

#: What a program's row and ``gpu_answer``'s numbers must agree on.
ANSWER_FIELDS = ("code", "count", "price", "key", "used_gb", "budget_gb", "user_tokens_per_second",
                 "total_tokens_per_second", "first_token_seconds", "usd_per_million_tokens")
#: A GPU type with each figure missing in turn: no bandwidth, no tensor throughput, no FP8 path.
UNPUBLISHED = (ServingGpu("no-bandwidth", 48, None, {"bf16": 180}, 4, 1.10),
               ServingGpu("no-tflops", 96, 1800, {}, 1, 0.95),
               ServingGpu("no-offer-no-figures", 16, None, {}, 1, None))
MIXTURE = ModelShape(30_500_000_000, 48, 4, 128, 40_960, attention_heads=32, active_parameters=3_300_000_000,
                     native_format="fp8")


def _agrees(shape: ModelShape, gpus: list[ServingGpu], workloads: list[tuple[int, int, int, int, int]]) -> int:
    program = planner_program.program(shape)
    formats = planner.formats_for(shape)
    compared = 0
    for context, users, weights, kv, target in workloads:
        workload = Workload(context, users, formats[weights], planner.KV_FORMATS[kv])
        for order, gpu in enumerate(gpus):
            inputs = {"context": context, "users": users, "weights": weights, "kv": kv, "target": target,
                      **planner_program.gpu_inputs(gpu, order)}
            row = program.read(program.evaluate(inputs))
            expected = planner.gpu_answer(shape, [workload], 0, gpu, order, Fraction(target))
            assert {field: row[field] for field in ANSWER_FIELDS} == {field: expected[field] for field in ANSWER_FIELDS}, \
                (gpu.id, context, users, formats[weights], kv, target)
            assert bool(row["native"]) == bool(expected["native"]) and isinstance(row["native"], bool)
            compared += 1
    return compared


def test_the_program_run_with_a_gpus_figures_is_that_gpus_answer_even_with_figures_missing():
    """One program for every GPU type: run with each one's figures (``gpu_inputs``), it gives what
    the pages compute, to the digit, sort key included; a figure not published is a missing input."""
    gpus = [H100, A100, L4, PAIR, *UNPUBLISHED]
    workloads = [(8192, 1, 0, 0, 0), (32_768, 10, 1, 1, 0), (131_072, 64, 2, 0, 20), (500, 1024, 0, 1, 5),
                 (200_000, 3, 1, 0, 100)]
    assert _agrees(LLAMA_3_1_8B, gpus, workloads) + _agrees(MIXTURE, gpus, workloads[:3]) == len(gpus) * (5 + 3)
    inputs = planner_program.gpu_inputs(UNPUBLISHED[2], 0)
    assert inputs["bandwidth"] is None and inputs["price"] is None and inputs["offer"] == 0
    assert inputs["rated:bf16"] == 0 and inputs["tflops:bf16"] is None


def test_every_models_program_gives_every_gpu_types_answer_on_the_real_data(dataset):
    gpus = list(serving_gpus(dataset.gpus, dataset.prices))
    workloads = [(4096, 1, 0, 0, 0), (16_384, 20, 0, 1, 20), (131_072, 8, 1, 0, 0)]
    compared = sum(_agrees(model_shape(llm), gpus, workloads) for llm in dataset.llm_models.values())
    assert compared == len(dataset.llm_models) * len(gpus) * len(workloads)
