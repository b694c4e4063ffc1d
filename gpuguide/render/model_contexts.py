"""The contexts of the model pages (``render.contexts``): one page per language model or image and
video model, and the models index.
"""

from __future__ import annotations

from gpuguide.figures import diffusion_figures, model_index, model_intro, model_relatives, model_tables
from gpuguide.figures import plan_tables, planner_page, serving
from gpuguide.render.environment import Link
from gpuguide.render.page_input import Context, PageInput, page_links, preset_links
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.pages import ModelSubject


def model_context(given: PageInput) -> Context:
    subject = given.page.subject
    assert isinstance(subject, ModelSubject)
    dataset, language = given.dataset, given.language
    if isinstance(subject.model, LlmModel):
        llm = dataset.llm_models[subject.model.id]  # through the tracked view: the page depends on the record
        return {
            "kind": "llm", "model": llm,
            "summary": model_intro.intro(llm, dataset, language),
            "facts": model_tables.facts(llm, language),
            "relatives": [(relative, given.view.page_url("model", relative.model.id))
                          for relative in model_relatives.relatives(llm, dataset, language)],
            "kv_table": model_tables.kv_table(llm, language),
            "memory_table": model_tables.memory_table(llm, language),
            "cheapest_table": model_tables.cheapest_per_format(llm, dataset, language),
            "cheapest_commands": model_tables.cheapest_commands(llm, dataset, language),
            "presets": model_tables.preset_sections(llm, dataset, language),
            "planner": planner_page.model_planner(llm, dataset, language, page_links(given, "gpu", dataset.gpus),
                                                  given.programs),
            "planner_table": plan_tables.plans_table(
                llm, plan_tables.preset_workload(serving.preset("chat")), dataset, language,
                language.ui("planner_caption", model=llm.name)),
            "planner_presets": preset_links(llm, language),
            "measurements_table": model_tables.measurements_table(llm, dataset, language),
            "fine_tuning_table": model_tables.fine_tuning_table(llm, dataset, language),
            "models_index": Link(language.ui("nav_models"), given.view.url_of("models")),
            "prices_as_of": given.prices_as_of,
        }
    diffusion = dataset.diffusion_models[subject.model.id]
    needs = diffusion_figures.diffusion_needs(diffusion)
    return {
        "kind": "diffusion", "model": diffusion,
        "summary": diffusion_figures.diffusion_intro(diffusion, dataset, language),
        "facts": diffusion_figures.diffusion_facts(diffusion, language),
        "needs": needs,
        "estimated": any(need.estimated for need in needs),
        "estimate_note": diffusion_figures.diffusion_estimate_note(diffusion, language),
        "cheapest": diffusion_figures.diffusion_cheapest(diffusion, dataset, language),
        "gpus_table": diffusion_figures.diffusion_table(diffusion, dataset, language),
        "generation_table": diffusion_figures.generation_table(diffusion, dataset, language),
        "models_index": Link(language.ui("nav_models"), given.view.url_of("models")),
        "prices_as_of": given.prices_as_of,
    }


def models_context(given: PageInput) -> Context:
    dataset, language, view = given.dataset, given.language, given.view
    return {
        "llm_groups": [(group, [(row, view.page_url("model", row.model_id)) for row in group.rows])
                       for group in model_index.llm_index_groups(dataset, language)],
        "diffusions": [(model, view.page_url("model", model.id),
                        diffusion_figures.diffusion_memory_text(model, language),
                        any(need.estimated for need in diffusion_figures.diffusion_needs(model)))
                       for model in dataset.diffusion_models.values()],
        "prices_as_of": given.prices_as_of,
    }
