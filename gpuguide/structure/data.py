"""The GPU dataset, the models, the price snapshot and the site configuration, loaded from ``data/`` and validated.

Units are in the field names. A figure the vendor does not publish is left out of the YAML and is
``None`` here: it is never guessed, and pages print "not published" for it.
"""

from __future__ import annotations

import datetime as dt
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Mapping, Sequence, TypeVar

from babel import Locale, UnknownLocaleError
from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.schema import Strict, validate
from gpuguide.structure.sources import YamlDocument, parse_yaml, read_text
from gpuguide.structure.language import Language, make_language, placeholders

#: Every figure of the data is finite and of a plausible size: `.inf`, `1e308` or a 5,000-digit
#: number is a typo, never a GPU or a model.
Positive = Annotated[float, Field(gt=0, lt=10**9, allow_inf_nan=False,
                                  description="a number greater than zero, without unit or quotes")]
PositiveInt = Annotated[int, Field(gt=0, le=10**15,
                                   description="a whole number greater than zero, without unit or quotes")]
Identifier = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$",
                                  description="lower-case letters, digits and dashes, e.g. `h100-sxm`")]
SourceUrl = Annotated[str, Field(pattern=r"^https://\S+$", description="the https:// address of the source")]
#: A figure for a feature the GPU does not have (no FP8 tensor cores): not the same as unpublished.
NotSupported = Literal["not supported"]
Throughput = Annotated[Positive | NotSupported, Field(
    description="a number of TFLOPS, or `not supported` when the GPU lacks the feature (leave the field out "
                "when the vendor does not publish it)")]


class Interconnect(Strict):
    """How GPUs of this type talk to each other, and how many of them share the fast link."""

    kind: Literal["NVLink", "Infinity Fabric", "PCIe"]
    bandwidth_gbs: Positive | None = None  # total per GPU, both directions, as the vendor states it
    # nvswitch: every GPU of the board reaches every other at full speed; mesh: Infinity Fabric links
    # between every pair (AMD Instinct platforms); bridge: an NVLink bridge joins a few cards;
    # pcie: no fast link, the GPUs talk over PCIe.
    topology: Literal["nvswitch", "mesh", "bridge", "pcie"]
    gpus: PositiveInt = Field(description="how many GPUs share the fast link (1 when the topology is `pcie`)")

    @model_validator(mode="after")
    def _consistent(self) -> "Interconnect":
        fast = {"nvswitch": "NVLink", "bridge": "NVLink", "mesh": "Infinity Fabric", "pcie": "PCIe"}
        if fast[self.topology] != self.kind:
            raise ValueError(f"topology `{self.topology}` goes with kind `{fast[self.topology]}`, not `{self.kind}`")
        if self.topology == "pcie" and self.gpus != 1:
            raise ValueError("a PCIe-only GPU shares no fast link: `gpus` is 1")
        if self.topology != "pcie" and self.gpus < 2:
            raise ValueError("a fast link joins at least 2 GPUs")
        return self


class FormFactor(Strict):
    """The GPU's physical format, worded per language by the UI strings (``form_factor_*``)."""

    module: Literal["SXM", "OAM", "PCIe"]
    slots: Literal[1, 2, 3] | None = None  # PCIe cards: the width in slots
    cooling: Literal["passive", "active", "liquid"] | None = None  # passive: cooled by the server's fans
    low_profile: bool = False
    founders_edition: bool = False  # the width is the Founders Edition's (partner cards vary)


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
    fp8_tflops: Throughput | None = None  # dense tensor FP8
    fp32_tflops: Positive | None = None  # non-tensor FP32
    fp64_tflops: Throughput | None = None  # FP64 vector
    fp64_tensor_tflops: Throughput | None = None  # FP64 matrix / tensor
    # Where the vendor gives FP64 only as a share of FP32 (an architecture whitepaper's "1/64th").
    fp64_ratio_of_fp32: Annotated[str, Field(
        pattern=r"^1/[1-9][0-9]{0,3}$", description="a share such as `1/64`, as the vendor's whitepaper states it")] | None = None
    tdp_w: PositiveInt | None = None
    interconnect: Interconnect
    form_factor: FormFactor | None = None
    ray_tracing: bool | None = None  # ray-tracing hardware (RT cores / ray accelerators)
    launch_year: PositiveInt | None = None
    source: SourceUrl
    sources: list[SourceUrl] = []  # further vendor documents (whitepapers, older datasheets) used
    notes: str | None = None  # where sources disagree, which figure was chosen and why

    @property
    def name(self) -> str:
        return self.model

    @model_validator(mode="after")
    def _fp64_once(self) -> "Gpu":
        if self.fp64_ratio_of_fp32 is not None:
            if self.fp64_tflops is not None:
                raise ValueError("give fp64_tflops or fp64_ratio_of_fp32, not both")
            if self.fp32_tflops is None:
                raise ValueError("fp64_ratio_of_fp32 needs fp32_tflops")
        return self

    @property
    def fp64_is_derived(self) -> bool:
        return self.fp64_tflops is None and self.fp64_ratio_of_fp32 is not None


