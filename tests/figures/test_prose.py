"""The shortcode functions behind figures quoted in prose (``figures.prose``), called directly with
the tiny site's data: each figure worked out here from the documented rules (80 % of memory and 16
bytes a parameter to train; to serve, the weights with their 16-bit embeddings and the KV cache of
every user, each rounded up to a tenth of a GB, against 90 % of the reported memory less 3 GiB), and
the errors a wrong argument gives.

French strings carry CLDR's no-break spaces: U+202F in digit groups and before units, U+00A0
before % and currency symbols.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from gpuguide.figures import prose
from gpuguide.figures.registry import BLOCK_SHORTCODES, SHORTCODES, ShortcodeContext, ShortcodeError

NB, NN = "\u00a0", "\u202f"
GB = 10**9
# small-llm (tests/fixtures/tiny/data/models.yaml): 8,030,261,248 parameters, 32 layers, 8 KV heads of 128.
SMALL_PARAMS = 8_030_261_248
SMALL_KV_PER_TOKEN = 32 * 2 * 8 * 128 * 2  # layers × (key, value) × heads × head size × 2 bytes
# big-llm: 671 B parameters, 61 layers of 576 latent elements, at most 2,048 tokens of context.
BIG_PARAMS = 671_000_000_000
BIG_KV_PER_TOKEN = 61 * 576 * 2



@pytest.fixture(scope="module")
def fr(dataset) -> ShortcodeContext:
    return ShortcodeContext(dataset, dataset.languages()["fr"])


@pytest.fixture(scope="module")
def en(dataset) -> ShortcodeContext:
    return ShortcodeContext(dataset, dataset.languages()["en"])


def gb_up(needed: int | Fraction) -> int:
    """Bytes as whole GB, rounded up."""
    return math.ceil(Fraction(needed) / GB)


# --- the registry --------------------------------------------------------------------------------

def test_every_shortcode_of_the_readme_is_registered():
    documented = {"usable_memory_share", "engine_memory_share", "preset", "gpu_figure", "ratio",
                  "full_training_memory", "model_memory", "weights_memory", "memory_share", "decode_upper_bound",
                  "total_throughput_bound", "price_per_million_tokens", "diffusion_memory", "memory_range",
                  "full_training_bytes_per_param", "llm_requirements_table", "sizing_constants",
                  "serving_constants", "weight_formats", "published_anchors", "measured_against_bounds",
                  "measured_results", "measured_generation"}
    assert documented == set(SHORTCODES)
    assert BLOCK_SHORTCODES == {"llm_requirements_table", "sizing_constants", "serving_constants", "weight_formats",
                                "published_anchors", "measured_against_bounds", "measured_results",
                                "measured_generation"}


# --- constants -----------------------------------------------------------------------------------

def test_constants_in_both_languages(fr, en):
    assert (prose.usable_memory_share(fr), prose.usable_memory_share(en)) == (f"80{NB}%", "80%")
    assert (prose.engine_memory_share(fr), prose.engine_memory_share(en)) == (f"90{NB}%", "90%")
    assert prose.preset(fr, key="team") == f"10 utilisateurs × 32{NN}768 tokens"
    assert prose.preset(en, key="chat") == "1 user × 8,192 tokens"
    with pytest.raises(ShortcodeError, match="unknown preset `crowd`; use one of: chat, team, batch"):
        prose.preset(en, key="crowd")
    assert prose.full_training_bytes_per_param(en) == "16"


# --- a GPU's figures -----------------------------------------------------------------------------

def test_gpu_figure_is_what_the_table_cell_shows(fr, en):
    # big: 8 × 80 GB × 80 % ÷ 16 = 32 B → ≈ 30 (multiples of 5 from 10).
    assert prose.gpu_figure(fr, gpu="big", column="train_8gpu") == f"≈{NB}30{NB}Md"
    assert prose.gpu_figure(en, gpu="big", column="train_8gpu") == f"≈{NB}30B"
    assert prose.gpu_figure(en, gpu="big", column="memory") == "80 GB"
    assert prose.gpu_figure(en, gpu="pcie", column="price") == "No offer"
    assert prose.gpu_figure(fr, gpu="pcie", column="fp8") == "Non pris en charge"


def test_gpu_figure_rejects_unknown_gpus_and_columns_with_a_hint(en):
    with pytest.raises(ShortcodeError, match=r"unknown GPU `bgi`; did you mean `big`\?"):
        prose.gpu_figure(en, gpu="bgi", column="memory")
    with pytest.raises(ShortcodeError, match=r"unknown column `memroy`; did you mean `memory`\?"):
        prose.gpu_figure(en, gpu="big", column="memroy")


def test_ratio_of_exact_figures_in_both_languages(fr, en):
    # 989 ÷ 312 = 3.17 BF16 TFLOPS.
    assert prose.ratio(fr, a="big", b="pcie", column="bf16") == "3,2"
    assert prose.ratio(en, a="big", b="pcie", column="bf16") == "3.2"
    assert prose.ratio(en, a="card", b="big", column="memory") == "0.3"  # 24 ÷ 80
    # Capacities divide unrounded: 80 GB ÷ 24 GB = 3.33, though ≈ 30B ÷ ≈ 9B would give 3.3 too.
    assert prose.ratio(en, a="big", b="card", column="train_8gpu") == "3.3"


def test_ratio_in_words_rounds_to_a_whole_number(fr, en):
    assert prose.ratio(fr, a="big", b="pcie", column="bf16", style="words") == "trois"
    assert prose.ratio(en, a="big", b="pcie", column="bf16", style="words") == "three"
    assert prose.ratio(en, a="big", b="card", column="bandwidth", style="words") == "three"  # 3,350 ÷ 1,008 = 3.3


@pytest.mark.parametrize(("arguments", "message"), [
    ({"a": "big", "b": "pcie", "column": "bf16", "style": "prose"}, "unknown style `prose`"),
    ({"a": "big", "b": "pcie", "column": "segment"}, "column `segment` is not a number"),
    ({"a": "big", "b": "card", "column": "ray_tracing"}, "column `ray_tracing` is not a number"),
    ({"a": "pcie", "b": "big", "column": "fp8"}, "`pcie` has no `fp8` figure (not supported)"),
    ({"a": "big", "b": "pcie", "column": "fp64_tensor"}, "`pcie` has no `fp64_tensor` figure (not published)"),
])
def test_ratio_refuses_what_is_not_two_figures(en, arguments, message):
    with pytest.raises(ShortcodeError) as caught:
        prose.ratio(en, **arguments)
    assert message in str(caught.value)


def test_ratio_with_a_gpu_without_an_offer_names_that_gpu(en):
    with pytest.raises(ShortcodeError) as caught:
        prose.ratio(en, a="pcie", b="big", column="usd_per_gb_hour")
    assert "`pcie` has no `usd_per_gb_hour` figure (no offer)" in str(caught.value)


def test_memory_range_from_smallest_to_largest(fr, en):
    # card 24 GB, big and pcie 80 GB, in any order.
    assert prose.memory_range(fr, gpus="big,card,pcie") == f"24 à 80{NN}Go"
    assert prose.memory_range(en, gpus=" pcie , card ") == "24 to 80 GB"
    with pytest.raises(ShortcodeError, match="at least two GPU ids"):
        prose.memory_range(en, gpus="big")
    with pytest.raises(ShortcodeError, match="unknown GPU `nope`"):
        prose.memory_range(en, gpus="big,nope")


# --- memory of a model ---------------------------------------------------------------------------

@pytest.mark.parametrize(("params", "english"), [
    (7_000_000_000, "100 GB"),  # 112 GB → one significant figure, down
    (1_500_000_000, "20 GB"),  # ZeRO's GPT-2: 24 GB
    (65_000_000_000, "1,000 GB"),  # 1,040 GB
    (100_000_000, "1 GB"),  # 1.6 GB
])
def test_full_training_memory_is_16_bytes_a_parameter_rounded_down(en, params, english):
    assert prose.full_training_memory(en, params=params) == english


def test_full_training_memory_refuses_sizes_it_cannot_quote(fr, en):
    assert prose.full_training_memory(fr, params=7_000_000_000) == f"100{NN}Go"
    with pytest.raises(ShortcodeError, match="less than 1 GB"):
        prose.full_training_memory(en, params=50_000_000)  # 0.8 GB
    with pytest.raises(ShortcodeError, match="positive whole number"):
        prose.full_training_memory(en, params=0)


def tenth_up(needed: int | Fraction) -> Decimal:
    return Decimal(math.ceil(Fraction(needed) * 10 / GB)) / 10


def test_model_memory_is_weights_and_kv_cache_each_rounded_up_to_a_tenth(fr, en):
    weights = SMALL_PARAMS * 2
    expected = tenth_up(weights) + tenth_up(8192 * SMALL_KV_PER_TOKEN)  # 16.1 + 1.1
    assert prose.model_memory(en, model="small-llm", precision="bf16") == f"{expected} GB" == "17.2 GB"
    assert prose.model_memory(fr, model="small-llm", precision="bf16") == f"17,2{NN}Go"
    # FP8 halves the weights but the embeddings and output layer, not the BF16 KV cache: 9.1 + 1.1.
    assert prose.model_memory(en, model="small-llm", precision="fp8") == "10.2 GB"
    # Ten users of 32,768 tokens: 43 GB of cache; an FP8 cache halves it.
    assert prose.model_memory(en, model="small-llm", precision="bf16", context=32_768, users=10) == "59.1 GB"
    assert prose.model_memory(en, model="small-llm", precision="bf16", context=32_768, users=10, kv="fp8") == "37.6 GB"
    # The model's native format (FP8 for big-llm, embeddings in BF16) at its full context of 2,048 tokens.
    fp8 = (BIG_PARAMS - 2 * 129_280 * 7168) + 2 * 129_280 * 7168 * 2
    assert prose.model_memory(en, model="big-llm", precision="native", context=2048) == (
        f"{tenth_up(fp8) + tenth_up(2048 * BIG_KV_PER_TOKEN):,} GB")


def test_model_memory_refuses_a_context_beyond_the_model_or_below_one(en):
    with pytest.raises(ShortcodeError, match="at most 2,048 tokens of context; use context=2048 or less"):
        prose.model_memory(en, model="big-llm", precision="bf16", context=4096)
    with pytest.raises(ShortcodeError, match="positive number of tokens"):
        prose.model_memory(en, model="small-llm", precision="bf16", context=0)


def test_model_memory_default_context_stays_within_the_model_maximum(en):
    expected = tenth_up(BIG_PARAMS * 2) + tenth_up(2048 * BIG_KV_PER_TOKEN)  # 1,342 + 0.2 GB
    assert prose.model_memory(en, model="big-llm", precision="bf16") == f"{expected:,} GB"


def test_model_memory_rejects_unknown_models_and_precisions(en):
    with pytest.raises(ShortcodeError, match=r"unknown model `smal-llm`; did you mean `small-llm`\?"):
        prose.model_memory(en, model="smal-llm", precision="bf16")
    with pytest.raises(ShortcodeError, match="unknown precision `fp16`; use one of: bf16, fp8, int4, native"):
        prose.model_memory(en, model="small-llm", precision="fp16")
    with pytest.raises(ShortcodeError, match="unknown KV cache format `int8`; use one of: bf16, fp8"):
        prose.model_memory(en, model="small-llm", precision="bf16", kv="int8")


def test_memory_share_is_the_need_over_the_memory_the_runtime_reports_rounded_up(fr, en):
    need = SMALL_PARAMS * 2 + 8192 * SMALL_KV_PER_TOKEN  # 17.13 GB
    share = math.ceil(Fraction(need * 100, 24 * 2**30))  # of the card's 24 GiB: 66.5 % → 67 %
    assert prose.memory_share(en, model="small-llm", precision="bf16", gpu="card") == f"{share}%" == "67%"
    assert prose.memory_share(fr, model="small-llm", precision="bf16", gpu="card") == f"67{NB}%"


def test_decode_upper_bound_reads_the_weights_and_the_kv_cache(dataset, en):
    # One user of 8,192 tokens: (16.06 − 1.05 GB of weights read, the embedding looked up) + 1.07 GB of cache.
    read = (SMALL_PARAMS - 128_256 * 4096) * 2 + 8192 * SMALL_KV_PER_TOKEN
    assert prose.decode_upper_bound(en, gpu="big", model="small-llm", precision="bf16") == (
        f"≤ {math.floor(Fraction(3350 * GB, read))} tokens/s") == "≤ 208 tokens/s"
    assert prose.decode_upper_bound(en, gpu="pcie", model="small-llm", precision="bf16") == "≤ 120 tokens/s"
    # Ten users share the step: each gets less, all together more.
    ten = prose.decode_upper_bound(en, gpu="big", model="small-llm", precision="bf16", context=8192, users=10)
    total = prose.total_throughput_bound(en, gpu="big", model="small-llm", precision="bf16", context=8192, users=10)
    assert int(ten.split()[1]) < 208 < int(total.split()[1].replace(",", ""))
    # big-llm does not fit one GPU: no speed.
    assert prose.decode_upper_bound(en, gpu="big", model="big-llm", precision="fp8") == "Does not fit on one GPU"
    # Without a published bandwidth there is no bound.
    silent = dataset.gpus["big"].model_copy(update={"id": "silent", "bandwidth_gbs": None})
    ctx = ShortcodeContext(dataclasses.replace(dataset, gpus={**dataset.gpus, "silent": silent}), en.language)
    assert prose.decode_upper_bound(ctx, gpu="silent", model="small-llm", precision="bf16") == "Not published"


def test_price_per_million_tokens_is_a_floor_at_the_bound(en):
    text = prose.price_per_million_tokens(en, gpu="big", model="small-llm", precision="bf16", context=4096, users=64)
    assert text.startswith("≥ $")
    assert prose.price_per_million_tokens(en, gpu="pcie", model="small-llm", precision="bf16") == "No offer"


def test_diffusion_memory_is_the_documented_figure(fr, en):
    assert prose.diffusion_memory(fr, model="image-model", precision="bf16") == f"18{NN}Go"
    assert prose.diffusion_memory(en, model="image-model", precision="fp8") == "Not published"
    with pytest.raises(ShortcodeError, match="unknown precision `int4`; use one of: bf16, fp8"):
        prose.diffusion_memory(en, model="image-model", precision="int4")
    with pytest.raises(ShortcodeError, match="unknown model `small-llm`"):
        prose.diffusion_memory(en, model="small-llm", precision="bf16")  # a language model


# --- configurations ------------------------------------------------------------------------------

def test_llm_requirements_table_sizes_each_model_and_suggests_the_cheapest_rental(en):
    table = prose.llm_requirements_table(en, models="small-llm,big-llm", precision="bf16")
    assert table.headers == ("Model", "Parameters", "Memory needed", "Suggested rental (cheapest)")
    assert "BF16" in table.caption and "1 user × 8,192 tokens" in table.caption  # the column's format and workload
    small, big, big_native = table.rows
    assert [cell.text for cell in small[:3]] == ["Small LLM", "8B", "17.2 GB"]
    # One card (24 GiB × 90 % − 3 GiB = 20.0 GB ≥ 17.2 GB) at $0.50 is cheaper than one Big at $2.88.
    assert small[3].text.startswith("1 × Card · $0.50/h · ≥ $")
    assert dict(small[3].data)["gpu"] == "card" and dict(small[3].data)["weights"] == "bf16"
    # big-llm takes at most 2,048 tokens: sized there, and its cell says so.
    assert big[2].text.endswith("GB (at its maximum context, 2,048 tokens)")
    assert big[3].text == "No configuration of 8 GPUs or fewer"  # 8 × 74 GB < 1,342 GB
    assert big_native[0].text == "Big LLM, in FP8 (native format)"


def test_llm_requirements_table_for_a_team_sizes_every_users_cache(en):
    (row,) = prose.llm_requirements_table(en, models="small-llm", precision="fp8", context=32_768, users=10,
                                          kv="fp8").rows
    assert row[2].text == "30.6 GB"  # 9.1 GB of weights + 21.5 GB of FP8 cache
    assert "10 users × 32,768 tokens" in prose.llm_requirements_table(
        en, models="small-llm", precision="fp8", context=32_768, users=10).caption


def test_llm_requirements_table_without_a_rental_shows_a_reference_configuration(dataset, en):
    # Without any offer, the smallest fast-linked configuration of any GPU, marked "no live offer".
    ctx = ShortcodeContext(dataclasses.replace(dataset, prices={}), en.language)
    (row,) = prose.llm_requirements_table(ctx, models="small-llm", precision="bf16").rows
    assert row[3].text == "1 × Big (no live offer)"  # 1 GPU; big before card and pcie by id
    assert dict(row[3].data)["gpu"] == "big"


def test_llm_requirements_table_refuses_empty_lists_and_bad_contexts(en):
    with pytest.raises(ShortcodeError, match="model ids separated by commas"):
        prose.llm_requirements_table(en, models=" , ", precision="bf16")
    with pytest.raises(ShortcodeError, match="positive whole number"):
        prose.llm_requirements_table(en, models="small-llm", precision="bf16", context=0)
    with pytest.raises(ShortcodeError, match="unknown precision"):
        prose.llm_requirements_table(en, models="small-llm", precision="fp4")
