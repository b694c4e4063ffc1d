"""The GPU dataset, the models, the price snapshot and the site configuration, loaded from ``data/`` and validated.

Units are in the field names. A figure the vendor does not publish is left out of the YAML and is
``None`` here: it is never guessed, and pages print "not published" for it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Sequence, TypeVar

from pydantic import Field, field_validator, model_validator

from .errors import Problems, did_you_mean
from .schema import Strict, validate
from .sources import YamlDocument, parse_yaml, read_text

Positive = Annotated[float, Field(gt=0, description="a number greater than zero, without unit or quotes")]
PositiveInt = Annotated[int, Field(gt=0, description="a whole number greater than zero, without unit or quotes")]
Identifier = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$",
                                  description="lower-case letters, digits and dashes, e.g. `h100-sxm`")]
SourceUrl = Annotated[str, Field(pattern=r"^https://\S+$", description="the https:// address of the source")]


class Interconnect(Strict):
    kind: Literal["NVLink", "Infinity Fabric", "PCIe"]
    bandwidth_gbs: Positive | None = None  # total per GPU, both directions, as the vendor states it


class Gpu(Strict):
    """One GPU model, as its vendor specifies it (dense tensor rates: no sparsity)."""

    id: Identifier
    vendor: Literal["NVIDIA", "AMD", "Intel"]
    model: str
    architecture: str
    segment: Literal["data-centre", "workstation", "consumer"]
    memory_gb: Positive
    memory_type: str
    bandwidth_gbs: Positive | None = None
    bf16_tflops: Positive | None = None  # dense tensor BF16 (GeForce: the FP32-accumulate rate)
    fp8_tflops: Positive | None = None  # dense tensor FP8
    fp32_tflops: Positive | None = None  # non-tensor FP32
    fp64_tflops: Positive | None = None  # FP64 vector
    fp64_tensor_tflops: Positive | None = None  # FP64 matrix / tensor
    tdp_w: PositiveInt | None = None
    interconnect: Interconnect | None = None
    form_factor: str | None = None
    ray_tracing: bool | None = None  # ray-tracing hardware (RT cores / ray accelerators)
    launch_year: PositiveInt | None = None
    source: SourceUrl
    sources: list[SourceUrl] = []  # further vendor documents (whitepapers, older datasheets) used
    notes: str | None = None  # where sources disagree, which figure was chosen and why

    @property
    def name(self) -> str:
        return self.model


class GpuFile(Strict):
    gpus: list[Gpu]


class LlmModel(Strict):
    """A large language model's architecture, as its model card or ``config.json`` gives it."""

    id: Identifier
    name: str
    developer: str
    parameters: PositiveInt  # total, exact where published (else as the card rounds it: see notes)
    active_parameters: PositiveInt | None = None  # read per token, mixture-of-experts only
    layers: PositiveInt
    kv_heads: PositiveInt  # key/value heads (= attention heads without grouped-query attention)
    head_dim: PositiveInt
    # Multi-head latent attention (DeepSeek): elements cached per layer per token (one compressed
    # latent shared by keys and values) instead of 2 × kv_heads × head_dim.
    kv_compressed_dim: PositiveInt | None = None
    max_context_tokens: PositiveInt
    source: SourceUrl
    notes: str | None = None

    @model_validator(mode="after")
    def _active_within_total(self) -> "LlmModel":
        if self.active_parameters is not None and self.active_parameters > self.parameters:
            raise ValueError("active_parameters is larger than parameters")
        return self


DiffusionPrecision = Literal["bf16", "fp8"]


class DiffusionModel(Strict):
    """An image or video generation model and the GPU memory its publisher documents for it."""

    id: Identifier
    name: str
    developer: str
    kind: Literal["image", "video"]
    parameters: PositiveInt | None = None
    # GPU memory the source documents, per weight precision ("bf16": any 16-bit float, BF16 or
    # FP16). A precision the source gives no figure for is left out, never estimated.
    memory_gb: dict[DiffusionPrecision, Positive] = {}
    memory_includes: str | None = None  # what the documented figure covers (resolution, offloading…)
    source: SourceUrl
    notes: str | None = None

    @model_validator(mode="after")
    def _figures_are_explained(self) -> "DiffusionModel":
        if self.memory_gb and not self.memory_includes:
            raise ValueError("memory_gb needs memory_includes: say what the documented figure covers")
        return self


class ModelFile(Strict):
    llm_models: list[LlmModel]
    diffusion_models: list[DiffusionModel]


class PriceFile(Strict):
    """Best live "from" price per GPU-hour, USD, excluding tax, at one snapshot date."""

    as_of: dt.date
    source: str
    usd_per_gpu_hour: dict[str, Positive]


class SiteConfig(Strict):
    base_url: SourceUrl
    site_name: str
    default_language: str
    languages: dict[str, str]  # code -> Babel locale, in menu order

    @model_validator(mode="after")
    def _default_is_listed(self) -> "SiteConfig":
        if self.default_language not in self.languages:
            raise ValueError(f"default_language `{self.default_language}` is not in languages")
        return self


class UseCaseFile(Strict):
    use_cases: list[Identifier]