class GpuFile(Strict):
    gpus: list[Gpu]


class NativePrecision(Strict):
    """A model published in a format other than BF16 (DeepSeek's FP8, gpt-oss's MXFP4)."""

    format: Literal["fp8", "mxfp4"]
    # The parameters stored in that format (gpt-oss: the experts' weights); the others are BF16.
    # Left out: every parameter is in that format.
    quantized_parameters: PositiveInt | None = None
    checkpoint_gib: Positive | None = None  # the checkpoint size the publisher states, in GiB
    source: SourceUrl


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
    # Sliding-window or chunked attention: the tokens a local layer keeps, and how many layers are local.
    window_tokens: PositiveInt | None = None
    window_layers: PositiveInt | None = None
    native_precision: NativePrecision | None = None  # the format the publisher ships, where it is not BF16
    source: SourceUrl
    sources: list[SourceUrl] = []  # further documents used (config.json, papers)
    notes: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "LlmModel":
        if self.active_parameters is not None and self.active_parameters > self.parameters:
            raise ValueError("active_parameters is larger than parameters")
        if (self.window_tokens is None) != (self.window_layers is None):
            raise ValueError("window_tokens and window_layers go together")
        if self.window_layers is not None and self.window_layers > self.layers:
            raise ValueError("window_layers is larger than layers")
        native = self.native_precision
        if native is not None and native.quantized_parameters is not None and native.quantized_parameters > self.parameters:
            raise ValueError("native_precision.quantized_parameters is larger than parameters")
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

    def documented_memory_gb(self, precision: str) -> float | None:
        """The memory the source documents at ``precision`` ("bf16", "fp8"), None if it gives none."""
        return next((memory for key, memory in self.memory_gb.items() if key == precision), None)

    @model_validator(mode="after")
    def _figures_are_explained(self) -> "DiffusionModel":
        if self.memory_gb and not self.memory_includes:
            raise ValueError("memory_gb needs memory_includes: say what the documented figure covers")
        return self


class ModelFile(Strict):
    llm_models: list[LlmModel]
    diffusion_models: list[DiffusionModel]


class Anchor(Strict):
    """A figure a paper, vendor or publisher states, which the memory model is checked against."""

    id: Identifier
    claim: Literal["training_memory", "trains_on", "serves_on", "kv_cache", "weights"]
    method: Literal["full", "lora", "qlora"] | None = None
    parameters: PositiveInt | None = None
    model: str | None = None  # an id of llm_models
    precision: Literal["bf16", "fp8", "int4", "native"] | None = None
    gpus: PositiveInt | None = None
    gpu_memory_gb: Positive | None = None
    layers: PositiveInt | None = None
    kv_heads: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    context_tokens: PositiveInt | None = None
    published_gb: Positive | None = None
    published_gib: Positive | None = None
    published_bytes: PositiveInt | None = None
    source: SourceUrl
    reference: str  # the document and the place in it
    quote: str  # the source's words

    #: The fields each claim needs.
    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {
        "training_memory": ("method", "parameters", "published_gb"),
        "trains_on": ("method", "parameters", "gpu_memory_gb"),
        "serves_on": ("model", "precision", "gpus", "gpu_memory_gb"),
        "kv_cache": ("layers", "kv_heads", "head_dim", "context_tokens", "published_bytes"),
        "weights": ("model", "precision", "published_gib"),
    }

    @model_validator(mode="after")
    def _complete(self) -> "Anchor":
        missing = [name for name in self.NEEDS[self.claim] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a `{self.claim}` anchor needs {', '.join(f'`{name}`' for name in missing)}")
        return self


class AnchorFile(Strict):
    anchors: list[Anchor]


def _cents(value: float) -> float:
    if value < 0.01 or value > 10_000 or round(value, 2) != value:
        raise ValueError("a price is in dollars and cents, from 0.01 to 10,000 (e.g. 2.88)")
    return value


UsdPrice = Annotated[Positive, AfterValidator(_cents)]


class PriceFile(Strict):
    """Best live "from" price per GPU-hour, USD, excluding tax, at one snapshot date."""

    as_of: dt.date
    source: str
    usd_per_gpu_hour: dict[str, UsdPrice]


def _known_locale(value: str) -> str:
    try:
        Locale.parse(value)
    except (ValueError, UnknownLocaleError):
        raise ValueError(f"unknown locale `{value}`; use a CLDR locale such as fr_FR or en_US") from None
    return value


#: A language code is a URL folder (``/fr/``): a BCP 47 language tag, never a path.
LanguageCode = Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$",
                                    description="a language tag such as `fr` or `pt-br` (lower case)")]


