"""The use-case menu's fragments: put into a page where its template marks them, and put in again in
the page's file when the menu changes, with nothing else of the page touched."""

from __future__ import annotations

import posixpath

import pytest

from gpuguide.render import shell
from gpuguide.render.environment import Link

MENU = [Link("GPUs for training", "/en/llm-training/"), Link("Inference & <serving>", "/en/llm-inference/")]


def relative(page_url: str):  # type: ignore[no-untyped-def]
    return lambda target: posixpath.relpath(target, page_url) + "/"


def page(header: str, footer: str) -> str:
    return f"<header><ul>\n{header}\n</ul></header><main>Body</main><footer><ul>\n{footer}\n</ul></footer>"


def test_the_fragments_link_relative_to_the_page_escape_the_labels_and_mark_the_current_page() -> None:
    header, footer = shell.fragments(MENU, "/en/llm-inference/", relative("/en/llm-inference/"))
    assert header.splitlines() == [
        '            <li><a href="../llm-training/">GPUs for training</a></li>',
        '            <li><a href="./" aria-current="page">Inference &amp; &lt;serving&gt;</a></li>']
    assert footer.splitlines() == ['      <li><a href="../llm-training/">GPUs for training</a></li>',
                                   '      <li><a href="./">Inference &amp; &lt;serving&gt;</a></li>']


def test_fill_then_splice_gives_what_filling_with_the_new_menu_gives() -> None:
    template = page(*shell.MARKS)
    old_parts = shell.fragments(MENU, "/en/", relative("/en/"))
    new_parts = shell.fragments([Link("Training, from scratch", "/en/llm-training/"), *MENU[1:]], "/en/",
                                relative("/en/"))
    old, spans = shell.fill(template, old_parts)
    assert old == page(*old_parts) and spans is not None
    assert [old[start:end] for start, end in spans] == list(old_parts)
    spliced, moved = shell.splice(old, spans, new_parts)
    assert (spliced, moved) == shell.fill(template, new_parts)
    assert shell.splice(spliced, moved, old_parts) == (old, spans)  # and back


def test_a_template_without_the_menu_is_left_as_it_is_and_one_with_a_mark_out_of_place_has_no_places() -> None:
    parts = shell.fragments(MENU, "/en/", relative("/en/"))
    assert shell.fill("<p>redirect</p>", parts) == ("<p>redirect</p>", ())
    # An edited template: the marks are all replaced, but the page cannot be given a new menu in place.
    twice = shell.fill(page(shell.MARKS[0], shell.MARKS[0]) + str(shell.MARKS[1]), parts)
    assert twice == (page(parts[0], parts[0]) + parts[1], None)
    assert shell.fill(page(shell.MARKS[0], ""), parts) == (page(parts[0], ""), None)


def test_text_that_looks_like_a_mark_is_only_text() -> None:
    # An editor cannot write the marks: they are drawn at random when the generator starts.
    lookalike = "\0menu-header-0000000000000000\0"
    html, spans = shell.fill(page(*shell.MARKS) + lookalike, ("H", "F"))
    assert spans is not None
    assert html.endswith(lookalike) and [html[a:b] for a, b in spans] == ["H", "F"]


def test_the_record_of_a_menu_reads_back_and_anything_else_is_refused() -> None:
    assert shell.read_record(shell.record("abc", ((10, 20), (30, 45)))) == ("abc", ((10, 20), (30, 45)))
    assert shell.read_record(shell.record("abc", ())) == ("abc", ())
    assert shell.same_menu(shell.record("abc", ((10, 20), (30, 45))), "abc") and shell.same_menu("abc", "abc")
    assert not shell.same_menu(shell.record("abcd", ()), "abc") and not shell.same_menu("xyz 1 2 3 4", "abc")
    for damaged in ("abc 10", "abc 10 20 30", "abc 10 -20 30 40", "abc x y z w"):
        assert shell.read_record(damaged) is None
    # Another menu, another digest; the same menu, the same digest.
    assert shell.menu_digest(MENU) == shell.menu_digest(list(MENU)) != shell.menu_digest(MENU[:1])
