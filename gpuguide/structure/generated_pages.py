"""The pages a generator layout makes from one pattern page: one per GPU, per pair of GPUs, per
model, each with its subject and its title filled in (``generated_pages``)."""

from __future__ import annotations

from gpuguide.errors import Problems
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import fill, placeholders
from gpuguide.structure.model_specs import DiffusionModel, LlmModel
from gpuguide.structure.page_types import LAYOUTS
from gpuguide.structure.pages import GpuSubject, ModelSubject, Page, PairSubject, ReversedPairSubject, Subject
from gpuguide.structure.pairs import gpu_pairs


def generated_pages(pages: list[Page], dataset: Dataset, problems: Problems) -> list[Page]:
    """The pages a generator layout makes: one per GPU (``gpu``), per pair of GPUs (``comparison``),
    per model (``model``: language models, then image and video models). A pair has its page at
    ``<a>-vs-<b>``, the GPUs in dataset order, and a redirect to it at ``<b>-vs-<a>``
    (``ReversedPairSubject``), with the page's title: a reader may type either order.

    Their title is the pattern page's title with ``{model}`` (or ``{a}`` and ``{b}``) filled in with
    the GPUs' short names (titles must stay short: search engines cut them beyond 60 characters);
    their translation key is the pattern's key plus the GPU id(s), so translations still pair up.
    """
    generated: list[Page] = []
    for pattern in [page for page in pages if page.is_generator and not page.meta.draft]:
        meta = pattern.meta
        records: list[tuple[Subject, dict[str, str]]]
        generates = LAYOUTS[meta.layout].generates
        if generates == "gpu":
            records = [(GpuSubject(gpu), {"model": gpu.short_name}) for gpu in dataset.gpus.values()]
            allowed = "{model}"
        elif generates == "model":
            models: list[LlmModel | DiffusionModel] = [*dataset.llm_models.values(), *dataset.diffusion_models.values()]
            records = [(ModelSubject(model), {"model": model.name}) for model in models]
            allowed = "{model}"
        else:
            records = []
            for a, b in gpu_pairs(list(dataset.gpus)):
                pair = PairSubject(dataset.gpus[a], dataset.gpus[b])
                names = {"a": pair.first.short_name, "b": pair.second.short_name}
                records += [(pair, names), (ReversedPairSubject(pair), names)]
            allowed = "{a} and {b}"
        if not records:
            continue
        usable = True
        for key in ("title", "description"):
            try:
                unknown = [name for name in placeholders(getattr(meta, key)) if name not in records[0][1]]
            except ValueError as exc:
                pos = pattern.front_matter.position((key,))  # only for a problem: it may parse the YAML again
                problems.error(pattern.source, pos.line, pos.column, f"`{key}`: {exc}", f"a `{meta.layout}` page can use {allowed}")
                usable = False
                continue
            if unknown:
                pos = pattern.front_matter.position((key,))
                problems.error(pattern.source, pos.line, pos.column, f"`{key}` has an unknown placeholder `{{{unknown[0]}}}`",
                               f"a `{meta.layout}` page can use {allowed}")
                usable = False
        if not usable:
            continue
        for subject, names in records:
            suffix = "-vs-".join(subject.ids)
            new_meta = meta.model_copy(update={
                "slug": f"{meta.slug}/{suffix}",
                "title": fill(meta.title, names),
                "description": fill(meta.description, names),
                "translation_key": f"{meta.translation_key}/{suffix}",
            })
            page = Page.from_text(pattern.source_name, pattern.lang, new_meta, pattern.front_matter, pattern.body,
                                  pattern.body_offset, pattern.body_line, subject)
            page.folder = pattern.folder
            generated.append(page)
    return generated
