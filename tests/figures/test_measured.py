"""Published measurements against the bounds: no result of data/measurements.yaml exceeds the bound
this site calls an upper bound, and the figures a page shows beside it come from the measurement."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from gpuguide.errors import Problems
from gpuguide.figures import measured
from gpuguide.figures.measured import bound_format, language_model_comparisons
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.structure.dataset import load_dataset
from sites import ROOT


@pytest.fixture(scope="module")
def real():
    loaded = load_dataset(Path(ROOT) / "data", Problems(ROOT))
    assert loaded is not None
    return loaded


def test_no_published_measurement_exceeds_its_upper_bound(real):
    comparisons = language_model_comparisons(real)
    assert len(comparisons) >= 100  # every language-model result of the last MLPerf rounds
    unbounded = set()
    for found in comparisons:
        if found.bound_tokens_per_second is None:  # no published tensor throughput: no bound is claimed
            unbounded.add(found.measurement.gpu)
            continue
        assert found.measured_tokens_per_second <= found.bound_tokens_per_second, found.measurement.id
    specs = {gpu.id: gpu for gpu in real.gpus.values()}
    assert all(specs[gpu].bf16_tflops is None and specs[gpu].fp8_tflops is None for gpu in unbounded), unbounded
    assert len(unbounded) <= 1  # the RTX PRO 6000 Blackwell only


def test_the_bounds_that_bind_are_reached_in_part_not_exceeded(real):
    # Llama 2 70B on eight H100 (MLPerf v5.0, NVIDIA, 31,306.8 tokens/s): between a fifth and a half of the bound.
    found = next(c for c in language_model_comparisons(real, model="llama-2-70b", gpu="h100-sxm")
                 if c.measurement.scenario == "offline")
    assert found.measured_tokens_per_second == Fraction("31306.8")
    assert Fraction(1, 5) < found.share_of_bound < Fraction(1, 2)


def test_cost_per_million_tokens_is_the_price_of_the_measured_speed(real):
    found = next(c for c in language_model_comparisons(real, model="llama-2-70b", gpu="h100-sxm")
                 if c.measurement.scenario == "offline")
    price = Fraction(str(real.price("h100-sxm").usd_per_gpu_hour))
    assert found.usd_per_million_tokens == price * 10**6 / (Fraction("31306.8") / 8 * 3600)
    assert measured.best_tokens_per_gpu(real, "llama-2-70b", "h100-sxm") == Fraction("31306.8") / 8


def test_an_unstated_format_is_bounded_in_the_gpus_most_favourable_one(real):
    unstated = next(m for m in real.measurements if m.weights is None)
    assert bound_format(unstated, ServingGpu("g", 80, 1, {"bf16": 1, "fp8": 2})) == "fp8"
    assert bound_format(unstated, ServingGpu("g", 80, 1, {"bf16": 1, "fp8": 2, "fp4": 4})) == "mxfp4"
    assert bound_format(unstated, ServingGpu("g", 80, 1, {"bf16": 1})) == "bf16"


def test_image_and_video_measurements_are_apart(real):
    images = measured.image_measurements(real)
    assert images and all(real.benchmarks[m.benchmark].model in real.diffusion_models for m in images)
    assert not {m.id for m in images} & {c.measurement.id for c in language_model_comparisons(real)}