class LanguageConfig(Strict):
    locale: Annotated[str, AfterValidator(_known_locale)] = Field(
        description="a Babel locale such as `fr_FR`: how numbers, prices and units are written")
    typography: Literal["plain", "french"] = "plain"  # spacing rules for punctuation (see typography)


class SiteConfig(Strict):
    base_url: SourceUrl
    site_name: str
    languages: dict[LanguageCode, LanguageConfig] = Field(min_length=1)  # code -> locale and typography, in menu order
    default_language: str

    @field_validator("default_language")
    @classmethod
    def _default_is_listed(cls, value: str, info: ValidationInfo) -> str:
        languages = info.data.get("languages")
        if languages is not None and value not in languages:
            raise ValueError(f"default_language `{value}` is not in languages ({', '.join(languages)})")
        return value


class UseCaseFile(Strict):
    use_cases: list[Identifier]


PluralCategory = Literal["zero", "one", "two", "few", "many", "other"]
#: A UI string: one text, or one per CLDR plural category of the language (``one``, ``other``…),
#: chosen by the ``{count}`` it is given.
UiString = str | dict[PluralCategory, str]


class UiStrings(Strict):
    strings: dict[str, UiString]


def _ui_string_forms(value: UiString) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


@dataclass(frozen=True)
class Price:
    usd_per_gpu_hour: float
    as_of: dt.date


