"""``gpuguide.markdown.shortcodes``: ``{{ name key=value }}`` read, run against the tiny site's data in
each language (``evaluate``) and printed (``shortcodes_plugin``): inline figures marked with their
call, block shortcodes as labelled tables, and every mistake an error at its file and line.

Expected figures are worked out from tests/fixtures/tiny/data and the rules README.md states
(GB = 10⁹ bytes, 80 % of memory usable, 16 bytes per parameter to train, KV cache in BF16)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from sites import tiny_project

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext, ShortcodeError
from gpuguide.markdown.shortcodes import evaluate, shortcodes_plugin
from gpuguide.markdown.tables import tables_plugin
from gpuguide.structure.dataset import Dataset, load_dataset

BODY_LINE = 7  # the file line of the body's first line
NO_BREAK = "\u00a0\u202f"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Dataset]:
    """The tiny site's data (three GPUs: big, pcie, card; models small-llm, big-llm, image-model)."""
    root = tiny_project(tmp_path_factory.mktemp("shortcodes") / "tiny")
    problems = Problems(root=root)
    dataset = load_dataset(root / "data", problems)
    assert dataset is not None, [str(problem) for problem in problems.items]
    return root, dataset


def _ctx(project: tuple[Path, Dataset], lang: str) -> ShortcodeContext:
    dataset = project[1]
    return ShortcodeContext(dataset, dataset.languages()[lang])


def _spaces(text: str) -> str:
    """The text with no-break spaces read as spaces (which no-break space a locale uses is Babel's)."""
    return text.translate({ord(char): " " for char in NO_BREAK})


# Worked out by hand from the tiny data:
# - small-llm: 8,030,261,248 parameters, 32 layers, 8 KV heads of 128 → KV cache 2×8×128×2 B = 4,096 B per
#   token and layer; at 8,192 tokens: 4,096 × 32 × 8,192 = 1,073,741,824 B. BF16 weights 16,060,522,496 B:
#   total 17,134,264,320 B → 18 GB (rounded up). FP8: 8.03 + 1.07 → 10 GB; 4 bits: 4.02 + 1.07 → 6 GB;
#   1,024 tokens: 16.06 + 0.13 → 17 GB. Of 80 GB: 21.4 % → 22 %; of 24 GB: 71.4 % → 72 %.
# - Decoding ceiling: bandwidth ÷ weight bytes: 3,350 / 16.06 = 208.6 → ≤ 208; 1,008 / 16.06 = 62.8 → ≤ 62.
# - big-llm: 671 × 10⁹ parameters shipped in FP8, latent KV cache 576 × 2 B × 61 layers, at most 2,048
#   tokens: 143,917,056 B; FP8: 671 + 0.14 → 672 GB.
# - Ratio big / pcie in BF16: 989 / 312 = 3.17 → 3.2, "three".
# - Full training at 16 B per parameter: 7 × 10⁹ → 112 GB, rounded down to one figure: 100 GB;
#   10⁹ → 16 → 10 GB; 10⁸ → 1.6 → 1 GB.
INLINE = [
    ("usable_memory_share", "80%", "80 %"),
    ("engine_memory_share", "90%", "90 %"),
    ("preset key=team", "10 users × 32,768 tokens", "10 utilisateurs × 32 768 tokens"),
    ("full_training_bytes_per_param", "16", "16"),
    ("gpu_figure gpu=big column=memory", "80 GB", "80 Go"),
    ("gpu_figure gpu=card column=memory", "24 GB", "24 Go"),
    ("ratio a=big b=pcie column=bf16", "3.2", "3,2"),
    ("ratio a=big b=pcie column=bf16 style=words", "three", "trois"),
    ('memory_range gpus="card,big"', "24 to 80 GB", "24 à 80 Go"),
    ('memory_range gpus="big, pcie ,card"', "24 to 80 GB", "24 à 80 Go"),
    ("full_training_memory params=7000000000", "100 GB", "100 Go"),
    ("full_training_memory params=1000000000", "10 GB", "10 Go"),
    ("full_training_memory params=100000000", "1 GB", "1 Go"),
    # Weights (16.06 GB in BF16) and the KV cache, each rounded up to a tenth of a GB.
    ("model_memory model=small-llm precision=bf16", "17.2 GB", "17,2 Go"),
    ("model_memory model=small-llm precision=bf16 context=8192", "17.2 GB", "17,2 Go"),
    ('model_memory model=small-llm precision=bf16 context="1024"', "16.3 GB", "16,3 Go"),
    ("model_memory model=small-llm precision=bf16 context=32768 users=10", "59.1 GB", "59,1 Go"),
    ("model_memory model=small-llm precision=fp8", "10.2 GB", "10,2 Go"),
    ("model_memory model=small-llm precision=int4", "6.9 GB", "6,9 Go"),
    ("model_memory model=big-llm precision=native context=2048", "673.1 GB", "673,1 Go"),
    ("weights_memory model=small-llm precision=int4", "5.8 GB", "5,8 Go"),
    # Of the memory the runtime reports: 17.13 GB of 80 GiB, of 24 GiB.
    ("memory_share model=small-llm precision=bf16 gpu=big", "20%", "20 %"),
    ("memory_share model=small-llm precision=bf16 gpu=card", "67%", "67 %"),
    ("decode_upper_bound gpu=big model=small-llm precision=bf16", "≤ 208 tokens/s", "≤ 208 tokens/s"),
    ("decode_upper_bound gpu=card model=small-llm precision=bf16", "≤ 62 tokens/s", "≤ 62 tokens/s"),
    ("diffusion_memory model=image-model precision=bf16", "18 GB", "18 Go"),
    ("diffusion_memory model=image-model precision=fp8", "Not published", "Non publié"),
]


