"""Published, reproducible measurements (``data/measurements.yaml``): MLPerf Inference results, each
with its round, system, software, settings and the file it was read from.

Pages show a measurement next to the estimate for the same model and GPU, with the ratio; the tests
hold every one against the bound the site calls an upper bound.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import Field, model_validator

from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.schema import Strict, pattern_hint, validate
from gpuguide.structure.yaml_documents import YamlDocument

Identifier = Annotated[str, Field(pattern=pattern_hint(
    r"^[a-z0-9]+([.-][a-z0-9]+)*$", "use lower-case letters, digits, dots and dashes, e.g. `v5.0-nvidia-h100`"))]
SourceUrl = Annotated[str, Field(pattern=pattern_hint(
    r"^https://\S+$", "write the document's address, starting with https://"))]
Rate = Annotated[float, Field(gt=0, lt=10**9, allow_inf_nan=False)]
Milliseconds = Annotated[float, Field(gt=0, lt=10**7, allow_inf_nan=False)]


class Benchmark(Strict):
    """A workload the measurements ran: its model, dataset and the token statistics a bound needs."""

    id: Identifier
    """lower-case letters, digits, dots and dashes: how measurements name it"""
    name: str
    """the benchmark as its suite names it (`Llama 2 70B`)"""
    model: str
    """an id of `data/models.yaml` (a language model, or an image or video model)"""
    dataset: str
    """the dataset and its size"""
    input_tokens_mean: Rate | None = None
    """language models: the mean prompt length of the dataset, tokens"""
    output_tokens_mean: Rate | None = None
    """language models: the mean output length, tokens"""
    server_ttft_ms: Milliseconds | None = None
    """the Server scenario's limit on time to first token (99th percentile), ms"""
    server_tpot_ms: Milliseconds | None = None
    """the Server scenario's limit on time per output token (99th percentile), ms"""
    source: SourceUrl
    """the benchmark's reference document, https://"""
    read_from: str | None = None
    """the copy the figures were read from, where it is not the source (`repository:path`)"""


class Measurement(Strict):
    """One published result: a system, a benchmark, a scenario, and what it measured."""

    id: Identifier
    """lower-case letters, digits, dots and dashes"""
    round: str
    """the suite's round (`v5.0`)"""
    date: dt.date | None = None
    """the round's publication date"""
    benchmark: str
    """an id of `benchmarks`"""
    accuracy_target: Literal["99", "99.9"] | None = None
    """the accuracy the result was held to (a share of the reference model's), where the benchmark has two"""
    scenario: Literal["offline", "server", "interactive", "singlestream"]
    """`offline`: a batch job, throughput only; `server`: requests arriving at random, held to latency limits; `interactive`: tighter limits; `singlestream`: one request at a time"""
    submitter: str
    """who submitted it"""
    system: str
    """the system as its submitter names it"""
    gpu: str
    """an id of `data/gpus.yaml`"""
    gpu_count: Annotated[int, Field(gt=0, le=1024)]
    """the GPUs the result used"""
    software: str | None = None
    """the engine and libraries, as the system description states them"""
    weights: str | None = None
    """the weights' data types as the submission states them (`fp8`, `fp4`, `clip1 fp16, unet fp8`…); left out: not stated"""
    tokens_per_second: Rate | None = None
    """language models: output tokens per second"""
    samples_per_second: Rate | None = None
    """completed samples (requests, images, videos) per second"""
    ttft_p99_ms: Milliseconds | None = None
    """server and interactive: 99th-percentile time to first token, ms"""
    tpot_p99_ms: Milliseconds | None = None
    """server and interactive: 99th-percentile time per output token, ms"""
    latency_p90_ms: Milliseconds | None = None
    """single stream: the 90th-percentile latency of one sample, ms"""
    source: SourceUrl
    """the result's `mlperf_log_summary.txt` in the suite's result repository, https://"""
    read_from: str | None = None
    """the copy it was read from, where it is not the source (`repository:path`)"""

    @model_validator(mode="after")
    def _measured_something(self) -> Measurement:
        if self.tokens_per_second is None and self.samples_per_second is None and self.latency_p90_ms is None:
            raise ValueError("a measurement needs `tokens_per_second`, `samples_per_second` or `latency_p90_ms`")
        return self


class MeasurementFile(Strict):
    benchmarks: list[Benchmark]
    measurements: list[Measurement]


def check_measurements(file: MeasurementFile, document: YamlDocument, path: Path, gpus: Mapping[str, object],
                       models: Mapping[str, object], problems: Problems) -> dict[str, Benchmark]:
    """Every id a measurement names exists (benchmark, GPU, model) and each id is used once;
    returns the benchmarks by id."""
    benchmarks: dict[str, Benchmark] = {}
    for index, benchmark in enumerate(file.benchmarks):
        if benchmark.model not in models:
            pos = document.position(("benchmarks", index, "model"))
            problems.error(path, pos.line, pos.column, f"unknown model `{benchmark.model}`",
                           did_you_mean(benchmark.model, models) or "use an id from data/models.yaml")
        if benchmark.id in benchmarks:
            pos = document.position(("benchmarks", index, "id"))
            problems.error(path, pos.line, pos.column, f"duplicate benchmark id `{benchmark.id}`",
                           "each benchmark needs its own id")
        benchmarks[benchmark.id] = benchmark
    seen: set[str] = set()
    for index, measurement in enumerate(file.measurements):
        for field, known, where in (("benchmark", benchmarks, "an id of `benchmarks` above"),
                                    ("gpu", gpus, "an id from data/gpus.yaml")):
            value = getattr(measurement, field)
            if value not in known:
                pos = document.position(("measurements", index, field))
                problems.error(path, pos.line, pos.column, f"unknown {field} `{value}`",
                               did_you_mean(value, known) or f"use {where}")
        if measurement.id in seen:
            pos = document.position(("measurements", index, "id"))
            problems.error(path, pos.line, pos.column, f"duplicate measurement id `{measurement.id}`",
                           "each measurement needs its own id")
        seen.add(measurement.id)
    return benchmarks


def load_measurements(document: YamlDocument, path: Path, gpus: Mapping[str, object], models: Mapping[str, object],
                      problems: Problems) -> tuple[dict[str, Benchmark], list[Measurement]] | None:
    """Validate ``data/measurements.yaml``; None when it has errors (they are reported)."""
    before = len(problems.errors)
    file = validate(MeasurementFile, document, path, problems)
    if file is None:
        return None
    benchmarks = check_measurements(file, document, path, gpus, models, problems)
    return None if len(problems.errors) > before else (benchmarks, list(file.measurements))
