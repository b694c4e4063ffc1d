"""The methodology page's tables (``figures.methodology``), with the tiny site's data: every constant
with its source, the weight formats, each published figure against this site's, and each
measurement against its bound."""

from __future__ import annotations

import pytest

from gpuguide.figures import methodology, serving, sizing
from gpuguide.figures.registry import ShortcodeContext, ShortcodeError
from gpuguide.structure.anchors import Anchor

NB = "\u00a0"


@pytest.fixture(scope="module")
def fr(dataset) -> ShortcodeContext:
    return ShortcodeContext(dataset, dataset.languages()["fr"])


@pytest.fixture(scope="module")
def en(dataset) -> ShortcodeContext:
    return ShortcodeContext(dataset, dataset.languages()["en"])


def test_sizing_constants_lists_every_training_constant_with_its_value_and_source(fr, en):
    table = methodology.sizing_constants(en)
    assert len(table.rows) == len(sizing.CONSTANTS)
    values = [row[1].text for row in table.rows]
    assert values[0] == "80%"  # the usable share comes first
    assert {"16 bytes per parameter", "2.2 bytes per parameter", "0.65 bytes per parameter"} <= set(values)
    assert methodology.sizing_constants(fr).rows[0][1].text == f"80{NB}%"
    for row, constant in zip(table.rows, sizing.CONSTANTS):
        assert row[2].href == constant.source
        if constant.source is None:
            assert row[2].text == "A rule of this site, explained above"


def test_serving_constants_each_have_a_source(en):
    table = methodology.serving_constants(en)
    assert [row[1].text for row in table.rows] == [
        "nvidia-smi’s total where on record, else the vendor’s figure in GiB", "90%", "3 GiB", "2 bytes", "1 byte"]
    assert all(row[2].href and row[2].href.startswith("https://") for row in table.rows)


def test_weight_formats_state_their_bits_what_stays_in_16_bits_and_their_path(en):
    table = methodology.weight_formats(en)
    rows = {dict(row[0].data)["format"]: [cell.text for cell in row] for row in table.rows}
    assert list(rows) == list(serving.FORMATS)
    assert rows["int4"][1:4] == ["4.156 bits per parameter", "Embeddings, output layer", "FP8"]
    assert rows["mxfp4"][1:3] == ["4.25 bits per parameter", "All but the experts (gpt-oss)"]
    assert rows["bf16"][1] == "16 bits per parameter"


def test_published_anchors_compares_the_tiny_sites_anchor(fr, en):
    # tests/fixtures/tiny/data/anchors.yaml: ZeRO, 7.5 B parameters fully trained need 120 GB (× 16 bytes: equal).
    (row,) = methodology.published_anchors(en).rows
    assert [cell.text for cell in row] == ["ZeRO, Figure 1", "120 GB to train 7.5B parameters (full training)",
                                           "120 GB", "same"]
    assert row[0].href == "https://arxiv.org/abs/1910.02054"
    assert methodology.published_anchors(fr).rows[0][3].text == "identique"


def anchor(**fields: object) -> Anchor:
    base: dict[str, object] = {"id": "hand-made", "source": "https://example.com/paper", "reference": "Paper",
                               "quote": "…"}
    return Anchor.model_validate({**base, **fields})


def test_an_anchor_we_exceed_is_more_conservative(en):
    row = methodology.anchor_row(anchor(claim="training_memory", method="full", parameters=7_500_000_000,
                                        published_gb=100), en)
    assert row[3].text == "+20%: more conservative"


def test_a_trains_on_claim_beyond_our_budget_says_so(en):
    # QLoRA's 65 B on one 48 GB GPU: 65 × 0.65 = 42.25 GB, 88.02 % of it, rounded up to 88.1 %, beyond 80 %.
    row = methodology.anchor_row(anchor(claim="trains_on", method="qlora", parameters=65_000_000_000,
                                        gpu_memory_gb=48), en)
    assert row[2].text == "43 GB, 88.1% of the memory"
    assert row[3].text.startswith("Beyond the 80% counted")


def test_a_serves_on_claim_within_the_serving_budget_agrees(en):
    row = methodology.anchor_row(anchor(claim="serves_on", model="small-llm", precision="bf16", gpus=1,
                                        gpu_memory_gb=24), en)
    assert row[2].text.startswith("17.2 GB, 66.5% of the memory")
    assert row[3].text == "Fits in the serving budget: agrees with the source"


def test_a_checkpoint_claim_is_compared_in_the_unit_the_source_uses(en):
    row = methodology.anchor_row(anchor(claim="checkpoint", model="small-llm", precision="bf16",
                                        repository="test/small", published_bytes=16_060_522_496), en)
    assert row[1].text == "16,060,522,496 bytes: test/small, Small LLM in BF16"
    assert row[3].text == "same"


def test_a_kv_cache_claim_matching_ours_is_the_same(en):
    published = 4096 * 2 * 32 * 4096 * 2
    row = methodology.anchor_row(anchor(claim="kv_cache", layers=32, kv_heads=32, head_dim=128, context_tokens=4096,
                                        published_bytes=published), en)
    assert row[2].text == f"{published:,} bytes"
    assert row[3].text == "same"


def test_measured_tables_set_each_result_against_its_bound(en):
    table = methodology.measured_against_bounds(en)
    (row,) = table.rows  # the tiny site's one Offline result
    assert row[1].text == "8 × Big" and row[3].text == "40,000 tokens/s"
    results = methodology.measured_results(en, model="small-llm", scenario="server")
    assert [cell.text for cell in results.rows[0][:1]] == ["1 × Card"]
    with pytest.raises(ShortcodeError, match="unknown scenario"):
        methodology.measured_results(en, model="small-llm", scenario="batch")


def test_measured_generation_needs_an_image_or_video_model_with_a_result(en):
    with pytest.raises(ShortcodeError, match="unknown model `small-llm`"):
        methodology.measured_generation(en, model="small-llm")
    assert methodology.measured_generation(en, model="image-model").rows[0][1].text == "120"