@pytest.mark.parametrize("call, english, french", INLINE, ids=[case[0] for case in INLINE])
def test_inline_shortcodes_print_the_figure_in_each_language(project, call: str, english: str, french: str) -> None:
    assert _spaces(evaluate(call, _ctx(project, "en"))) == english
    assert _spaces(evaluate(call, _ctx(project, "fr"))) == french


@pytest.mark.parametrize("call", ["usable_memory_share", "engine_memory_share", "gpu_figure gpu=big column=memory",
                                  "full_training_memory params=7000000000"])
def test_french_figures_never_break_between_number_and_unit(project, call: str) -> None:
    # 80 %, 8 192, 80 Go: a line must not break inside a figure.
    assert " " not in evaluate(call, _ctx(project, "fr"))


ERRORS = [
    ("usable_memory_shar", "unknown shortcode `usable_memory_shar`; did you mean `usable_memory_share`?"),
    ("frobnicate", "unknown shortcode `frobnicate`; known shortcodes: "),
    ("gpu_figure gpu=big colum=memory", "`gpu_figure` has no argument `colum`; did you mean `column`?"),
    ("usable_memory_share x=1", "`usable_memory_share` has no argument `x`; its arguments: none"),
    ("gpu_figure gpu=big", "`gpu_figure` needs the argument `column=…`"),
    ("gpu_figure gpu", "cannot read the arguments `gpu`; write `name=value`"),
    ('gpu_figure gpu="big column=memory', "cannot read the arguments"),
    ("1gpu", "a shortcode starts with its name"),
    ("", "a shortcode starts with its name"),
    ("full_training_memory params=seven", "`full_training_memory`: `params` must be a number, got `seven`"),
    ("full_training_memory params=7e9", "`params` must be a number, got `7e9`"),
    ("full_training_memory params=0", "`params` must be a positive whole number"),
    ("full_training_memory params=50000000", "needs less than 1 GB"),
    ("gpu_figure gpu=bgi column=memory", "unknown GPU `bgi`; did you mean `big`?"),
    ("gpu_figure gpu=big column=memroy", "unknown column `memroy`"),
    ("ratio a=big b=pcie column=fp8", "`pcie` has no `fp8` figure (not supported)"),
    ("ratio a=big b=pcie column=memory_type", "column `memory_type` is not a number"),
    ("ratio a=big b=pcie column=bf16 style=prose", "unknown style `prose`"),
    ('memory_range gpus="big"', "at least two GPU ids"),
    ("model_memory model=small-llm precision=fp4", "unknown precision `fp4`"),
    ("model_memory model=small-llm precision=bf16 context=200000", "at most 131,072 tokens"),
    ("model_memory model=small-llm precision=bf16 context=0", "`context` must be a positive number"),
    ("model_memory model=tiny-llm precision=bf16", "unknown model `tiny-llm`"),
    ("diffusion_memory model=image-model precision=int4", "unknown precision `int4`; use one of: bf16, fp8"),
]


@pytest.mark.parametrize("call, message", ERRORS, ids=[case[0] or "empty" for case in ERRORS])
def test_a_wrong_shortcode_says_what_would_work(project, call: str, message: str) -> None:
    with pytest.raises(ShortcodeError) as raised:
        evaluate(call, _ctx(project, "en"))
    assert message in str(raised.value)


def test_the_default_context_is_capped_at_the_model_maximum(project) -> None:
    # big-llm takes at most 2,048 tokens: without context=, it is sized at 2,048 (673.1 GB, see above).
    assert _spaces(evaluate("model_memory model=big-llm precision=native", _ctx(project, "en"))) == "673.1 GB"


# --- In Markdown ---------------------------------------------------------------------------------


