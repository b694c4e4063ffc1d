"""What a model page shows (``figures.model_tables``, ``model_intro``, ``model_relatives``,
``diffusion_figures``) and the models' index (``model_index``, ``size_groups``), with the tiny
site's two language models, its image model and its three GPUs. Needs are worked out here from the
documented rules: weights with the embeddings in 16 bits, a KV cache for every sequence of a
workload, each figure rounded up to a tenth of a GB and totals the sum of their parts; training at
16 / 2.2 / 0.65 bytes a parameter on 80 % of each GPU's memory; rentals the cheapest live offer
whose GPUs share a fast link."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from gpuguide.figures import (
    diffusion_figures,
    model_index,
    model_intro,
    model_relatives,
    model_tables,
    plan_tables,
    size_groups,
)
from gpuguide.structure.model_specs import DiffusionModel, LlmModel

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
    table = model_tables.kv_table(small, en)
    assert table.caption == "KV cache Small LLM keeps, per workload (131,072 bytes per token in BF16)"
    chat, team, batch = table.rows
    assert texts(chat) == ["Chat: 1 user, 8,192 tokens", f"{tenth_up(8192 * SMALL_KV_PER_TOKEN)} GB",
                           f"{tenth_up(8192 * SMALL_KV_PER_TOKEN // 2)} GB"]
    assert texts(team)[1] == f"{tenth_up(10 * 32_768 * SMALL_KV_PER_TOKEN)} GB" == "43 GB"
    assert texts(batch)[1] == f"{tenth_up(64 * 4096 * SMALL_KV_PER_TOKEN)} GB" == "34.4 GB"


def test_memory_table_per_format_adds_up(small, en):
    table = model_tables.memory_table(small, en)
    assert [row[0].text for row in table.rows] == ["BF16 (published format)", "FP8", "4-bit (AWQ, GPTQ)"]
    bf16, fp8, int4 = table.rows
    assert bf16[1].text == f"{tenth_up(SMALL_PARAMS * 2)} GB" == "16.1 GB"
    assert fp8[1].text == f"{tenth_up(small_weights(Fraction(8)))} GB" == "9.1 GB"
    assert int4[1].text == f"{tenth_up(small_weights(4 + Fraction(20, 128)))} GB" == "5.8 GB"  # AWQ: about 5.7 GB
    kv = [Decimal(dict(row[1].data)["gb"]) for row in model_tables.kv_table(small, en).rows]
    for row in table.rows:
        weights = Decimal(dict(row[1].data)["gb"])
        assert [Decimal(dict(cell.data)["gb"]) for cell in row[2:]] == [weights + part for part in kv]


def test_a_short_context_model_is_sized_at_its_maximum_and_says_so(big, fr):
    table = model_tables.kv_table(big, fr)
    assert table.rows[1][0].text == f"Équipe{NB}: 10 utilisateurs × 2{NN}048 tokens (son contexte maximal)"
    assert table.rows[1][1].text == f"{str(tenth_up(10 * 2048 * BIG_KV_PER_TOKEN)).replace('.', ',')}{NN}Go"


def test_the_published_format_comes_last_when_it_is_none_of_the_three(big, small, en):
    assert plan_tables.model_formats(small) == ("bf16", "fp8", "int4")
    assert plan_tables.model_formats(big) == ("bf16", "fp8", "int4")  # FP8 for all weights: already a row
    assert model_tables.memory_table(big, en).rows[1][0].text == "FP8 (published format)"


# --- serving -------------------------------------------------------------------------------------

def test_the_cheapest_configuration_per_format_and_workload(small, dataset, en):
    table = model_tables.cheapest_per_format(small, dataset, en)
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
    chat, team, _ = model_tables.preset_sections(small, dataset, en)
    assert chat.cheapest.startswith("Cheapest to rent for Small LLM, Chat: 1 user, 8,192 tokens: 1 × Card")
    assert chat.command == ("vllm serve small-llm --tensor-parallel-size 1 --max-model-len 8192 --kv-cache-dtype auto "
                            "--gpu-memory-utilization 0.9 --max-num-seqs 1")
    assert "--max-num-seqs 10" in team.command and "--max-model-len 32768" in team.command
    rows = {row[0].text: row for row in team.table.rows}
    assert rows["Card"][-1].text == "Needs 4 GPUs, without a fast link"  # 59.1 GB over four 20 GB budgets
    assert rows["Pcie"][-1].text == "No offer yet"


def test_no_rental_when_nothing_rentable_holds_the_model(big, dataset, en):
    for section in model_tables.preset_sections(big, dataset, en):
        assert section.cheapest is None and section.command is None
        assert {row[-1].text for row in section.table.rows} <= {"Does not fit in 8 GPUs", "No offer yet",
                                                                 "Needs 8 GPUs; a fast link joins only 2"}


def test_measurements_table_sets_each_result_against_its_bound(small, big, dataset, en):
    table = model_tables.measurements_table(small, dataset, en)
    offline, server = table.rows
    assert offline[0].text == "8 × Big" and offline[0].detail == "MLPerf Inference v1.0, Test"
    assert offline[2].text == "40,000 tokens/s"
    bound = float(dict(offline[3].data)["bound"])
    assert 40_000 < bound
    assert offline[4].text.endswith("%") and offline[6].href == "https://example.com/bench-small/big-offline"
    assert server[5].text == "$0.154"  # $0.50 ÷ (900 tokens/s × 3,600) × 10⁶
    assert model_tables.measurements_table(big, dataset, en) is None


def test_fine_tuning_table_of_the_small_model(small, dataset, fr, en):
    table = model_tables.fine_tuning_table(small, dataset, en)
    full, lora, qlora = table.rows
    # Full: 16 bytes × 8.03 B = 128.48 GB; 2 Big give 128 GB (< need): 4 × $2.88 = $11.52.
    assert texts(full) == ["Full training", f"{gb_up(SMALL_PARAMS * 16)} GB", "4 × Big, from $11.52/h"]
    assert full[0].detail == "16 bytes per parameter"
    assert dict(full[2].data) == {"gpu": "big", "count": "4", "model": "small-llm", "method": "full"}
    # LoRA: 2.2 × 8.03 = 17.67 GB ≤ 19.2 GB: one card. QLoRA: 0.65 × 8.03 = 5.22 GB.
    assert texts(lora)[1:] == [f"{gb_up(SMALL_PARAMS * Fraction(22, 10))} GB", "1 × Card, from $0.50/h"]
    assert texts(qlora)[1:] == ["6 GB", "1 × Card, from $0.50/h"]
    assert model_tables.fine_tuning_table(small, dataset, fr).rows[2][0].detail == "0,65 octet par paramètre"


def test_fine_tuning_without_any_offer_shows_a_reference_configuration(small, dataset, en):
    no_offers = dataclasses.replace(dataset, prices={})
    full = model_tables.fine_tuning_table(small, no_offers, en).rows[0]
    # 128.48 GB: 4 Big on NVSwitch; pcie would need 4 over its 2-card bridge, the card 8 over PCIe.
    assert full[2].text == "4 × Big (no live offer)"


def test_fine_tuning_what_nothing_holds(big, dataset, en):
    full, lora, qlora = model_tables.fine_tuning_table(big, dataset, en).rows
    # Full 10,736 GB and LoRA 1,476 GB exceed 8 × 64 GB; QLoRA 436 GB fits 8 Big.
    assert full[2].text == lora[2].text == "No configuration of 8 GPUs or fewer"
    assert texts(qlora)[1:] == [f"{gb_up(BIG_PARAMS * Fraction(65, 100))} GB", "8 × Big, from $23.04/h"]


def test_facts(small, big, fr, en):
    assert model_tables.facts(small, en) == [("Publisher", "Test"), ("Parameters", "8B"), ("Layers", "32"),
                                       ("Maximum context", "131,072 tokens"), ("Published weights", "BF16")]
    facts = dict(model_tables.facts(big, fr))
    assert facts["Paramètres actifs par token"] == f"37{NB}Md"
    assert facts["Poids publiés en"] == "FP8"


# --- image and video models ----------------------------------------------------------------------

def test_diffusion_table_lists_gpus_with_the_documented_memory_cheapest_first(dataset, en):
    table = diffusion_figures.diffusion_table(dataset.diffusion_models["image-model"], dataset, en)  # 18 GB in BF16
    assert table.headers == ("GPU", "Memory", "Runs in BF16", "Price/h")
    assert [texts(row) for row in table.rows] == [["Card", "24 GB", "Yes", "$0.50/h"],
                                                  ["Big", "80 GB", "Yes", "$2.88/h"],
                                                  ["Pcie", "80 GB", "Yes", "No offer"]]


def test_diffusion_table_leaves_out_gpus_that_run_it_at_no_precision(dataset, en):
    # 40 GB in BF16, 20 GB in FP8 (no 80 % rule: the documented figure is used as is).
    model = diffusion(bf16=40, fp8=20)
    table = diffusion_figures.diffusion_table(model, dataset, en)
    assert table.headers[2:4] == ("Runs in BF16", "Runs in FP8")
    assert next(texts(row)[:4] for row in table.rows) == ["Card", "24 GB", "No", "Yes"]
    only_big = diffusion(bf16=70)
    assert [row[0].text for row in diffusion_figures.diffusion_table(only_big, dataset, en).rows] == ["Big", "Pcie"]
    assert diffusion_figures.diffusion_table(diffusion(bf16=81), dataset, en).rows == ()


def test_diffusion_memory_text(dataset, fr):
    assert diffusion_figures.diffusion_memory_text(dataset.diffusion_models["image-model"], fr) == [("BF16", f"18{NN}Go")]
    assert diffusion_figures.diffusion_memory_text(diffusion(bf16=40, fp8=20), fr) == [("BF16", f"40{NN}Go"),
                                                                            ("FP8", f"20{NN}Go")]


def test_generation_table_gives_images_per_minute_per_gpu_and_their_cost(dataset, en):
    table = diffusion_figures.generation_table(dataset.diffusion_models["image-model"], dataset, en)
    (row,) = table.rows
    # 16 images/s on 8 GPUs: 2 per GPU per second, 120 a minute; $2.88 an hour ÷ 7,200 images × 1,000 = $0.40.
    assert [cell.text for cell in row[:3]] == ["8 × Big", "120", "$0.40"]
    assert table.headers[1:3] == ("Images per minute, per GPU", "Per 1,000 images")
    no_result = dataclasses.replace(dataset, measurements=())
    assert diffusion_figures.generation_table(dataset.diffusion_models["image-model"], no_result, en) is None


# --- what a GPU runs -----------------------------------------------------------------------------

def test_diffusion_on_gpu(dataset):
    big_image = diffusion(bf16=40)
    with_big = dataclasses.replace(dataset, diffusion_models={**dataset.diffusion_models, "hand-image": big_image})
    assert [m.id for m in diffusion_figures.diffusion_on_gpu(dataset.gpus["card"], with_big)] == ["image-model"]
    assert [m.id for m in diffusion_figures.diffusion_on_gpu(dataset.gpus["big"], with_big)] == ["image-model", "hand-image"]


# --- the models' index ---------------------------------------------------------------------------

def test_llm_index_in_the_published_format_smallest_first(dataset, en):
    small_row, big_row = model_index.llm_index(dataset, en)
    assert (small_row.model_id, small_row.parameters, small_row.published_format) == ("small-llm", "8B", "BF16")
    assert small_row.memory == "17.2 GB"  # 16.1 GB of weights + 1.1 GB for the chat workload
    assert small_row.rental.startswith("1 × Card · $0.50/h")
    assert big_row.published_format == "FP8"
    fp8_weights = (BIG_PARAMS - 2 * 129_280 * 7168) + 2 * 129_280 * 7168 * 2
    assert big_row.memory_gb == tenth_up(fp8_weights) + tenth_up(2048 * BIG_KV_PER_TOKEN)
    assert big_row.rental == "No configuration of 8 GPUs or fewer"


def test_usable_share_text(fr, en):
    assert (model_index.usable_share_text(fr), model_index.usable_share_text(en)) == (f"80{NB}%", "80%")


# --- what sets a model apart ---------------------------------------------------------------------

def test_size_groups_and_their_labels(en, fr):
    assert [size_groups.size_group(n) for n in (SMALL_PARAMS, 10**10, 10**10 + 1, 40 * 10**9, 100 * 10**9 + 1)] == [
        0, 0, 1, 1, 3]
    assert [size_groups.size_group_label(group, en) for group in range(4)] == [
        "up to 10B", "10B to 40B", "40B to 100B", "over 100B"]
    assert size_groups.size_group_label(1, fr) == f"de 10{NB}Md à 40{NB}Md"
    assert size_groups.size_group_label(3, en, "models_group") == "Over 100B parameters"
    assert size_groups.SIZE_GROUP_KEYS == ("up-to-10b", "10b-to-40b", "40b-to-100b", "over-100b")


def test_the_intro_of_a_dense_bf16_model_says_what_it_is_and_what_it_takes(small, dataset, en):
    what, takes, standing = model_intro.intro(small, dataset, en)
    assert what == [
        "Small LLM, published by Test, is a dense model of 8B parameters, among the models of up to 10B parameters "
        "on this site: every parameter is read for every token.",
        # The memory table's figures (16.1 GB, 9.1 GB, 5.8 GB).
        "Its weights are published in BF16: 16.1 GB to load, 9.1 GB in FP8 and 5.8 GB in 4-bit (AWQ, GPTQ).",
        "It reads up to 131,072 tokens of context.",
        f"Its 32 query heads share 8 key/value heads: {SMALL_KV_PER_TOKEN:,} bytes of KV cache per token in BF16.",
        # 131,072 tokens × 131,072 bytes = 17.18 GB against 16.06 GB of weights.
        f"One sequence at its full context keeps {tenth_up(131_072 * SMALL_KV_PER_TOKEN)} GB of KV cache in BF16, "
        "1.1 times the weights."]
    assert takes[0].startswith("For one user and 8,192 tokens it needs 17.2 GB, weights and KV cache together; "
                               "the cheapest rental that holds it is 1 × Card · $0.50/h")
    assert takes[1].startswith("On it, that user gets at most ") and takes[1].endswith(" tokens/s, a bound no engine exceeds.")
    # FP8 and 4-bit weights rent on the same $0.50 card: no cheaper.
    assert takes[2] == ("Quantized to FP8 or 4-bit (AWQ, GPTQ), it rents for no less per hour: for a chat, "
                        "quantizing saves memory, not money.")
    assert takes[3] == "For 10 users with 32,768 tokens each it needs 59.1 GB and rents from 1 × Big at $2.88/h."
    # Two results; the fastest per GPU is 8 × Big offline (5,000 tokens/s a GPU, against 900 on one card).
    (measured,) = standing
    assert measured.startswith("MLPerf Inference publishes 2 results for it; the fastest per GPU, 8 × Big in the "
                               "Offline (batch) scenario, reached 40,000 tokens/s, ")


def test_the_intro_of_a_short_context_fp8_mixture_of_experts(big, dataset, fr):
    what, takes, standing = model_intro.intro(big, dataset, fr)
    assert what[0] == (f"Big LLM, publié par Test, est un mélange d’experts de 671{NB}Md de paramètres, dont 37{NB}Md "
                       f"lus pour chaque token, parmi les modèles de plus de 100{NB}Md de paramètres de ce site{NB}: "
                       "sa mémoire suit le total, sa vitesse les paramètres actifs.")
    assert what[1].startswith(f"Ses poids sont publiés en FP8{NB}: ") and f"50{NB}% de leur taille en BF16" in what[1]
    assert what[2] == (f"Son contexte s’arrête à 2{NN}048 tokens{NB}: les charges de cette page au contexte plus long "
                       "sont dimensionnées à ce maximum.")
    # 61 layers × 576 elements × 2 bytes, against 2 × 128 heads × 128 in full: 56.9 times less.
    assert what[3] == (f"Son attention latente met en cache {BIG_KV_PER_TOKEN:,} octets par token en BF16, 56,9 fois "
                       "moins que ses 128 têtes clé/valeur en entier.").replace(",", NN, 1)
    # 2,048 tokens × 70,272 bytes: 0.15 GB, a speck beside 673 GB of weights.
    assert what[4] == f"Une séquence à son contexte complet garde 0,2{NN}Go de cache KV en BF16, moins de 1{NB}% des poids."
    assert takes == [
        f"Pour un utilisateur et 2{NN}048 tokens, il lui faut 673,1{NN}Go, poids et cache KV compris{NB}: aucune "
        "configuration louable de 8 GPU au plus reliés par un lien rapide n’en contient autant.",
        # Nothing rentable holds the FP8 weights; 4-bit weights fit 8 Big (the fine-tuning table's QLoRA too).
        f"Quantifié, il se loue à partir de 8 × Big à 23,04{NB}$US/h en 4 bits (AWQ, GPTQ).",
        f"Pour 10 utilisateurs et 2{NN}048 tokens chacun, il lui faut 674,4{NN}Go{NB}: aucune configuration louable "
        "n’en contient autant."]
    assert standing == []  # no family, no measurement, no model of its layers and KV cache


def _with_relatives(dataset, small):
    """The tiny site with, beside Small LLM (now of the "Tiny" family, with a licence and a date): its
    twin (the same shape under another name), and a mixture of experts of its family."""
    import datetime as dt

    small = small.model_copy(update={"family": "Tiny", "license": "Test licence", "release_date": dt.date(2024, 7, 23)})
    twin = small.model_copy(update={"id": "small-twin", "name": "Small Twin", "family": None, "license": None})
    sibling = hand_llm(id="tiny-moe", name="Tiny MoE", family="Tiny", license="Apache 2.0", release_date=dt.date(2025, 3, 1),
                       active_parameters=5_000_000_000, max_context_tokens=65_536, attention_heads=16,
                       vocab_size=128_256, hidden_size=2048)
    llms = {**dataset.llm_models, small.id: small, twin.id: twin, sibling.id: sibling}
    return dataclasses.replace(dataset, llm_models=llms), small


def test_related_models_are_its_family_and_those_of_its_layers_and_kv_cache(dataset, small):
    with_relatives, small = _with_relatives(dataset, small)
    assert [m.id for m in model_relatives.related_models(small, with_relatives)] == ["small-twin", "tiny-moe"]  # by size
    assert model_relatives.related_models(with_relatives.llm_models["big-llm"], with_relatives) == []
    assert model_relatives.same_figures(small, with_relatives.llm_models["small-twin"])
    assert not model_relatives.same_layers_and_kv_cache(small, with_relatives.llm_models["tiny-moe"])


def test_how_it_differs_names_only_what_differs(dataset, small, en, fr):
    with_relatives, small = _with_relatives(dataset, small)
    twin, sibling = model_relatives.relatives(small, with_relatives, en)
    assert twin.relation == "same layers and KV cache"
    # Nothing the figures depend on differs: the page says so, and what does (the measurements).
    assert twin.differences == (
        "the same parameter count, layers, attention, context and published format: every memory figure and "
        "configuration on this page holds for it too",
        "no published MLPerf result, where this one has 2")
    assert sibling.relation == "Tiny family"
    differences = list(sibling.differences)
    assert differences[:3] == ["20B parameters instead of 8B",
                               "a mixture of experts reading 5B parameters per token, where this one is dense",
                               "65,536 tokens of context instead of 131,072"]
    # 24 layers × 2 × 8 heads × 64 × 2 bytes = 49,152 bytes a token.
    assert "49,152 bytes of KV cache per token instead of 131,072" in differences
    assert "licence: Apache 2.0 instead of Test licence" in differences
    assert "released on March 1, 2025 instead of July 23, 2024" in differences
    assert differences[-1] == "no published MLPerf result, where this one has 2"
    assert not any("query heads" in d or "vocabulary" in d for d in differences)  # details of same-shape models only
    french = model_relatives.relatives(small, with_relatives, fr)[1]
    assert french.relation == "famille Tiny"
    assert "publié le 1 mars 2025 au lieu du 23 juillet 2024" in french.differences


def test_exact_counts_where_the_rounded_ones_read_the_same(dataset, small, en, fr):
    close = small.model_copy(update={"id": "close", "name": "Close", "parameters": SMALL_PARAMS + 1_000_000,
                                     "vocab_size": 128_000})
    with_close = dataclasses.replace(dataset, llm_models={**dataset.llm_models, "close": close})
    (relative,) = model_relatives.relatives(small, with_close, en)
    assert relative.differences[0] == f"{SMALL_PARAMS + 1_000_000:,} parameters instead of {SMALL_PARAMS:,}"
    assert relative.differences[1] == "a vocabulary of 128,000 tokens instead of 128,256"
    french = model_relatives.relatives(small, with_close, fr)[0].differences[0]  # a count, not "Md de paramètres"
    assert french == f"{SMALL_PARAMS + 1_000_000:,} paramètres au lieu de {SMALL_PARAMS:,}".replace(",", NN)


def test_the_intro_names_the_models_whose_figures_are_the_same_and_its_family(dataset, small, en):
    with_relatives, small = _with_relatives(dataset, small)
    _, takes, standing = model_intro.intro(small, with_relatives, en)
    assert takes[-1] == ("Small Twin has the same parameter count, layers, attention, context and published format: "
                         "every memory figure and configuration on this page holds for it too.")
    assert standing[0] == ("It belongs to the Tiny family, whose other model on this site, Tiny MoE, has 20B "
                           "parameters; how it differs is listed at the end of this page.")
    # The twin has no measurement of its own: its page points to those of its layers and KV cache.
    twin = with_relatives.llm_models["small-twin"]
    assert model_intro.intro(twin, with_relatives, en)[2] == [
        "MLPerf Inference publishes no result for it, but 2 for Small LLM, which has the same layers and KV cache."]


# --- image and video models without a published figure -------------------------------------------

def estimated_image(parameters: int | None = 12_000_000_000) -> DiffusionModel:
    return DiffusionModel.model_validate({
        "id": "hand-image", "name": "Hand Image", "developer": "Test", "kind": "image", "parameters": parameters,
        "source": "https://example.com/hand-image"})


def test_a_diffusion_model_without_a_figure_is_estimated_from_its_parameters(dataset, en):
    model = estimated_image()
    # 12B parameters: 2 bytes each in BF16, 1 in FP8.
    assert [(need.precision, need.memory_gb, need.estimated) for need in diffusion_figures.diffusion_needs(model)] == [
        ("bf16", Decimal(24), True), ("fp8", Decimal(12), True)]
    assert diffusion_figures.diffusion_facts(model, en) == [("Publisher", "Test"), ("Parameters", "12B"),
                                                 ("Weights in BF16, estimated", "24 GB"),
                                                 ("Weights in FP8, estimated", "12 GB")]
    table = diffusion_figures.diffusion_table(model, dataset, en)
    assert table.caption == "GPUs with more memory than the weights of Hand Image, estimated from its parameters"
    assert table.headers == ("GPU", "Memory", "Holds the weights in BF16", "Holds the weights in FP8", "Price/h")
    # The weights alone are a floor: a 24 GB card does not hold 24 GB of them.
    assert [texts(row)[:4] for row in table.rows] == [["Card", "24 GB", "No", "Yes"], ["Big", "80 GB", "Yes", "Yes"],
                                                      ["Pcie", "80 GB", "Yes", "Yes"]]
    assert diffusion_figures.diffusion_cheapest(model, dataset, en) == [
        ("big", "In BF16, the cheapest GPU to rent with more memory than its weights: Big, at $2.88/h."),
        ("card", "In FP8, the cheapest GPU to rent with more memory than its weights: Card, at $0.50/h.")]
    assert diffusion_figures.diffusion_estimate_note(model, en).startswith(
        "Its publisher documents no memory figure: these are estimated from its 12B parameters, 2 bytes each in BF16 "
        "and 1 in FP8, for the weights alone;")
    assert diffusion_figures.diffusion_intro(model, dataset, en) == [[
        "Hand Image, published by Test, generates images with 12B parameters.",
        "Its publisher documents no memory figure; its weights alone take 24 GB in BF16 and 12 GB in FP8, an "
        "estimate from its parameters.",
        "Every GPU type on this site has that memory in FP8."]]


def test_a_documented_figure_is_never_estimated_and_one_gpu_serving_two_precisions_is_named_once(dataset, en):
    model = diffusion(bf16=20, fp8=10)
    assert not any(need.estimated for need in diffusion_figures.diffusion_needs(model))
    assert diffusion_figures.diffusion_estimate_note(model, en) is None
    assert diffusion_figures.diffusion_cheapest(model, dataset, en) == [
        ("card", "In BF16 and FP8, the cheapest GPU to rent with the memory its publisher documents: Card, at $0.50/h.")]
    documented = diffusion_figures.diffusion_intro(dataset.diffusion_models["image-model"], dataset, en)[0]
    assert documented[1:] == ["Its publisher documents 18 GB in BF16 of GPU memory.",
                              "Every GPU type on this site has that memory in BF16.",
                              "1 published MLPerf result measures its throughput."]


def test_without_a_figure_or_a_parameter_count_nothing_is_estimated(dataset, en):
    model = estimated_image(None)
    assert diffusion_figures.diffusion_needs(model) == [] and diffusion_figures.diffusion_table(model, dataset, en).rows == ()
    assert diffusion_figures.diffusion_intro(model, dataset, en) == [[
        "Hand Image, published by Test, generates images.",
        "Neither the memory it needs nor its parameter count is on record."]]


# --- the index by size ---------------------------------------------------------------------------

def test_llm_index_groups_by_size_smallest_first(dataset, en, fr):
    small_group, big_group = model_index.llm_index_groups(dataset, en)
    assert (small_group.key, small_group.heading, small_group.label) == ("up-to-10b", "Up to 10B parameters", "up to 10B")
    assert (big_group.key, big_group.heading) == ("over-100b", "Over 100B parameters")
    (small_row,), (big_row,) = small_group.rows, big_group.rows
    assert (small_row.context, small_row.context_tokens, small_row.active) == ("131,072 tokens", 131_072, None)
    assert small_row.rental_usd_per_hour == Fraction(1, 2)  # the card's $0.50, the value the table sorts on
    assert (big_row.active, big_row.rental_usd_per_hour) == ("37B active", None)
    assert model_index.llm_index_groups(dataset, fr)[0].heading == f"Jusqu’à 10{NB}Md de paramètres"
