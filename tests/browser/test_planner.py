"""The serving planner, in Chromium: for random workloads on every model page and GPU page, in both
languages, every figure the script prints is the one the build's Python prints for the same workload
(``plan_tables.plans_table``, ``planner_answer``, ``models_for_workload_table``): one set of rules, two
evaluators, the same text to the character. Then what a reader relies on: the address keeps the
workload (Back, shared links), the answer is announced, the page reads without JavaScript."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from gpuguide.errors import Problems
from gpuguide.figures import planner, serving
from gpuguide.figures.plan_tables import (model_plans, models_for_workload_table, per_million_text,
                                          planner_answer, plans_table)
from gpuguide.figures.records import model_shape
from gpuguide.figures.serving import Workload
from gpuguide.structure.dataset import Dataset, load_dataset

SAMPLES = 240  # random workloads, spread over every model page and GPU page of both languages
MODEL_PAGE = {"en": "/en/models/{}/", "fr": "/fr/modeles/{}/"}
GPU_PAGE = {"en": "/en/gpus/{}/", "fr": "/fr/gpu/{}/"}
INFERENCE_PAGE = {"en": "/en/llm-inference/", "fr": "/fr/inference-llm/"}  # a planner with a choice of model

# What the page shows: each row's cells (a cell with a detail line as [main, detail]), the answer
# sentence and the launch command (None when hidden).
READ_PAGE = """() => {
  const section = document.querySelector("[data-planner]");
  const cells = (tr) => [...tr.querySelectorAll("th, td")].map((cell) => {
    const main = cell.querySelector(".cell-main");
    return main ? [main.textContent, cell.querySelector(".cell-detail").textContent] : cell.textContent;
  });
  const launch = section.querySelector("[data-planner-launch]");
  return {
    rows: [...section.querySelectorAll("tbody tr")].map(cells),
    answer: section.querySelector("[data-planner-answer]").textContent,
    command: launch && !launch.hidden ? section.querySelector("[data-planner-command]").textContent : null,
  };
}"""

# Set the form as a reader would (each field, then a settled change). A change of model first
# (its program loads from its page, and its weight formats replace the others), then the rest.
SET_FORM = """async (values) => {
  const section = document.querySelector("[data-planner]"), form = section.querySelector("form");
  const settled = (model) => new Promise((resolve) => {
    const check = () => {
      const state = JSON.parse(section.getAttribute("data-state") || "{}");
      if (!section.hasAttribute("aria-busy") && (model === undefined || state.m === model)) resolve();
      else setTimeout(check, 5);
    };
    check();
  });
  if (values.m !== undefined && form.elements.m.value !== values.m) {
    form.elements.m.value = values.m;
    form.elements.m.dispatchEvent(new Event("change", {bubbles: true}));
    await settled(values.m);
  }
  for (const [name, value] of Object.entries(values)) {
    if (name === "m" || !form.elements[name]) continue;
    form.elements[name].value = String(value);
    form.elements[name].dispatchEvent(new Event("input", {bubbles: true}));
  }
  form.elements.ctx.dispatchEvent(new Event("change", {bubbles: true}));
  await settled(values.m);
}"""


@pytest.fixture(scope="module")
def real_dataset(built_site: Path) -> Dataset:
    root = built_site.parent
    problems = Problems(root)
    loaded = load_dataset(root / "data", problems)
    assert loaded is not None, [str(p) for p in problems.items]
    return loaded


def expected_cells(table: Any) -> list[list[Any]]:
    return [[cell.text if cell.detail is None else [cell.text, cell.detail] for cell in row] for row in table.rows]


def random_workloads(dataset: Dataset) -> list[dict[str, Any]]:
    """SAMPLES workloads: contexts and users spread on a log scale (a few past the model's maximum),
    every weight and KV-cache format, a per-user speed asked for half the time."""
    rng = random.Random(20261201)
    llms = list(dataset.llm_models)
    pages = [("model", llm, lang) for llm in llms for lang in ("en", "fr")]
    pages += [("gpu", gpu, lang) for gpu in dataset.gpus for lang in ("en", "fr")]
    pages += [("choose", rng.choice(llms), lang) for _ in range(12) for lang in ("en", "fr")]
    samples = []
    for index in range(SAMPLES):
        kind, subject, lang = pages[index % len(pages)]
        max_context = (dataset.llm_models[subject].max_context_tokens if kind != "gpu"
                       else max(m.max_context_tokens for m in dataset.llm_models.values()))
        sample = {"kind": kind, "subject": subject, "lang": lang,
                  "ctx": max(1, min(int(math.exp(rng.uniform(0, math.log(max_context * 1.2)))), max_context)),
                  "users": int(math.exp(rng.uniform(0, math.log(1024)))), "kv": rng.choice(planner.KV_FORMATS)}
        if kind == "choose":
            sample["m"] = subject
        if kind != "gpu":
            shape = model_shape(dataset.llm_models[subject])
            sample["w"] = serving.format_of(shape, rng.choice(planner.formats_for(shape)))
            sample["tps"] = rng.choice([0, rng.randint(1, 120)])
        samples.append(sample)
    return samples


def python_answer(dataset: Dataset, sample: dict[str, Any]) -> dict[str, Any]:
    """What the build's Python prints for the sample's workload."""
    language = dataset.languages()[sample["lang"]]
    if sample["kind"] == "gpu":
        workload = Workload(sample["ctx"], sample["users"], "native", sample["kv"])
        table = models_for_workload_table(dataset.gpus[sample["subject"]], workload, dataset, language)
        return {"rows": expected_cells(table)}
    llm = dataset.llm_models[sample["subject"]]
    shape = model_shape(llm)
    weights = next(f for f in planner.formats_for(shape) if serving.format_of(shape, f) == sample["w"])
    workload = Workload(sample["ctx"], sample["users"], weights, sample["kv"])
    target = sample["tps"] or None
    table = plans_table(llm, workload, dataset, language, "", target)
    sentence, command = planner_answer(llm, workload, dataset, language, target)
    return {"rows": expected_cells(table), "answer": sentence, "command": command}


def test_every_figure_the_planner_prints_is_the_builds(page: Page, site_url: str, real_dataset: Dataset):
    samples = random_workloads(real_dataset)
    assert len(samples) >= 200
    current, mismatches = None, []
    for sample in samples:
        pages = {"model": MODEL_PAGE, "gpu": GPU_PAGE, "choose": INFERENCE_PAGE}[sample["kind"]]
        path = pages[sample["lang"]].format(sample["subject"])
        if path != current:
            page.goto(site_url + path)
            current = path
        page.evaluate(SET_FORM, {key: sample[key] for key in ("m", "ctx", "users", "w", "kv", "tps") if key in sample})
        shown = page.evaluate(READ_PAGE)
        expected = python_answer(real_dataset, sample)
        for key, value in expected.items():
            if shown[key] != value:
                mismatches.append((path, sample, key, shown[key], value))
    assert not mismatches, "\n".join(map(repr, mismatches[:5]))


#: The issue's two workloads: Qwen3-32B, 16k context, 20 users, at least 20 tokens/s each; Llama
#: 3.3 70B in FP8, 32k context, 10 users.
ISSUE_WORKLOADS = (("qwen3-32b", {"ctx": 16384, "users": 20, "w": "bf16", "kv": "bf16", "tps": 20}),
                   ("llama-3-3-70b", {"ctx": 32768, "users": 10, "w": "fp8", "kv": "bf16", "tps": 0}))


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("subject", "values"), ISSUE_WORKLOADS, ids=[s for s, _ in ISSUE_WORKLOADS])
def test_the_issues_workloads_from_a_shared_address(page: Page, site_url: str, real_dataset: Dataset, lang: str,
                                                    subject: str, values: dict[str, Any]):
    """The answer arrives from the address alone, on the model's page and on the inference page,
    and is the build's: the configuration, its price per million tokens, its vLLM settings."""
    sample = {"kind": "model", "subject": subject, "lang": lang, **values}
    expected = python_answer(real_dataset, sample)
    assert expected["command"] is not None and "--tensor-parallel-size" in expected["command"]
    query = "&".join(f"{key}={value}" for key, value in values.items() if value)
    for path in (MODEL_PAGE[lang].format(subject) + "?" + query, INFERENCE_PAGE[lang] + f"?m={subject}&" + query):
        page.goto(site_url + path)
        expect(page.locator("[data-planner-answer]")).to_have_text(expected["answer"])
        expect(page.locator("[data-planner-command]")).to_have_text(expected["command"])
        assert page.evaluate(READ_PAGE)["rows"] == expected["rows"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_without_javascript_the_issues_fp8_workload_is_in_the_cheapest_table(browser: Browser, site_url: str,
                                                                            real_dataset: Dataset, lang: str):
    """Llama 3.3 70B in FP8 for the team workload (10 users × 32,768 tokens) is one of the presets:
    without the script, the cheapest-configuration table names the planner's configuration and its
    price per million tokens, and the launch settings under it are the planner's."""
    subject, values = ISSUE_WORKLOADS[1]
    team = serving.preset("team")
    assert (values["ctx"], values["users"]) == (team.context_tokens, team.users)
    expected = python_answer(real_dataset, {"kind": "model", "subject": subject, "lang": lang, **values})
    plan = planner.cheapest(list(model_plans(real_dataset.llm_models[subject],
                                             Workload(team.context_tokens, team.users, "fp8"), real_dataset)))
    assert plan is not None
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + MODEL_PAGE[lang].format(subject))
    cell = page.locator('#cheapest-table-caption').locator("xpath=..").locator(
        f'td[data-weights="fp8"][data-users="{team.users}"]')
    expect(cell).to_have_count(1)
    expect(cell).to_have_attribute("data-gpu", plan.gpu_id)
    expect(cell).to_have_attribute("data-count", str(plan.gpu_count))
    language = real_dataset.languages()[lang]
    expect(cell).to_contain_text(per_million_text(plan.usd_per_million_tokens, language))
    assert per_million_text(plan.usd_per_million_tokens, language) in expected["answer"]  # the planner's, too
    expect(page.locator("details.launch-commands code").filter(has_text=expected["command"])).to_have_count(1)
    context.close()


def test_the_address_keeps_the_workload_and_back_returns_to_the_previous_answer(page: Page, site_url: str):
    page.goto(site_url + MODEL_PAGE["en"].format("llama-3-1-8b"))
    answer = page.locator("[data-planner-answer]")
    first = answer.text_content()
    users = page.get_by_label("Users at once")
    users.fill("200")
    users.press("Tab")  # a settled change: a step of the history
    expect(page).to_have_url(re.compile(r"[?&]users=200\b"))
    second = answer.text_content()
    assert second != first
    page.go_back()
    expect(answer).to_have_text(first or "")
    expect(users).to_have_value("1")
    page.go_forward()
    expect(answer).to_have_text(second or "")
    expect(users).to_have_value("200")


def test_every_field_has_a_label_and_the_answer_is_announced(page: Page, site_url: str):
    for path in (MODEL_PAGE["fr"].format("llama-3-1-70b"), GPU_PAGE["en"].format("h100-sxm")):
        page.goto(site_url + path)
        section = page.locator("[data-planner]")
        expect(section).to_be_visible()
        for field in section.locator("input, select").all():
            label = page.locator(f'label[for="{field.get_attribute("id")}"]')
            expect(label).to_have_count(1)
            assert (label.text_content() or "").strip()
        expect(section.locator("[data-planner-answer]")).to_have_attribute("aria-live", "polite")


def test_out_of_range_addresses_are_brought_within_range(page: Page, site_url: str, real_dataset: Dataset):
    llm = real_dataset.llm_models["llama-3-1-8b"]
    page.goto(site_url + MODEL_PAGE["en"].format(llm.id) + "?ctx=99999999&users=-3&w=nonsense&kv=x&tps=abc")
    expect(page.get_by_label("Context, tokens")).to_have_value(str(llm.max_context_tokens))
    expect(page.get_by_label("Users at once")).to_have_value("1")
    expect(page.locator("[data-planner-answer]")).not_to_be_empty()


def test_without_javascript_the_three_workloads_stand_in(browser: Browser, site_url: str):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + MODEL_PAGE["fr"].format("llama-3-1-70b"))
    expect(page.locator("[data-planner]")).to_be_hidden()
    expect(page.locator("[data-planner-fallback]")).to_have_count(len(serving.PRESETS))
    for section in page.locator("[data-planner-fallback]").all():
        expect(section).to_be_visible()
        expect(section.locator("tbody tr").first).to_be_visible()
    context.close()


AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PLANNER_PAGES = [MODEL_PAGE["en"].format("qwen3-32b"), MODEL_PAGE["fr"].format("qwen3-32b"),
                 GPU_PAGE["en"].format("h100-sxm"), GPU_PAGE["fr"].format("h100-sxm"),
                 INFERENCE_PAGE["en"] + "?m=gpt-oss-120b", INFERENCE_PAGE["fr"] + "?m=gpt-oss-120b"]


@pytest.fixture(scope="module")
def axe_context(browser: Browser):
    context = browser.new_context(bypass_csp=True)  # axe-core is injected as an inline script
    yield context
    context.close()


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("path", PLANNER_PAGES)
def test_axe_finds_nothing_in_the_planner_answered(axe_context, site_url: str, path: str, width: int):
    """At phone and desktop widths, in both languages, with an answer on screen: the issue's workload."""
    page = axe_context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site_url + path)
    page.evaluate(SET_FORM, {"ctx": 16384, "users": 20, "tps": 20})
    expect(page.locator("[data-planner] tbody tr").first).to_be_visible()
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("() => axe.run(document.querySelector('[data-planner]'), {resultTypes: ['violations']})")
    page.close()
    assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]] == []


def test_the_keyboard_reaches_every_field_in_order_and_changes_the_answer(page: Page, site_url: str):
    page.goto(site_url + INFERENCE_PAGE["en"])
    fields = page.locator("[data-planner] form").locator("input, select")
    names = [field.get_attribute("name") for field in fields.all()]
    assert names == ["m", "ctx", "users", "w", "kv", "tps"]
    fields.first.focus()
    reached = [page.evaluate("() => document.activeElement.name")]
    for _ in names[1:]:
        page.keyboard.press("Tab")
        reached.append(page.evaluate("() => document.activeElement.name"))
    assert reached == names
    answer = page.locator("[data-planner-answer]")
    before = answer.text_content()
    page.get_by_label("Users at once").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("300")
    page.keyboard.press("Tab")
    expect(answer).not_to_have_text(before or "")