def _render(project, text: str, lang: str = "en", **env: object) -> tuple[BeautifulSoup, list[str]]:
    root = project[0]
    # The tables plugin too: Markdown tables and block shortcodes share the page's table numbering.
    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(shortcodes_plugin).use(tables_plugin)
    problems = Problems(root=root)
    full_env: dict = {"source": root / "content" / lang / "page.md", "line": BODY_LINE, "problems": problems,
                      "shortcodes": _ctx(project, lang), "scroll_hint": "Scroll"}
    full_env.update(env)
    soup = BeautifulSoup(md.render(text, full_env), "html.parser")
    return soup, [str(problem) for problem in problems.items]


def test_an_inline_figure_is_marked_with_the_call_that_made_it(project) -> None:
    soup, problems = _render(project, 'Memory: {{   gpu_figure   gpu=big column=memory }} and '
                                      '{{ memory_range gpus="card,big" }}.')
    assert not problems
    first, second = soup.find_all("span", class_="figure")
    assert first["data-shortcode"] == "gpu_figure gpu=big column=memory"  # spacing normalised
    assert first.get_text() == "80 GB"
    assert second["data-shortcode"] == 'memory_range gpus="card,big"'  # quotes escaped, read back
    assert soup.find("p").get_text() == "Memory: 80 GB and 24 to 80 GB."


def test_figures_are_in_the_page_language(project) -> None:
    soup, _ = _render(project, "{{ ratio a=big b=pcie column=bf16 style=words }} fois", lang="fr")
    assert soup.find("span", class_="figure").get_text() == "trois"


@pytest.mark.parametrize("text", ["`{{ frobnicate }}`", "\\{{ frobnicate }}", "```\n{{ frobnicate }}\n```",
                                  "{{ frobnicate", "{ frobnicate }"])
def test_code_escapes_and_unclosed_braces_are_not_shortcodes(project, text: str) -> None:
    soup, problems = _render(project, text)
    assert soup.find("span", class_="figure") is None and not problems
    assert "frobnicate" in soup.get_text()


def test_a_wrong_shortcode_is_an_error_at_its_file_and_line_and_shown_as_written(project) -> None:
    soup, problems = _render(project, "Intro.\n\nThe {{ gpu_figure gpu=bgi column=<memory> }} figure.\n")
    assert problems == [
        (f"content/en/page.md:{BODY_LINE + 2}:5: error: shortcode {{{{ gpu_figure gpu=bgi column=<memory> }}}}: "
        "unknown GPU `bgi`; did you mean `big`? (see the list of shortcodes in README.md)")]
    # Never published as a figure: the call as written, escaped (no tag comes from it).
    assert soup.find("span") is None and soup.find("memory") is None
    assert soup.find_all("p")[1].get_text() == "The {{ gpu_figure gpu=bgi column=<memory> }} figure."


def test_errors_in_lists_headings_and_table_cells_are_at_their_lines(project) -> None:
    text = ("- one\n"                         # 0
            "- {{ nope_a }}\n"                # 1
            "\n"                              # 2
            "## Heading {{ nope_b }}\n"       # 3
            "\n"                              # 4
            "| a | b |\n"                     # 5
            "|---|---|\n"                     # 6
            "| 1 | 2 |\n"                     # 7
            "| 3 | {{ nope_c }} |\n")         # 8
    _, problems = _render(project, text)
    lines = {problem.split("shortcode {{ ")[1].split(" ")[0]: int(problem.split(":")[1]) for problem in problems}
    assert lines == {"nope_a": BODY_LINE + 1, "nope_b": BODY_LINE + 3, "nope_c": BODY_LINE + 8}


def test_an_error_on_a_later_line_of_a_paragraph_is_at_that_line(project) -> None:
    _, problems = _render(project, "First line of the paragraph,\nsecond line,\nthird {{ nope }}.\n")
    assert len(problems) == 1 and problems[0].startswith(f"content/en/page.md:{BODY_LINE + 2}:7:")  # at the {{


def test_without_data_a_shortcode_is_an_error_and_without_problems_it_raises(project) -> None:
    _, problems = _render(project, "{{ usable_memory_share }}", shortcodes=None)
    assert len(problems) == 1 and "shortcodes are not available here" in problems[0]
    md = MarkdownIt("commonmark").use(shortcodes_plugin)
    with pytest.raises(ShortcodeError, match="unknown shortcode"):
        md.render("{{ frobnicate }}", {"shortcodes": _ctx(project, "en")})


