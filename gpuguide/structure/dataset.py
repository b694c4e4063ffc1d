"""The dataset: everything in ``data/`` after validation (``Dataset``), and ``load_dataset``, which
reads each file, validates it against its schema and checks the references between them."""

from __future__ import annotations

import datetime as dt
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence, TypeVar

from gpuguide.cached import cached_property
from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.anchors import Anchor, AnchorFile
from gpuguide.structure.gpu_specs import Gpu, GpuFile
from gpuguide.structure.language import Language, fill, make_language
from gpuguide.structure.measurements import Benchmark, Measurement, load_measurements
from gpuguide.structure.model_specs import DiffusionModel, LlmModel, ModelFile
from gpuguide.structure.prices import Price, PriceFile
from gpuguide.structure.project_files import read_text
from gpuguide.structure.schema import validate
from gpuguide.structure.site_config import SiteConfig, UseCaseFile
from gpuguide.structure.ui_strings import UiString, UiStrings, check_ui_string_forms, check_ui_strings_complete
from gpuguide.structure.yaml_documents import DocumentCache, YamlDocument, parse_yaml


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
    benchmarks: Mapping[str, Benchmark] = dataclasses.field(default_factory=dict)  # what the measurements ran
    measurements: Sequence[Measurement] = ()  # published results, in file order
    ui_lines: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)  # language → UI string → its line

    def price(self, gpu_id: str) -> Price | None:
        return self.prices.get(gpu_id)

    def bid_url(self, lang: str, gpu_id: str) -> str | None:
        """The marketplace's page to bid for ``gpu_id``, in ``lang``; None where none is set."""
        pattern = self.config.languages[lang].bid_url
        return fill(pattern, {"gpu": gpu_id}) if pattern else None

    def languages(self) -> dict[str, Language]:
        """Each language of the site, in menu order, made once per build."""
        return {code: make_language(code, config.locale, config.typography, self.strings[code])
                for code, config in self.config.languages.items()}


Record = TypeVar("Record", Gpu, LlmModel, DiffusionModel)


class UiLines(Mapping[str, int]):
    """Each UI string's line in its file (key "": the ``strings:`` line), found when first asked
    for, which only a problem to report does: a document from the cache (``DocumentCache``) has
    to parse its text again for positions."""

    def __init__(self, document: YamlDocument, keys: Sequence[str]):
        self._document, self._keys = document, keys

    @cached_property
    def lines(self) -> dict[str, int]:
        position = self._document.position
        lines = {key: position(("strings", key)).line for key in self._keys}
        lines[""] = position(("strings",)).line  # where a missing one goes
        return lines

    def __getitem__(self, key: str) -> int:
        return self.lines[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)


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


def load_dataset(data_dir: Path, problems: Problems, keep_partial: bool = False,
                 documents: DocumentCache | None = None) -> Dataset | None:
    """Load and validate ``data/``; report every problem; None when any was an error (with
    ``keep_partial``: unless only the prices, anchors or measurements failed, loaded empty).
    ``documents``: the files' YAML as last parsed, read and refreshed."""
    before = len(problems.errors)

    def _load(path: Path, problems: Problems) -> YamlDocument | None:
        text = read_text(path, problems)  # through the gate; a missing file is reported there
        if text is None:
            return None
        return documents.parse(text, path, problems) if documents is not None else parse_yaml(text, path, problems)

    files = {
        "config": data_dir / "site.yaml",
        "gpus": data_dir / "gpus.yaml",
        "prices": data_dir / "prices.yaml",
        "use_cases": data_dir / "use_cases.yaml",
        "models": data_dir / "models.yaml",
        "anchors": data_dir / "anchors.yaml",
        "measurements": data_dir / "measurements.yaml",
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
    if model_file is not None and model_doc is not None:
        # Every model gets a page at /<lang>/<models>/<id>/: the two lists share one set of ids.
        for position, diffusion in enumerate(model_file.diffusion_models):
            if diffusion.id in llm_models:
                pos = model_doc.position(("diffusion_models", position, "id"))
                problems.error(files["models"], pos.line, pos.column,
                               f"model id `{diffusion.id}` is also a language model's id",
                               "give each model its own id: both have a page at the same address")

    anchor_doc = _load(files["anchors"], problems)
    anchor_file = validate(AnchorFile, anchor_doc, files["anchors"], problems) if anchor_doc else None
    if anchor_file and anchor_doc and model_file:
        for index, anchor in enumerate(anchor_file.anchors):
            if anchor.model is not None and anchor.model not in llm_models:
                pos = anchor_doc.position(("anchors", index, "model"))
                problems.error(files["anchors"], pos.line, pos.column, f"unknown model `{anchor.model}`",
                               did_you_mean(anchor.model, llm_models) or "use an id from data/models.yaml")

    # Measurements are optional: a site without data/measurements.yaml shows estimates alone.
    measured: tuple[dict[str, Benchmark], list[Measurement]] | None = ({}, [])
    if files["measurements"].exists() or files["measurements"].is_symlink():  # a broken link is reported
        measurement_doc = _load(files["measurements"], problems)
        measured = (load_measurements(measurement_doc, files["measurements"], gpus,
                                      {**llm_models, **diffusion_models}, problems)
                    if measurement_doc and model_file else None)

    strings: dict[str, dict[str, UiString]] = {}
    ui_lines: dict[str, UiLines] = {}
    if config:
        for language in config.languages:
            path = data_dir / "ui" / f"{language}.yaml"
            files[f"ui/{language}"] = path
            if not path.exists() and not path.is_symlink():  # a new language: one problem, what to do
                known = [other for other in config.languages if (data_dir / "ui" / f"{other}.yaml").exists()]
                problems.error(path, 1, 1, f"no UI strings for the language `{language}`",
                               f"copy data/ui/{known[0]}.yaml to data/ui/{language}.yaml and translate each string"
                               if known else f"write data/ui/{language}.yaml with the site's UI strings")
                continue
            doc = _load(path, problems)
            ui = validate(UiStrings, doc, path, problems) if doc else None
            if ui and doc:
                strings[language] = dict(ui.strings)
                ui_lines[language] = UiLines(doc, list(ui.strings))
                check_ui_string_forms(ui, doc, path, problems)
        check_ui_strings_complete(strings, files, ui_lines, problems)

    errors = problems.errors[before:]
    if not errors and config and gpu_file and price_file and use_case_file and model_file and anchor_file and measured:
        return Dataset(config=config, gpus=gpus, prices=prices, prices_as_of=price_file.as_of,
                       use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                       diffusion_models=diffusion_models, strings=strings, files=files,
                       anchors=list(anchor_file.anchors), ui_lines=ui_lines,
                       benchmarks=measured[0], measurements=tuple(measured[1]))
    # With errors, a dataset is still made when only what no other record depends on failed (the
    # prices, the anchors, the measurements: left empty), so that the build goes on to report the
    # pages' own problems in the same run; it never publishes.
    leaves = {problems.relative(files[name]) for name in ("prices", "anchors", "measurements")}
    if keep_partial and config and gpu_file and use_case_file and model_file and len(strings) == len(config.languages) \
            and all(problem.path in leaves for problem in errors):
        return Dataset(config=config, gpus=gpus, prices=prices if price_file else {},
                       prices_as_of=price_file.as_of if price_file else dt.date.min,
                       use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                       diffusion_models=diffusion_models, strings=strings, files=files,
                       anchors=list(anchor_file.anchors) if anchor_file else [], ui_lines=ui_lines,
                       benchmarks=measured[0] if measured else {}, measurements=tuple(measured[1]) if measured else ())
    return None
