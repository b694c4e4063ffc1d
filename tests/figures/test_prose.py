"""The shortcode functions behind figures quoted in prose (``figures.prose``), called directly with
the tiny site's data: each figure worked out here from the documented rules (80 % of memory,
16 bytes a parameter to train, 2 / 1 / 0.5 bytes a weight, the KV cache of 8,192 tokens at most
the model's maximum, needs rounded up), and the errors a wrong argument gives.

French strings carry CLDR's no-break spaces: U+202F in digit groups and before units, U+00A0
before % and currency symbols.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

from gpuguide.figures import prose, sizing
from gpuguide.figures.prose import ShortcodeContext, ShortcodeError
from gpuguide.structure.data import Anchor

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
    documented = {"usable_memory_share", "gpu_figure", "ratio", "full_training_memory", "model_memory",
                  "memory_share", "decode_upper_bound", "diffusion_memory", "memory_range",
                  "full_training_bytes_per_param", "reference_context", "llm_requirements_table",
                  "sizing_constants", "published_anchors"}
    assert documented <= set(prose.SHORTCODES)
    assert prose.BLOCK_SHORTCODES == {"llm_requirements_table", "sizing_constants", "published_anchors"}


# --- constants -----------------------------------------------------------------------------------

def test_constants_in_both_languages(fr, en):
    assert (prose.usable_memory_share(fr), prose.usable_memory_share(en)) == (f"80{NB}%", "80%")
    assert (prose.reference_context(fr), prose.reference_context(en)) == (f"8{NN}192", "8,192")
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


def test_model_memory_is_weights_and_kv_cache_rounded_up(fr, en):
    weights = SMALL_PARAMS * 2
    expected = gb_up(weights + 8192 * SMALL_KV_PER_TOKEN)
    assert prose.model_memory(en, model="small-llm", precision="bf16") == f"{expected} GB"
    assert prose.model_memory(fr, model="small-llm", precision="bf16") == f"18{NN}Go"  # 17.13 GB, up
    # FP8 halves the weights, not the BF16 KV cache: 8.03 + 1.07 = 9.1 → 10 GB.
    assert prose.model_memory(en, model="small-llm", precision="fp8") == "10 GB"
    # A longer context grows the cache: 65,536 tokens = 8 GiB of cache, 24.65 GB in all.
    assert prose.model_memory(en, model="small-llm", precision="bf16", context=65_536) == (
        f"{gb_up(weights + 65_536 * SMALL_KV_PER_TOKEN)} GB")
    # The model's native format (FP8 for big-llm) at its full context of 2,048 tokens: 671.14 → 672 GB.
    assert prose.model_memory(en, model="big-llm", precision="native", context=2048) == "672 GB"


def test_model_memory_refuses_a_context_beyond_the_model_or_below_one(en):
    with pytest.raises(ShortcodeError, match="at most 2,048 tokens of context; use context=2048 or less"):
        prose.model_memory(en, model="big-llm", precision="bf16", context=4096)
    with pytest.raises(ShortcodeError, match="positive number of tokens"):
        prose.model_memory(en, model="small-llm", precision="bf16", context=0)


def test_model_memory_default_context_stays_within_the_model_maximum(en):
    expected = gb_up(BIG_PARAMS * 2 + 2048 * BIG_KV_PER_TOKEN)  # 1,342.14 GB → 1,343
    assert prose.model_memory(en, model="big-llm", precision="bf16") == f"{expected:,} GB"


def test_model_memory_rejects_unknown_models_and_precisions(en):
    with pytest.raises(ShortcodeError, match=r"unknown model `smal-llm`; did you mean `small-llm`\?"):
        prose.model_memory(en, model="smal-llm", precision="bf16")
    with pytest.raises(ShortcodeError, match="unknown precision `fp16`; use one of: bf16, fp8, int4, native"):
        prose.model_memory(en, model="small-llm", precision="fp16")


def test_memory_share_is_the_need_over_one_gpus_memory_rounded_up(fr, en):
    need = SMALL_PARAMS * 2 + 8192 * SMALL_KV_PER_TOKEN  # 17.13 GB
    share = math.ceil(Fraction(need * 100, 24 * GB))  # of the card's 24 GB: 71.4 % → 72 %
    assert prose.memory_share(en, model="small-llm", precision="bf16", gpu="card") == f"{share}%"
    assert prose.memory_share(fr, model="small-llm", precision="bf16", gpu="card") == f"72{NB}%"
    assert prose.memory_share(en, model="small-llm", precision="int4", gpu="big") == "7%"  # 5.09 ÷ 80 = 6.4 %


def test_decode_upper_bound_is_bandwidth_over_weights(dataset, en):
    # 3,350 GB/s ÷ 16.06 GB = 208.6; 1,935 ÷ 16.06 = 120.5: whole tokens, rounded down.
    assert prose.decode_upper_bound(en, gpu="big", model="small-llm", precision="bf16") == "≤ 208 tokens/s"
    assert prose.decode_upper_bound(en, gpu="pcie", model="small-llm", precision="bf16") == "≤ 120 tokens/s"
    # big-llm reads only its 37 B active parameters, in FP8: 3,350 ÷ 37 = 90.5 tokens/s.
    assert prose.decode_upper_bound(en, gpu="big", model="big-llm", precision="fp8") == "≤ 90 tokens/s"
    # Without a published bandwidth there is no ceiling.
    silent = dataset.gpus["big"].model_copy(update={"id": "silent", "bandwidth_gbs": None})
    ctx = ShortcodeContext(dataclasses.replace(dataset, gpus={**dataset.gpus, "silent": silent}), en.language)
    assert prose.decode_upper_bound(ctx, gpu="silent", model="small-llm", precision="bf16") == "Not published"


def test_diffusion_memory_is_the_documented_figure(fr, en):
    assert prose.diffusion_memory(fr, model="image-model", precision="bf16") == f"18{NN}Go"
    assert prose.diffusion_memory(en, model="image-model", precision="fp8") == "Not published"
    with pytest.raises(ShortcodeError, match="unknown precision `int4`; use one of: bf16, fp8"):
        prose.diffusion_memory(en, model="image-model", precision="int4")
    with pytest.raises(ShortcodeError, match="unknown model `small-llm`"):
        prose.diffusion_memory(en, model="small-llm", precision="bf16")  # a language model


# --- configurations ------------------------------------------------------------------------------

def test_configuration_text_with_and_without_an_offer(fr, en):
    rented = sizing.Configuration("big", 2, Fraction(576, 100), True)
    assert prose.configuration_text(rented, en) == "2 × Big, from $5.76/h"
    assert prose.configuration_text(rented, fr) == f"2 × Big, dès 5,76{NB}$US/h"
    assert prose.configuration_text(sizing.Configuration("pcie", 1, None, True), en) == "1 × Pcie (no live offer)"
    assert prose.configuration_data(rented, "small-llm", "bf16") == (
        ("gpu", "big"), ("count", "2"), ("model", "small-llm"), ("precision", "bf16"))


def test_llm_requirements_table_sizes_each_model_and_suggests_the_cheapest_rental(en):
    table = prose.llm_requirements_table(en, models="small-llm,big-llm", precision="bf16")
    assert table.headers == ("Model", "Parameters", "Memory needed (BF16, 8,192 tokens)", "Suggested rental (cheapest)")
    assert "8,192 tokens" in table.caption
    small, big, big_native = table.rows
    need = SMALL_PARAMS * 2 + 8192 * SMALL_KV_PER_TOKEN
    assert [cell.text for cell in small[:3]] == ["Small LLM", "8B", f"{gb_up(need)} GB"]
    assert small[2].data == (("bytes", str(need)),)
    # One card (24 GB × 80 % = 19.2 GB ≥ 17.1 GB) at $0.50 is cheaper than one Big at $2.88.
    assert small[3].text == "1 × Card, from $0.50/h"
    assert dict(small[3].data) == {"gpu": "card", "count": "1", "model": "small-llm", "precision": "bf16"}
    # big-llm takes at most 2,048 tokens: sized there, and its cell says so.
    big_need = BIG_PARAMS * 2 + 2048 * BIG_KV_PER_TOKEN
    assert big[2].text == f"{gb_up(big_need):,} GB (at its maximum context, 2,048 tokens)"
    assert big[3].text == "No configuration of 8 GPUs or fewer"  # 8 × 64 GB = 512 GB < 1,342 GB
    # A model published in FP8 gets a row for its own format.
    assert big_native[0].text == "Big LLM, in FP8 (native format)"
    assert big_native[2].data == (("bytes", str(BIG_PARAMS + 2048 * BIG_KV_PER_TOKEN)),)


def test_llm_requirements_table_without_a_rental_shows_a_reference_configuration(dataset, en):
    # Without any offer, the smallest fast-linked configuration of any GPU, marked "no live offer".
    ctx = ShortcodeContext(dataclasses.replace(dataset, prices={}), en.language)
    (row,) = prose.llm_requirements_table(ctx, models="small-llm", precision="bf16").rows
    assert row[3].text == "1 × Big (no live offer)"  # 1 GPU; big before pcie and card by id
    assert dict(row[3].data)["gpu"] == "big"


def test_llm_requirements_table_refuses_empty_lists_and_bad_contexts(en):
    with pytest.raises(ShortcodeError, match="model ids separated by commas"):
        prose.llm_requirements_table(en, models=" , ", precision="bf16")
    with pytest.raises(ShortcodeError, match="positive whole number"):
        prose.llm_requirements_table(en, models="small-llm", precision="bf16", context=0)
    with pytest.raises(ShortcodeError, match="unknown precision"):
        prose.llm_requirements_table(en, models="small-llm", precision="fp4")


# --- the methodology's tables --------------------------------------------------------------------

def test_sizing_constants_lists_every_constant_with_its_value_and_source(fr, en):
    table = prose.sizing_constants(en)
    assert len(table.rows) == len(sizing.CONSTANTS)
    values = [row[1].text for row in table.rows]
    assert values[0] == "80%"  # the usable share comes first
    assert {"16 bytes per parameter", "2.2 bytes per parameter", "0.65 bytes per parameter",
            "8,192 tokens, one sequence"} <= set(values)
    assert prose.sizing_constants(fr).rows[0][1].text == f"80{NB}%"
    for row, constant in zip(table.rows, sizing.CONSTANTS):
        # A constant with a source links to it; a rule of this site says so.
        assert row[2].href == constant.source
        if constant.source is None:
            assert row[2].text == "A rule of this site, explained above"


def test_published_anchors_compares_the_tiny_sites_anchor(fr, en):
    # tests/fixtures/tiny/data/anchors.yaml: ZeRO, 7.5 B parameters fully trained need 120 GB (× 16 bytes: equal).
    (row,) = prose.published_anchors(en).rows
    assert [cell.text for cell in row] == ["ZeRO, Figure 1", "120 GB to train 7.5B parameters (full training)",
                                           "120 GB", "same"]
    assert row[0].href == "https://arxiv.org/abs/1910.02054"
    assert prose.published_anchors(fr).rows[0][3].text == "identique"


def anchor(**fields: object) -> Anchor:
    base: dict[str, object] = {"id": "hand-made", "source": "https://example.com/paper", "reference": "Paper",
                               "quote": "…"}
    return Anchor.model_validate({**base, **fields})


def test_an_anchor_we_exceed_is_more_conservative(en):
    # A source saying 100 GB for 7.5 B parameters: ours is 120 GB, 20 % more.
    row = prose.anchor_row(anchor(claim="training_memory", method="full", parameters=7_500_000_000,
                                  published_gb=100), en)
    assert row[3].text == "+20%: more conservative"


def test_a_trains_on_claim_beyond_our_budget_says_so(en):
    # QLoRA's 65 B on one 48 GB GPU: 65 × 0.65 = 42.25 GB, 88.02 % of it, rounded up to 88.1 %, beyond 80 %.
    row = prose.anchor_row(anchor(claim="trains_on", method="qlora", parameters=65_000_000_000, gpu_memory_gb=48), en)
    assert row[2].text == "43 GB, 88.1% of the memory"
    assert row[3].text.startswith("Beyond the 80% counted")


def test_a_kv_cache_claim_matching_ours_is_the_same(en):
    # NVIDIA's Llama 2 7B example: 4,096 tokens × 2 × 32 layers × 4,096 (32 heads of 128) × 2 bytes.
    published = 4096 * 2 * 32 * 4096 * 2
    row = prose.anchor_row(anchor(claim="kv_cache", layers=32, kv_heads=32, head_dim=128, context_tokens=4096,
                                  published_bytes=published), en)
    assert row[2].text == f"{published:,} bytes"
    assert row[3].text == "same"
