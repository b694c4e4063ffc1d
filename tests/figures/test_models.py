"""What a model page shows (``figures.models``), with the tiny site's two language models, its image
model and its three GPUs. Needs are worked out here from the documented rules: weights with the
embeddings in 16 bits, a KV cache for every sequence of a workload, each figure rounded up to a tenth
of a GB and totals the sum of their parts; training at 16 / 2.2 / 0.65 bytes a parameter on 80 % of
each GPU's memory; rentals the cheapest live offer whose GPUs share a fast link."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from gpuguide.figures import models
from gpuguide.structure.data import DiffusionModel, LlmModel

NB, NN = "\u00a0", "\u202f"
GB = 10**9
SMALL_PARAMS = 8_030_261_248
SMALL_EMBEDDING = 128_256 * 4096  # the input embedding; the output layer is as large (untied)
SMALL_KV_PER_TOKEN = 32 * 2 * 8 * 128 * 2  # layers × (key, value) × KV heads × head size × 2 bytes
BIG_PARAMS, BIG_ACTIVE = 671_000_000_000, 37_000_000_000
BIG_KV_PER_TOKEN = 61 * 576 * 2  # latent attention: 576 elements a layer


@pytest.fixture(scope="module")
def small(dataset) -> LlmModel:
    return dataset.llm_models["small-llm"]


@pytest.fixture(scope="module")
def big(dataset) -> LlmModel:
    return dataset.llm_models["big-llm"]


def gb_up(needed: int | Fraction) -> int:
    return math.ceil(Fraction(needed) / GB)


def tenth_up(needed: int | Fraction) -> Decimal:
    """GB rounded up to a tenth, as every memory need on a page."""
    return Decimal(math.ceil(Fraction(needed) * 10 / GB)) / 10


def texts(row) -> list[str]:
    return [cell.text for cell in row]


def hand_llm(**fields: object) -> LlmModel:
    base: dict[str, object] = {
        "id": "hand-llm", "name": "Hand LLM", "developer": "Test", "parameters": 20_000_000_000, "layers": 24,
        "kv_heads": 8, "head_dim": 64, "max_context_tokens": 131_072, "source": "https://example.com/hand-llm"}
    return LlmModel.model_validate({**base, **fields})


def diffusion(**memory: float) -> DiffusionModel:
    return DiffusionModel.model_validate({
        "id": "hand-image", "name": "Hand Image", "developer": "Test", "kind": "image", "memory_gb": memory,
        "memory_includes": "1024 × 1024", "source": "https://example.com/hand-image"})


# --- precisions ----------------------------------------------------------------------------------

def small_weights(bits_per_weight: Fraction) -> Fraction:
    quantized = SMALL_PARAMS - 2 * SMALL_EMBEDDING
    return quantized * bits_per_weight / 8 + 2 * SMALL_EMBEDDING * 2


# --- memory --------------------------------------------------------------------------------------

def test_the_kv_cache_of_each_workload_in_bf16_and_fp8(small, en):
    table = models.kv_table(small, en)
    assert table.caption == "KV cache Small LLM keeps, per workload (131,072 bytes per token in BF16)"
    chat, team, batch = table.rows
    assert texts(chat) == ["Chat: 1 user, 8,192 tokens", f"{tenth_up(8192 * SMALL_KV_PER_TOKEN)} GB",
                           f"{tenth_up(8192 * SMALL_KV_PER_TOKEN // 2)} GB"]
    assert texts(team)[1] == f"{tenth_up(10 * 32_768 * SMALL_KV_PER_TOKEN)} GB" == "43 GB"
    assert texts(batch)[1] == f"{tenth_up(64 * 4096 * SMALL_KV_PER_TOKEN)} GB" == "34.4 GB"


def test_memory_table_per_format_adds_up(small, en):
    table = models.memory_table(small, en)
    assert [row[0].text for row in table.rows] == ["BF16 (published format)", "FP8", "4-bit (AWQ, GPTQ)"]
    bf16, fp8, int4 = table.rows
    assert bf16[1].text == f"{tenth_up(SMALL_PARAMS * 2)} GB" == "16.1 GB"
    assert fp8[1].text == f"{tenth_up(small_weights(Fraction(8)))} GB" == "9.1 GB"
    assert int4[1].text == f"{tenth_up(small_weights(4 + Fraction(20, 128)))} GB" == "5.8 GB"  # AWQ: about 5.7 GB
    kv = [Decimal(dict(row[1].data)["gb"]) for row in models.kv_table(small, en).rows]
    for row in table.rows:
        weights = Decimal(dict(row[1].data)["gb"])
        assert [Decimal(dict(cell.data)["gb"]) for cell in row[2:]] == [weights + part for part in kv]


def test_a_short_context_model_is_sized_at_its_maximum_and_says_so(big, fr):
    table = models.kv_table(big, fr)
    assert table.rows[1][0].text == f"Équipe{NB}: 10 utilisateurs × 2{NN}048 tokens (son contexte maximal)"
    assert table.rows[1][1].text == f"{str(tenth_up(10 * 2048 * BIG_KV_PER_TOKEN)).replace('.', ',')}{NN}Go"


def test_the_published_format_comes_last_when_it_is_none_of_the_three(big, small, en):
    assert models.model_formats(small) == ("bf16", "fp8", "int4")
    assert models.model_formats(big) == ("bf16", "fp8", "int4")  # FP8 for all weights: already a row
    assert models.memory_table(big, en).rows[1][0].text == "FP8 (published format)"


# --- serving -------------------------------------------------------------------------------------

def test_the_cheapest_configuration_per_format_and_workload(small, dataset, en):
    table = models.cheapest_per_format(small, dataset, en)
    assert table.headers[1:] == ("Chat", "Team", "Batch")
    assert table.caption.endswith("(Chat: 1 user, 8,192 tokens, Team: 10 users × 32,768 tokens, "
                                  "Batch: 64 sequences × 4,096 tokens)")
    chat = table.rows[0][1]
    # 16.1 + 1.1 GB on one Card (24 GiB × 90 % − 3 GiB = 20.0 GB): the cheapest offer, $0.50/h.
    assert chat.text == "1 × Card" and chat.detail.startswith("$0.50/h · ≥ $")
    assert dict(chat.data)["gpu"] == "card" and dict(chat.data)["count"] == "1"
    # Ten users need 59.1 GB: no single card; the Big (NVSwitch) holds it alone.
    assert (table.rows[0][2].text, table.rows[0][2].detail[:7]) == ("1 × Big", "$2.88/h")
    # FP8 weights on the Pcie card (no FP8 tensor cores) would be weight-only; the Card has FP8.
    assert "weight-only" not in (table.rows[1][1].detail or "")


def test_each_preset_has_its_table_cheapest_sentence_and_launch_command(small, dataset, en):
    chat, team, _ = models.preset_sections(small, dataset, en)
    assert chat.cheapest.startswith("Cheapest to rent for Small LLM, Chat: 1 user, 8,192 tokens: 1 × Card")
    assert chat.command == ("vllm serve small-llm --tensor-parallel-size 1 --max-model-len 8192 --kv-cache-dtype auto "
                            "--gpu-memory-utilization 0.9 --max-num-seqs 1")
    assert "--max-num-seqs 10" in team.command and "--max-model-len 32768" in team.command
    rows = {row[0].text: row for row in team.table.rows}
    assert rows["Card"][-1].text == "Needs 4 GPUs, without a fast link"  # 59.1 GB over four 20 GB budgets
    assert rows["Pcie"][-1].text == "No offer yet"


def test_no_rental_when_nothing_rentable_holds_the_model(big, dataset, en):
    for section in models.preset_sections(big, dataset, en):
        assert section.cheapest is None and section.command is None
        assert {row[-1].text for row in section.table.rows} <= {"Does not fit in 8 GPUs", "No offer yet",
                                                                 "Needs 8 GPUs; a fast link joins only 2"}


def test_measurements_table_sets_each_result_against_its_bound(small, big, dataset, en):
    table = models.measurements_table(small, dataset, en)
    offline, server = table.rows
    assert offline[0].text == "8 × Big" and offline[0].detail == "MLPerf Inference v1.0, Test"
    assert offline[2].text == "40,000 tokens/s"
    bound = float(dict(offline[3].data)["bound"])
    assert 40_000 < bound
    assert offline[4].text.endswith("%") and offline[6].href == "https://example.com/bench-small/big-offline"
    assert server[5].text == "$0.154"  # $0.50 ÷ (900 tokens/s × 3,600) × 10⁶
    assert models.measurements_table(big, dataset, en) is None


def test_fine_tuning_table_of_the_small_model(small, dataset, fr, en):
    table = models.fine_tuning_table(small, dataset, en)
    full, lora, qlora = table.rows
    # Full: 16 bytes × 8.03 B = 128.48 GB; 2 Big give 128 GB (< need): 4 × $2.88 = $11.52.
    assert texts(full) == ["Full training", f"{gb_up(SMALL_PARAMS * 16)} GB", "4 × Big, from $11.52/h"]
    assert full[0].detail == "16 bytes per parameter"
    assert dict(full[2].data) == {"gpu": "big", "count": "4", "model": "small-llm", "method": "full"}
    # LoRA: 2.2 × 8.03 = 17.67 GB ≤ 19.2 GB: one card. QLoRA: 0.65 × 8.03 = 5.22 GB.
    assert texts(lora)[1:] == [f"{gb_up(SMALL_PARAMS * Fraction(22, 10))} GB", "1 × Card, from $0.50/h"]
    assert texts(qlora)[1:] == ["6 GB", "1 × Card, from $0.50/h"]
    assert models.fine_tuning_table(small, dataset, fr).rows[2][0].detail == "0,65 octet par paramètre"


def test_fine_tuning_without_any_offer_shows_a_reference_configuration(small, dataset, en):
    no_offers = dataclasses.replace(dataset, prices={})
    full = models.fine_tuning_table(small, no_offers, en).rows[0]
    # 128.48 GB: 4 Big on NVSwitch; pcie would need 4 over its 2-card bridge, the card 8 over PCIe.
    assert full[2].text == "4 × Big (no live offer)"


def test_fine_tuning_what_nothing_holds(big, dataset, en):
    full, lora, qlora = models.fine_tuning_table(big, dataset, en).rows
    # Full 10,736 GB and LoRA 1,476 GB exceed 8 × 64 GB; QLoRA 436 GB fits 8 Big.
    assert full[2].text == lora[2].text == "No configuration of 8 GPUs or fewer"
    assert texts(qlora)[1:] == [f"{gb_up(BIG_PARAMS * Fraction(65, 100))} GB", "8 × Big, from $23.04/h"]


def test_facts(small, big, fr, en):
    assert models.facts(small, en) == [("Publisher", "Test"), ("Parameters", "8B"), ("Layers", "32"),
                                       ("Maximum context", "131,072 tokens"), ("Published weights", "BF16")]
    facts = dict(models.facts(big, fr))
    assert facts["Paramètres actifs par token"] == f"37{NB}Md"
    assert facts["Poids publiés en"] == "FP8"


# --- image and video models ----------------------------------------------------------------------

def test_diffusion_table_lists_gpus_with_the_documented_memory_cheapest_first(dataset, en):
    table = models.diffusion_table(dataset.diffusion_models["image-model"], dataset, en)  # 18 GB in BF16
    assert table.headers == ("GPU", "Memory", "Runs in BF16", "Price/h")
    assert [texts(row) for row in table.rows] == [["Card", "24 GB", "Yes", "$0.50/h"],
                                                  ["Big", "80 GB", "Yes", "$2.88/h"],
                                                  ["Pcie", "80 GB", "Yes", "No offer"]]


def test_diffusion_table_leaves_out_gpus_that_run_it_at_no_precision(dataset, en):
    # 40 GB in BF16, 20 GB in FP8 (no 80 % rule: the documented figure is used as is).
    model = diffusion(bf16=40, fp8=20)
    table = models.diffusion_table(model, dataset, en)
    assert table.headers[2:4] == ("Runs in BF16", "Runs in FP8")
    assert next(texts(row)[:4] for row in table.rows) == ["Card", "24 GB", "No", "Yes"]
    only_big = diffusion(bf16=70)
    assert [row[0].text for row in models.diffusion_table(only_big, dataset, en).rows] == ["Big", "Pcie"]
    assert models.diffusion_table(diffusion(bf16=81), dataset, en).rows == ()


def test_diffusion_memory_text(dataset, fr):
    assert models.diffusion_memory_text(dataset.diffusion_models["image-model"], fr) == [("BF16", f"18{NN}Go")]
    assert models.diffusion_memory_text(diffusion(bf16=40, fp8=20), fr) == [("BF16", f"40{NN}Go"),
                                                                            ("FP8", f"20{NN}Go")]


def test_generation_table_gives_images_per_minute_per_gpu_and_their_cost(dataset, en):
    table = models.generation_table(dataset.diffusion_models["image-model"], dataset, en)
    (row,) = table.rows
    # 16 images/s on 8 GPUs: 2 per GPU per second, 120 a minute; $2.88 an hour ÷ 7,200 images × 1,000 = $0.40.
    assert [cell.text for cell in row[:3]] == ["8 × Big", "120", "$0.40"]
    assert table.headers[1:3] == ("Images per minute, per GPU", "Per 1,000 images")
    no_result = dataclasses.replace(dataset, measurements=())
    assert models.generation_table(dataset.diffusion_models["image-model"], no_result, en) is None


# --- what a GPU runs -----------------------------------------------------------------------------

def test_diffusion_on_gpu(dataset):
    big_image = diffusion(bf16=40)
    with_big = dataclasses.replace(dataset, diffusion_models={**dataset.diffusion_models, "hand-image": big_image})
    assert [m.id for m in models.diffusion_on_gpu(dataset.gpus["card"], with_big)] == ["image-model"]
    assert [m.id for m in models.diffusion_on_gpu(dataset.gpus["big"], with_big)] == ["image-model", "hand-image"]


# --- the models' index ---------------------------------------------------------------------------

def test_llm_index_in_the_published_format_smallest_first(dataset, en):
    small_row, big_row = models.llm_index(dataset, en)
    assert (small_row.model_id, small_row.parameters, small_row.published_format) == ("small-llm", "8B", "BF16")
    assert small_row.memory == "17.2 GB"  # 16.1 GB of weights + 1.1 GB for the chat workload
    assert small_row.rental.startswith("1 × Card · $0.50/h")
    assert big_row.published_format == "FP8"
    fp8_weights = (BIG_PARAMS - 2 * 129_280 * 7168) + 2 * 129_280 * 7168 * 2
    assert big_row.memory_gb == tenth_up(fp8_weights) + tenth_up(2048 * BIG_KV_PER_TOKEN)
    assert big_row.rental == "No configuration of 8 GPUs or fewer"


def test_usable_share_text(fr, en):
    assert (models.usable_share_text(fr), models.usable_share_text(en)) == (f"80{NB}%", "80%")
