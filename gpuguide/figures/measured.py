"""Published measurements beside the estimates: each MLPerf result held against the bound this site
computes for the same GPUs, model and workload, with the share of it reached, and what a million
output tokens (or a thousand images) cost at the measured speed and this site's price.

The bound is computed in the format the submission states (FP8, FP4…) with an FP8 KV cache; where
the format is not stated, in the most favourable one the GPU runs natively, so that it stays a
bound whatever the submission did.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from gpuguide.figures import roofline
from gpuguide.figures.records import model_shape, serving_gpu
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.sizing import exact
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.measurements import Benchmark, Measurement

#: A submission's stated weight type → the format the bound is computed in (FP4 as MXFP4, the
#: smaller of the two FP4 formats: the larger bound).
FORMAT_OF_STATED = {"fp8": "fp8", "int8": "fp8", "fp4": "mxfp4", "nvfp4": "nvfp4", "mxfp4": "mxfp4",
                    "bf16": "bf16", "bfloat16": "bf16", "fp16": "bf16", "fp32": "bf16"}


def bound_format(measurement: Measurement, gpu: ServingGpu) -> str:
    """The weight format a measurement's bound is computed in."""
    stated = FORMAT_OF_STATED.get((measurement.weights or "").strip().lower())
    if stated is not None:
        return stated
    rates = gpu.rates
    return "mxfp4" if "fp4" in rates else "fp8" if "fp8" in rates else "bf16"


@dataclass(frozen=True)
class Comparison:
    """A language-model measurement against its bound."""

    measurement: Measurement
    benchmark: Benchmark
    weights: str  # the format the bound was computed in
    bound_tokens_per_second: Fraction | None  # for the measurement's GPU count; None: not computable
    usd_per_million_tokens: Fraction | None  # at the measured speed and this site's price; None: no offer

    @property
    def measured_tokens_per_second(self) -> Fraction:
        assert self.measurement.tokens_per_second is not None
        return exact(self.measurement.tokens_per_second)

    @property
    def per_gpu_tokens_per_second(self) -> Fraction:
        return self.measured_tokens_per_second / self.measurement.gpu_count

    @property
    def share_of_bound(self) -> Fraction | None:
        """Measured ÷ bound: below 1 for every published result (the tests hold it)."""
        if not self.bound_tokens_per_second:
            return None
        return self.measured_tokens_per_second / self.bound_tokens_per_second


def compare(measurement: Measurement, dataset: Dataset) -> Comparison:
    """One language-model measurement (with tokens per second) against its bound."""
    benchmark = dataset.benchmarks[measurement.benchmark]
    llm = dataset.llm_models[benchmark.model]
    gpu = dataset.gpus[measurement.gpu]
    price = dataset.price(gpu.id)
    spec = serving_gpu(gpu, price)
    weights = bound_format(measurement, spec)
    bound = roofline.offline_tokens_per_second_upper_bound(
        model_shape(llm), weights, "fp8", spec, measurement.gpu_count, benchmark.input_tokens_mean or 0,
        benchmark.output_tokens_mean)
    assert measurement.tokens_per_second is not None
    per_gpu = exact(measurement.tokens_per_second) / measurement.gpu_count
    cost = roofline.usd_per_million_tokens(price.usd_per_gpu_hour, per_gpu) if price else None
    return Comparison(measurement, benchmark, weights, bound, cost)


def language_model_comparisons(dataset: Dataset, model: str | None = None,
                               gpu: str | None = None) -> list[Comparison]:
    """Every language-model measurement (of ``model``, on ``gpu``, when given), in file order."""
    return [compare(measurement, dataset) for measurement in language_model_measurements(dataset, model, gpu)]


def language_model_measurements(dataset: Dataset, model: str | None = None,
                                gpu: str | None = None) -> list[Measurement]:
    """The measurements ``language_model_comparisons`` compares, without their bounds (to count them)."""
    found = []
    for measurement in dataset.measurements:
        benchmark = dataset.benchmarks[measurement.benchmark]
        if (measurement.tokens_per_second is None or benchmark.model not in dataset.llm_models
                or (model is not None and benchmark.model != model) or (gpu is not None and measurement.gpu != gpu)):
            continue
        found.append(measurement)
    return found


def best_tokens_per_gpu(dataset: Dataset, model: str, gpu_id: str) -> Fraction | None:
    """The highest Offline throughput per GPU published for ``model`` on ``gpu_id``; None without one."""
    return _best_tokens_per_gpu(tuple(dataset.measurements), tuple(dataset.benchmarks.items()), model, gpu_id)


@functools.lru_cache(maxsize=4096)
def _best_tokens_per_gpu(measurements: tuple[Measurement, ...], benchmarks: tuple[tuple[str, Benchmark], ...],
                         model: str, gpu_id: str) -> Fraction | None:
    by_id = dict(benchmarks)
    rates = [exact(m.tokens_per_second) / m.gpu_count for m in measurements
             if m.gpu == gpu_id and m.scenario == "offline" and m.tokens_per_second is not None
             and by_id[m.benchmark].model == model]
    return max(rates, default=None)


def image_measurements(dataset: Dataset, model: str | None = None) -> list[Measurement]:
    """Measurements of image and video models (samples per second or latency), in file order."""
    return [m for m in dataset.measurements
            if dataset.benchmarks[m.benchmark].model in dataset.diffusion_models
            and (model is None or dataset.benchmarks[m.benchmark].model == model)]