class UiStrings(Strict):
    strings: dict[str, str]

    @field_validator("strings")
    @classmethod
    def _not_empty(cls, value: dict[str, str]) -> dict[str, str]:
        empty = [key for key, text in value.items() if not text.strip()]
        if empty:
            raise ValueError(f"empty UI string(s): {', '.join(empty)}")
        return value


@dataclass(frozen=True)
class Price:
    usd_per_gpu_hour: float
    as_of: dt.date


@dataclass
class Dataset:
    """Everything in ``data/`` after validation."""

    config: SiteConfig
    gpus: dict[str, Gpu]  # in file order
    prices: dict[str, Price]
    prices_as_of: dt.date
    use_cases: list[str]  # ids, in menu order
    llm_models: dict[str, LlmModel]  # in file order
    diffusion_models: dict[str, DiffusionModel]  # in file order
    strings: dict[str, dict[str, str]]  # language -> key -> text
    files: dict[str, Path]  # what each part was read from, for error messages

    def price(self, gpu_id: str) -> Price | None:
        return self.prices.get(gpu_id)


Record = TypeVar("Record", Gpu, LlmModel, DiffusionModel)


def _by_id(records: Sequence[Record], document: YamlDocument, key: str, path: Path, problems: Problems,
           what: str) -> dict[str, Record]:
    """Index ``records`` (the list at ``key`` in ``document``) by id, in file order; report duplicates."""
    index: dict[str, Record] = {}
    for position, record in enumerate(records):
        if record.id in index:
            pos = document.position((key, position, "id"))
            problems.error(path, pos.line, pos.column, f"duplicate {what} id `{record.id}`",
                           f"each {what} needs its own id")
        index[record.id] = record
    return index


def _load(path: Path, problems: Problems) -> YamlDocument | None:
    if not path.exists():
        problems.error(path, 1, 1, "the file is missing", "restore it from version control")
        return None
    text = read_text(path, problems)
    return None if text is None else parse_yaml(text, path, problems)


def load_dataset(data_dir: Path, problems: Problems) -> Dataset | None:
    """Load and validate ``data/``; report every problem; None when any was an error."""
    before = len(problems.errors)
    files = {
        "config": data_dir / "site.yaml",
        "gpus": data_dir / "gpus.yaml",
        "prices": data_dir / "prices.yaml",
        "use_cases": data_dir / "use_cases.yaml",
        "models": data_dir / "models.yaml",
    }
    config_doc = _load(files["config"], problems)
    config = validate(SiteConfig, config_doc, files["config"], problems) if config_doc else None

    gpu_doc = _load(files["gpus"], problems)
    gpu_file = validate(GpuFile, gpu_doc, files["gpus"], problems) if gpu_doc else None
    gpus = _by_id(gpu_file.gpus, gpu_doc, "gpus", files["gpus"], problems, "GPU") if gpu_file else {}

    price_doc = _load(files["prices"], problems)
    price_file = validate(PriceFile, price_doc, files["prices"], problems) if price_doc else None
    prices: dict[str, Price] = {}
    if price_file:
        for gpu_id, usd in price_file.usd_per_gpu_hour.items():
            if gpus and gpu_id not in gpus:
                pos = price_doc.position(("usd_per_gpu_hour", gpu_id))
                problems.error(files["prices"], pos.line, pos.column, f"unknown GPU id `{gpu_id}`",
                               did_you_mean(gpu_id, gpus) or "use an id from data/gpus.yaml")
            prices[gpu_id] = Price(usd, price_file.as_of)

    use_case_doc = _load(files["use_cases"], problems)
    use_case_file = validate(UseCaseFile, use_case_doc, files["use_cases"], problems) if use_case_doc else None

    model_doc = _load(files["models"], problems)
    model_file = validate(ModelFile, model_doc, files["models"], problems) if model_doc else None
    llm_models = (_by_id(model_file.llm_models, model_doc, "llm_models", files["models"], problems, "model")
                  if model_file else {})
    diffusion_models = (_by_id(model_file.diffusion_models, model_doc, "diffusion_models", files["models"],
                               problems, "model") if model_file else {})

    strings: dict[str, dict[str, str]] = {}
    if config:
        for language in config.languages:
            path = data_dir / "ui" / f"{language}.yaml"
            files[f"ui/{language}"] = path
            doc = _load(path, problems)
            ui = validate(UiStrings, doc, path, problems) if doc else None
            if ui:
                strings[language] = dict(ui.strings)
        _check_ui_strings_complete(strings, files, problems)

    if len(problems.errors) > before or not (config and gpu_file and price_file and use_case_file and model_file):
        return None
    return Dataset(config=config, gpus=gpus, prices=prices, prices_as_of=price_file.as_of,
                   use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                   diffusion_models=diffusion_models, strings=strings, files=files)


def _check_ui_strings_complete(strings: dict[str, dict[str, str]], files: dict[str, Path],
                               problems: Problems) -> None:
    """Every language must define every UI string: a missing one is an error, never a fallback."""
    every_key = set().union(*strings.values()) if strings else set()
    for language, table in strings.items():
        for key in sorted(every_key - set(table)):
            others = [lang for lang in strings if key in strings[lang]]
            problems.error(files[f"ui/{language}"], 1, 1, f"missing UI string `{key}`",
                           f"translate it from data/ui/{others[0]}.yaml")