@dataclass
class Dataset:
    """Everything in ``data/`` after validation."""

    config: SiteConfig
    gpus: Mapping[str, Gpu]  # in file order
    prices: Mapping[str, Price]
    prices_as_of: dt.date
    use_cases: list[str]  # ids, in menu order
    llm_models: Mapping[str, LlmModel]  # in file order
    diffusion_models: Mapping[str, DiffusionModel]  # in file order
    strings: Mapping[str, Mapping[str, Any]]  # language -> key -> text (or its plural forms)
    files: dict[str, Path]  # what each part was read from, for error messages
    anchors: list[Anchor] = dataclasses.field(default_factory=list)  # published figures to check against
    ui_lines: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # language → UI string → its line

    def price(self, gpu_id: str) -> Price | None:
        return self.prices.get(gpu_id)

    def languages(self) -> dict[str, Language]:
        """Each language of the site, in menu order, made once per build."""
        return {code: make_language(code, config.locale, config.typography, self.strings[code])
                for code, config in self.config.languages.items()}



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
        "anchors": data_dir / "anchors.yaml",
    }
    config_doc = _load(files["config"], problems)
    config = validate(SiteConfig, config_doc, files["config"], problems) if config_doc else None

    gpu_doc = _load(files["gpus"], problems)
    gpu_file = validate(GpuFile, gpu_doc, files["gpus"], problems) if gpu_doc else None
    gpus = _by_id(gpu_file.gpus, gpu_doc, "gpus", files["gpus"], problems, "GPU") if gpu_file and gpu_doc else {}

    price_doc = _load(files["prices"], problems)
    price_file = validate(PriceFile, price_doc, files["prices"], problems) if price_doc else None
    prices: dict[str, Price] = {}
    if price_file and price_doc:
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
                  if model_file and model_doc else {})
    diffusion_models = (_by_id(model_file.diffusion_models, model_doc, "diffusion_models", files["models"],
                               problems, "model") if model_file and model_doc else {})

    anchor_doc = _load(files["anchors"], problems)
    anchor_file = validate(AnchorFile, anchor_doc, files["anchors"], problems) if anchor_doc else None
    if anchor_file and anchor_doc and model_file:
        for index, anchor in enumerate(anchor_file.anchors):
            if anchor.model is not None and anchor.model not in llm_models:
                pos = anchor_doc.position(("anchors", index, "model"))
                problems.error(files["anchors"], pos.line, pos.column, f"unknown model `{anchor.model}`",
                               did_you_mean(anchor.model, llm_models) or "use an id from data/models.yaml")

    strings: dict[str, dict[str, UiString]] = {}
    ui_lines: dict[str, dict[str, int]] = {}
    if config:
        for language in config.languages:
            path = data_dir / "ui" / f"{language}.yaml"
            files[f"ui/{language}"] = path
            doc = _load(path, problems)
            ui = validate(UiStrings, doc, path, problems) if doc else None
            if ui and doc:
                strings[language] = dict(ui.strings)
                ui_lines[language] = {key: doc.position(("strings", key)).line for key in ui.strings}
                _check_ui_string_forms(ui, doc, path, problems)
        _check_ui_strings_complete(strings, files, problems)

    if len(problems.errors) > before or not (config and gpu_file and price_file and use_case_file and model_file
                                             and anchor_file):
        return None
    return Dataset(config=config, gpus=gpus, prices=prices, prices_as_of=price_file.as_of,
                   use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                   diffusion_models=diffusion_models, strings=strings, files=files,
                   anchors=list(anchor_file.anchors), ui_lines=ui_lines)


def _check_ui_string_forms(ui: UiStrings, doc: YamlDocument, path: Path, problems: Problems) -> None:
    """Each UI string is text with plain ``{name}`` placeholders; plural forms include ``other``."""
    for key, value in ui.strings.items():
        pos = doc.position(("strings", key))
        if isinstance(value, dict) and "other" not in value:
            problems.error(path, pos.line, pos.column, f"the UI string `{key}` has no `other` form",
                           "plural forms are chosen by CLDR category; `other` is the one every language has")
        for text in _ui_string_forms(value):
            if not text.strip():
                problems.error(path, pos.line, pos.column, f"the UI string `{key}` is empty", "write its text")
                continue
            try:
                placeholders(text)
            except ValueError as exc:
                problems.error(path, pos.line, pos.column, f"the UI string `{key}`: {exc}",
                               "write braces only around a placeholder name; `{{` and `}}` print a brace")


def _check_ui_strings_complete(strings: dict[str, dict[str, UiString]], files: dict[str, Path],
                               problems: Problems) -> None:
    """Every language defines every UI string, with the same placeholders: a missing one is an
    error, never a fallback, and a placeholder only one language uses would never be filled."""
    every_key = set().union(*strings.values()) if strings else set()
    for language, table in strings.items():
        for key in sorted(every_key - set(table)):
            others = [lang for lang in strings if key in strings[lang]]
            problems.error(files[f"ui/{language}"], 1, 1, f"missing UI string `{key}`",
                           f"translate it from data/ui/{others[0]}.yaml")
    languages = list(strings)
    for key in sorted(every_key):
        names = {}
        for language in languages:
            if key in strings[language]:
                try:
                    names[language] = sorted({name for text in _ui_string_forms(strings[language][key])
                                              for name in placeholders(text)})
                except ValueError:
                    continue  # reported by _check_ui_string_forms
        if len({tuple(found) for found in names.values()}) > 1:
            first, *rest = languages
            for language in rest:
                if language in names and first in names and names[language] != names[first]:
                    problems.error(files[f"ui/{language}"], 1, 1,
                                   f"the UI string `{key}` uses {{{'}, {'.join(names[language])}}} "
                                   f"but data/ui/{first}.yaml uses {{{'}, {'.join(names[first])}}}",
                                   "use the same placeholders in every language")
