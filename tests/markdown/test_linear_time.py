"""Every rule that scans a page is linear in its input (issue 23): a page built to make one rule
rescan what it already read costs about what an ordinary page of the same size costs, and twice
the input costs about twice the time.

Times are compared with each other, never with a number of seconds: each is the processor time
of this process (other processes on a loaded machine do not count), the fastest of three runs. A
rule that rescans fails by far: its input is sized for that.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sites import ROOT, processor_seconds

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.markdown.parser import render_body
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.typography import french

# Each case times pages of tens of thousands of characters: a second or so each.
pytestmark = pytest.mark.slow

#: Characters in the smaller input of each case: big enough that a quadratic rule shows, small enough
#: that a case takes about a second.
SIZE = 30_000
#: How much slower than an ordinary page of the same size a page may be for one rule.
SLOWER_THAN_ORDINARY = 5
#: How many times the input the second timing of each case reads, and how much longer it may take
#: (linear: 4; quadratic: 16): four times the input, not twice, so that a loaded machine's noise
#: (twice the input once took 2.66 times as long in CI, for a rule measured linear) stays far from
#: the bound.
GROWTH, GROWN = 4, 8


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    problems = Problems()
    loaded = load_dataset(ROOT / "data", problems)
    assert loaded is not None, [str(problem) for problem in problems.items]
    return loaded


def assert_linear(pathological: Callable[[int], str], ordinary: Callable[[int], str],
                  process: Callable[[str], Any], size: int) -> None:
    """``process`` takes about as long on ``pathological`` text as on ``ordinary`` text of the same
    length, and about four times as long on four times the pathological text."""
    bad, good, bad_grown = pathological(size), ordinary(size), pathological(GROWTH * size)
    assert len(good) == len(bad) and len(bad_grown) == GROWTH * len(bad)
    process(good)  # caches warm (the parser, the shortcodes' figures)
    good_seconds, bad_seconds, grown_seconds = processor_seconds(
        lambda: process(good), lambda: process(bad), lambda: process(bad_grown))
    assert bad_seconds <= SLOWER_THAN_ORDINARY * good_seconds, (
        f"{bad_seconds:.3f} s against {good_seconds:.3f} s for an ordinary page of {size} bytes")
    assert grown_seconds <= GROWN * bad_seconds, (
        f"{grown_seconds:.3f} s for {GROWTH * size} bytes against {bad_seconds:.3f} s for {size}")


def repeated(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters (the last copy cut)."""
    return (unit * (size // len(unit) + 1))[:size]


def ordinary_section(number: int, lang: str) -> str:
    """A section as real pages have them: a heading, inline markup, links, figures from shortcodes,
    a small table and a list."""
    if lang == "fr":
        return (f"## Section {number} : ce qui **compte**\n\n"
                f"Le H100 a {{{{ gpu_figure gpu=h100-sxm column=memory }}}} de mémoire ; voir [le guide]"
                f"(https://example.com/{number}) et `vllm serve` avec *soin*. Vraiment ? « Oui » !\n\n"
                "| GPU | Mémoire | Note |\n|---|--:|---|\n| H100 | 80 | rapide |\n| A100 | 40 | *ancien* |\n\n"
                "- un\n- deux `x`\n\n")
    return (f"## Section {number}: what **matters**\n\n"
            f"The H100 has {{{{ gpu_figure gpu=h100-sxm column=memory }}}} of memory; see [the guide]"
            f"(https://example.com/{number}) and `vllm serve` with *care*. Really? Yes!\n\n"
            "| GPU | Memory | Note |\n|---|--:|---|\n| H100 | 80 | fast |\n| A100 | 40 | *older* |\n\n"
            "- one\n- two `x`\n\n")


def ordinary_page(size: int, lang: str = "en") -> str:
    """Ordinary sections up to ``size`` characters, the last one cut."""
    sections: list[str] = []
    length = 0
    while length < size:
        sections.append(ordinary_section(len(sections), lang))
        length += len(sections[-1])
    return "".join(sections)[:size]


#: Pages built against one rule each: (name, language, the page of a given size, that size).
PATHOLOGICAL: list[tuple[str, str, Callable[[int], str], int]] = [
    # tables: each row's header cell was closed by copying the rest of the page.
    ("a long table", "en", lambda size: "| GPU | Memory |\n|---|---|\n" + repeated("| H100 | 80 |\n", size - 27), SIZE),
    ("tables of one row", "en", lambda size: repeated("| a | b |\n|---|---|\n| 1 | 2 |\n\n", size), SIZE),
    # shortcodes: each `{{` looked for its `}}` to the end of the paragraph; each failed one
    # counted the line breaks from the paragraph's start (cheap each: shown on a longer page).
    ("a run of braces", "en", lambda size: "{" * size, SIZE),
    # the shortcut for common markup (markup_inline): single braces between letters, and each form it takes.
    ("braces between letters", "en", lambda size: repeated("{a", size), 10 * SIZE),
    ("a paragraph of markup", "en", lambda size: repeated("**b** *i* `c` [t](https://e.com/) ", size), SIZE),
    ("shortcodes never closed", "en", lambda size: repeated("{{ gpu_figure ", size), SIZE),
    ("a paragraph of failing shortcodes", "en", lambda size: repeated("{{1}}\n", size), 4 * SIZE),
    # heading ids: the n-th copy of a heading tried n numbers.
    ("the same heading", "en", lambda size: repeated("## Same\n\n", size), SIZE),
    ("a heading a layout uses", "en", lambda size: repeated("## Suitable GPUs\n\n", size), SIZE),
    # French typography: runs of spaces, punctuation after a line break, guillemets.
    ("spaces before punctuation", "fr", lambda size: repeated("mot" + " " * 60 + ";" + "\u00a0" * 30 + "»", size),
     SIZE),
    ("punctuation after line breaks", "fr", lambda size: repeated("mot\n: « b »\n? c\n", size), SIZE),
    ("guillemets", "fr", lambda size: repeated("«\u00a0« «", size), SIZE),
    # An ordinary page: twice as long costs twice as much (issue 23: a page of 6 MB).
    ("ordinary sections", "en", ordinary_page, SIZE),
]


@pytest.mark.parametrize(("name", "lang", "pathological", "size"), PATHOLOGICAL, ids=[case[0] for case in PATHOLOGICAL])
def test_no_page_costs_more_than_its_size(dataset: Dataset, name: str, lang: str,
                                          pathological: Callable[[int], str], size: int) -> None:
    language = dataset.languages()[lang]

    def render(text: str) -> None:
        env: dict[str, Any] = {"shortcodes": ShortcodeContext(dataset, language), "typography": language.typography,
                               "scroll_hint": "Scroll", "page_title": "Title"}
        render_body(text, Path("page.md"), 1, Problems(), env)

    assert_linear(pathological, lambda length: ordinary_page(length, lang), render, size)


#: Text built against the French rules' patterns (each a regular expression that could backtrack).
FRENCH: list[tuple[str, Callable[[int], str]]] = [
    ("spaces before a colon", lambda size: repeated("a" + " \u00a0" * 40 + ":", size)),
    ("no-break spaces before a guillemet", lambda size: repeated("\u00a0" * 80 + "»", size)),
    ("no-break spaces then a space after a guillemet", lambda size: repeated("«" + "\u00a0" * 80 + " ", size)),
    ("a run of spaces", lambda size: " " * (size - 1) + "!"),
    ("punctuation only", lambda size: repeated("?;:!«»", size)),
]


@pytest.mark.parametrize(("name", "pathological"), FRENCH, ids=[case[0] for case in FRENCH])
def test_french_typography_is_linear(name: str, pathological: Callable[[int], str]) -> None:
    # French prose of the same length is the reference; longer texts than a page's: the rules are fast.
    prose = "Quoi ? Oui ; non : « peut-être » ! Le H100 a 80\u00a0Go de mémoire, dit-on. "
    # The rule itself, not its cache of the texts it has seen.
    assert_linear(pathological, lambda size: repeated(prose, size), french.__wrapped__, 20 * SIZE)