def test_a_block_shortcode_alone_in_its_paragraph_becomes_a_labelled_table(project) -> None:
    soup, problems = _render(project, 'Before.\n\n{{ llm_requirements_table models="small-llm,big-llm" '
                                      'precision=bf16 }}\n\nAfter.\n',
                             page_url=lambda layout, subject: f"../{layout}/{subject}/")
    assert not problems
    table = soup.find("table")
    assert table.parent.name == "div"  # no paragraph around the table
    assert [p.get_text() for p in soup.find_all("p") if "scroll-hint" not in (p.get("class") or [])] == [
        "Before.", "After."]
    region = table.parent
    assert region["role"] == "region" and region["aria-labelledby"] == table.caption["id"]
    assert soup.find(id=region["aria-describedby"]).get_text() == "Scroll"
    # Mostly figures (parameters, memory): a scrolling table of numbers, not cards of sentences.
    assert region["class"] == ["table-scroll"]
    headers = [th.get_text() for th in table.thead.find_all("th")]
    assert all(th["scope"] == "col" for th in table.thead.find_all("th")) and len(headers) == 4
    rows = table.tbody.find_all("tr")
    # small-llm, big-llm in BF16, and big-llm in its native FP8: the format its publisher ships.
    assert [row.th.get_text() for row in rows][:2] == ["Small LLM", "Big LLM"]
    assert len(rows) == 3 and "Big LLM" in rows[2].th.get_text() and "FP8" in rows[2].th.get_text()
    assert all(row.th["scope"] == "row" for row in rows)
    assert rows[0].th.a["href"] == "../model/small-llm/"  # the model's page, through env["page_url"]
    memory, rental = rows[0].find_all("td")[1:]
    # 17,134,264,320 bytes (see above) → 17.2 GB; one Card (24 GiB × 90 % − 3 GiB = 20 GB) at $0.50/h holds it.
    assert memory["data-bytes"] == "17134264320" and memory.get_text() == "17.2 GB" and memory["class"] == ["number"]
    assert (rental["data-gpu"], rental["data-count"], rental["data-model"], rental["data-weights"]) == (
        "card", "1", "small-llm", "bf16")
    assert [td["data-label"] for td in rows[0].find_all("td")] == headers[1:]
    # big-llm sized at its maximum context: 671 × 2 GB + 143,917,056 B → 1,342 + 0.2 GB, and too big for 8 GPUs.
    assert rows[1].find_all("td")[1]["data-bytes"] == str(671 * 10**9 * 2 + 143_917_056)
    assert "1,342.2 GB" in rows[1].find_all("td")[1].get_text()
    assert not rows[1].find_all("td")[2].has_attr("data-gpu")


def test_without_page_urls_a_block_table_names_models_without_links(project) -> None:
    soup, _ = _render(project, '{{ llm_requirements_table models="small-llm" precision=bf16 }}\n')
    assert soup.find("tbody").th.find("a") is None and soup.find("tbody").th.get_text() == "Small LLM"


def test_the_constants_table_links_its_sources_and_reads_as_sentences(project) -> None:
    soup, problems = _render(project, "{{ sizing_constants }}\n")
    assert not problems
    table = soup.find("table")
    assert table.parent["class"] == ["table-scroll", "prose"]  # one figure column of three: cards on a phone
    sources = [a for a in table.tbody.find_all("a")]
    assert sources and all(a["href"].startswith("https://") and a["rel"] == ["noopener"] for a in sources)
    values = [row.find_all("td")[0].get_text() for row in table.tbody.find_all("tr")]
    assert "80%" in values and "16 bytes per parameter" in values


def test_block_shortcodes_and_markdown_tables_share_the_page_table_ids(project) -> None:
    soup, _ = _render(project, "| a | b |\n|---|---|\n| 1 | 2 |\n\n{{ sizing_constants }}\n\n{{ published_anchors }}\n")
    ids = [table.caption["id"] for table in soup.find_all("table")]
    assert len(ids) == 3 and len(set(ids)) == 3


def test_a_block_shortcode_in_a_list_item_is_a_table_in_that_item(project) -> None:
    soup, problems = _render(project, "- {{ sizing_constants }}\n")
    assert not problems and soup.find("table").find_parent("li") is not None


@pytest.mark.parametrize("text, line", [("The constants: {{ sizing_constants }}\n", 0),
                                        ("## {{ sizing_constants }}\n", 0),
                                        ("| a | b |\n|---|---|\n| {{ sizing_constants }} | 1 |\n", 2),
                                        ("{{ sizing_constants }} {{ published_anchors }}\n", 0)])
def test_a_block_shortcode_not_alone_is_an_error_and_prints_no_table(project, text: str, line: int) -> None:
    soup, problems = _render(project, text)
    source_line = text.split("\n")[line]
    columns = {index + 1 for index in range(len(source_line)) if source_line.startswith("{{", index)}
    if source_line.startswith("|"):
        columns.add(1)  # a table cell's shortcode: at its row's line (cells keep no column)
    assert problems and all(any(f":{BODY_LINE + line}:{column}: error:" in problem for column in columns)
                            and "alone on its own line" in problem for problem in problems)
    assert all(table.caption is None or "constants" not in table.caption.get_text().lower()
               for table in soup.find_all("table"))
    assert "{{ sizing_constants }}" in soup.get_text()
