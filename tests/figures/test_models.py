"""What a model page shows and what a GPU page says of the models (``figures.models``), with the
tiny site's two language models, its image model and its three GPUs. Needs are worked out here
from the documented rules: weights at 2 / 1 / 0.5 bytes, a BF16 KV cache of 8,192 tokens at most
the model's maximum, training at 16 / 2.2 / 0.65 bytes a parameter, 80 % of each GPU's memory,
GB rounded up; rentals the cheapest live offer whose GPUs share a fast link."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

from gpuguide.figures import models, sizing
from gpuguide.structure.data import DiffusionModel, LlmModel

NB, NN = "\u00a0", "\u202f"
GB = 10**9
SMALL_PARAMS = 8_030_261_248
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

def test_memory_up_never_understates(en):
    assert models.memory_up(17_000_000_001, en) == "18 GB"
    assert models.memory_up(17 * GB, en) == "17 GB"


def test_serving_precisions_add_the_native_format_only_when_it_is_new(small, big):
    assert models.serving_precisions(small) == ("bf16", "fp8", "int4")  # BF16 as published
    assert models.serving_precisions(big) == ("bf16", "fp8", "int4")  # all weights FP8: the FP8 row is it
    mxfp4 = hand_llm(native_precision={"format": "mxfp4", "source": "https://example.com/n"})
    assert models.serving_precisions(mxfp4) == ("bf16", "fp8", "int4", "native")
    part_fp8 = hand_llm(native_precision={"format": "fp8", "quantized_parameters": 19_000_000_000,
                                          "source": "https://example.com/n"})
    assert models.serving_precisions(part_fp8)[-1] == "native"  # only part of it in FP8: its own row


def test_precision_label_marks_the_published_format(small, big, fr, en):
    assert [models.precision_label(small, p, en) for p in ("bf16", "fp8", "int4")] == [
        "BF16 (published format)", "FP8", "4-bit"]
    assert [models.precision_label(big, p, en) for p in ("bf16", "fp8")] == ["BF16", "FP8 (published format)"]
    assert models.precision_label(big, "fp8", fr) == "FP8 (format publié)"
    mxfp4 = hand_llm(native_precision={"format": "mxfp4", "source": "https://example.com/n"})
    assert models.precision_label(mxfp4, "native", en) == "MXFP4 (published format)"
    assert models.precision_label(mxfp4, "bf16", en) == "BF16"  # not what its publisher ships


def test_precision_key_names_the_format_for_machines(small, big):
    assert models.precision_key(big, "native") == "fp8"
    assert models.precision_key(small, "native") == "bf16"
    assert models.precision_key(big, "int4") == "int4"


def test_reference_context_is_at_most_the_models_own(small, big):
    assert models.reference_context(small) == 8192
    assert models.reference_context(big) == 2048


# --- a language model's page ---------------------------------------------------------------------

def test_memory_table_per_precision_with_both_contexts(small, en):
    table = models.memory_table(small, en)
    assert table.headers == ("Precision", "Weights", "Weights + KV cache, 8,192 tokens",
                             "Weights + KV cache, 131,072 tokens")
    assert table.numeric == (False, True, True, True)
    for row, bytes_per_weight in zip(table.rows, (2, 1, Fraction(1, 2))):
        weights = SMALL_PARAMS * bytes_per_weight
        at_8k = weights + 8192 * SMALL_KV_PER_TOKEN
        at_max = weights + 131_072 * SMALL_KV_PER_TOKEN
        assert texts(row)[1:] == [f"{gb_up(n)} GB" for n in (weights, at_8k, at_max)]
        assert [cell.data for cell in row[1:]] == [(("bytes", str(math.ceil(n))),) for n in (weights, at_8k, at_max)]
    assert texts(table.rows[0])[:2] == ["BF16 (published format)", "17 GB"]  # 16.06 GB, up
    assert table.rows[2][0].data == (("precision", "int4"),)


def test_memory_table_of_a_short_context_model(big, fr):
    table = models.memory_table(big, fr)
    # At most 2,048 tokens: both context columns are that context.
    assert table.headers[2] == table.headers[3] == f"Poids + cache KV, 2{NN}048 tokens"
    # 1,342 GB of BF16 weights, + 61 × 576 × 2 bytes × 2,048 tokens = 0.14 GB: 1,343 GB, rounded up.
    assert gb_up(BIG_PARAMS * 2 + 2048 * BIG_KV_PER_TOKEN) == 1343
    assert texts(table.rows[0])[1:4] == [f"1{NN}342{NN}Go", f"1{NN}343{NN}Go", f"1{NN}343{NN}Go"]


def test_kv_cache_sentence(small, en):
    # 8,192 × 131,072 bytes = 1.07 GB → 2 GB; 131,072 tokens: 17.2 GB → 18 GB.
    assert models.kv_cache_sentence(small, en) == (
        "The KV cache of one sequence (BF16) takes 2 GB at 8,192 tokens and 18 GB at its maximum context of "
        "131,072 tokens; every concurrent request adds its own.")


def test_every_gpu_type_serves_the_small_model_cheapest_first(small, dataset, en):
    found = models.configuration_figures(small, "bf16", dataset)
    # 17.13 GB fits one GPU of each (19.2 / 64 / 64 GB usable): rented by price, then the one without offer.
    assert [(f.config.gpu_id, f.config.gpu_count) for f in found] == [("card", 1), ("big", 1), ("pcie", 1)]
    weights = SMALL_PARAMS * 2
    assert [f.decode for f in found] == [Fraction(b * GB, weights) for b in (1008, 3350, 1935)]
    assert found[0].tokens_per_usd == Fraction(1008 * GB, weights) * 3600 / Fraction(1, 2)
    assert found[2].tokens_per_usd is None  # no offer, no price per token


def test_configurations_table_rows(small, dataset, fr, en):
    table = models.configurations_table(small, "bf16", dataset, en)
    assert table.caption == "Configurations that serve Small LLM in BF16 (published format), cheapest first"
    card, big_row, pcie = table.rows
    tokens = math.floor(Fraction(1008 * GB, SMALL_PARAMS * 2) * 3600 * 2)  # 451,883
    tokens -= tokens % 1000  # three significant digits, down
    assert texts(card) == ["Card", "1", "One GPU", "$0.50/h", "≤ 62 tokens/s", f"≤ {tokens:,} tokens/$"]
    assert dict(card[0].data) == {"gpu": "card", "count": "1", "fast-link": "true"}
    assert card[0].page == ("gpu", "card")
    assert texts(big_row)[3:5] == ["$2.88/h", "≤ 208 tokens/s"]
    assert texts(pcie)[3:] == ["No offer", "≤ 120 tokens/s", "No offer"]
    assert texts(models.configurations_table(small, "bf16", dataset, fr).rows[0])[3] == f"0,50{NB}$US/h"


def test_several_gpus_show_their_link_and_over_pcie(big, dataset, en):
    # big-llm in 4 bits: 335.5 GB + 0.14 GB of cache: 8 × 64 GB; the card (PCIe only) cannot.
    table = models.configurations_table(big, "int4", dataset, en)
    assert [dict(row[0].data)["gpu"] for row in table.rows] == ["big", "pcie"]
    big_row, pcie = table.rows
    assert texts(big_row)[1:4] == ["8", "NVLink, 900 GB/s (8 GPUs linked by NVSwitch)", "$23.04/h"]
    # Reads 37 B active parameters at half a byte over 8 × 3,350 GB/s: 1,448.6 tokens/s.
    assert big_row[4].text == f"≤ {math.floor(Fraction(8 * 3350 * GB) / (BIG_ACTIVE / 2)):,} tokens/s"
    assert pcie[1].text == "8, over PCIe"  # a bridge joins only 2
    assert dict(pcie[0].data)["fast-link"] == "false"


def test_recommendation_is_the_cheapest_fast_linked_rental(small, big, dataset, en):
    assert models.recommendation_text(small, "bf16", dataset, en) == (
        "Cheapest to rent for Small LLM in BF16 (published format): 1 × Card, from $0.50/h; "
        "decoding ≤ 62 tokens/s, ≤ 451,000 tokens/$.")
    assert models.recommendation_data(small, "fp8", dataset) == (
        ("gpu", "card"), ("count", "1"), ("model", "small-llm"), ("precision", "fp8"))
    # 8 PCIe cards over PCIe would hold big-llm in 4 bits, but are neither fast-linked nor rentable.
    assert models.recommended(big, "int4", dataset) == sizing.Configuration("big", 8, Fraction(2304, 100), True)
    # A native format is stated by name: 20 B in MXFP4 (4.25 bits) is 10.6 GB, one card holds it.
    mxfp4 = hand_llm(native_precision={"format": "mxfp4", "source": "https://example.com/n"})
    assert models.recommendation_data(mxfp4, "native", dataset) == (
        ("gpu", "card"), ("count", "1"), ("model", "hand-llm"), ("precision", "mxfp4"))


def test_no_recommendation_when_nothing_rentable_holds_the_model(big, dataset, en):
    # 1,342 GB in BF16 > 8 × 64 GB.
    assert models.recommended(big, "bf16", dataset) is None
    assert models.recommendation_text(big, "bf16", dataset, en) == (
        "No rentable configuration of 8 GPUs or fewer sharing a fast link holds Big LLM in BF16.")
    assert models.recommendation_data(big, "bf16", dataset) == ()


def test_count_text(en):
    assert models.count_text(sizing.Configuration("x", 2, None, True), en) == "2"
    assert models.count_text(sizing.Configuration("x", 4, None, False), en) == "4, over PCIe"


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


# --- what a GPU runs -----------------------------------------------------------------------------

def test_models_on_a_gpu_count_the_gpus_each_needs(dataset, fr, en):
    card = models.models_on_gpu_table(dataset.gpus["card"], dataset, en)
    assert card.caption == "Language models: how many Card GPUs each needs, with 8,192 tokens of context"
    small_row, big_row = card.rows
    assert texts(small_row) == ["Small LLM", "1", "1", "1"]  # 17.1 GB ≤ 19.2 GB
    # big-llm in 4 bits: 335.6 GB ÷ 19.2 GB = 17.5 cards: more than 8.
    assert texts(big_row)[1:] == ["More than 8"] * 3
    pcie = models.models_on_gpu_table(dataset.gpus["pcie"], dataset, fr)
    # 335.6 GB: 4 × 64 = 256 GB is too little, 8 × 64 = 512 GB holds it, beyond the 2-card bridge.
    assert texts(pcie.rows[1])[1:] == ["Plus de 8", "Plus de 8", "8, via PCIe"]
    assert pcie.rows[1][3].data == (("count", "8"),)


def test_diffusion_on_gpu(dataset):
    big_image = diffusion(bf16=40)
    with_big = dataclasses.replace(dataset, diffusion_models={**dataset.diffusion_models, "hand-image": big_image})
    assert [m.id for m in models.diffusion_on_gpu(dataset.gpus["card"], with_big)] == ["image-model"]
    assert [m.id for m in models.diffusion_on_gpu(dataset.gpus["big"], with_big)] == ["image-model", "hand-image"]


# --- the models' index ---------------------------------------------------------------------------

def test_llm_index(dataset, en):
    small_row, big_row = models.llm_index(dataset, en)
    assert (small_row.model_id, small_row.parameters, small_row.memory, small_row.rental) == (
        "small-llm", "8B", "18 GB", "1 × Card, from $0.50/h")
    assert big_row.memory == f"{gb_up(BIG_PARAMS * 2 + 2048 * BIG_KV_PER_TOKEN):,} GB"
    assert big_row.rental == "No configuration of 8 GPUs or fewer"


def test_index_texts(fr, en):
    assert models.gpu_counts_text(fr) == "1, 2, 4 ou 8"
    assert models.gpu_counts_text(en) == "1, 2, 4, or 8"
    assert (models.usable_share_text(fr), models.usable_share_text(en)) == (f"80{NB}%", "80%")
    assert (models.reference_context_text(fr), models.reference_context_text(en)) == (f"8{NN}192", "8,192")
