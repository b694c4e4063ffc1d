"""Reading editors' files: the front matter split from the body at the right offset and line, YAML
values that remember their line and column, file states, and a walk that refuses symbolic links
leading outside the project."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpuguide.errors import Problems
from gpuguide.structure.project_files import file_state, read_text, walk_files
from gpuguide.structure.yaml_documents import (FRONT_MATTER_OFFSET, Position, YamlDocument, parse_yaml,
                                               split_front_matter)

PAGE = Path("content/fr/page.md")


def _problems() -> Problems:
    return Problems(Path.cwd())


# --- the front matter -----------------------------------------------------------------------------


def test_front_matter_and_body_are_split_at_the_closing_line():
    text = "---\ntitle: T\nslug: x\n---\nFirst line of the body.\n\n## Heading\n"
    problems = _problems()
    parts = split_front_matter(text, PAGE, problems)
    assert parts is not None and problems.items == []
    assert parts.front_matter.value == {"title": "T", "slug": "x"}
    # The body starts on line 5, right after the closing `---`.
    assert text[parts.body_offset:] == "First line of the body.\n\n## Heading\n"
    assert parts.body_line == 5


def test_crlf_files_split_the_same_and_a_later_rule_stays_in_the_body():
    text = "---\r\ntitle: T\r\n---  \r\nIntro.\r\n\r\n---\r\n\r\nAfter a rule.\r\n"
    parts = split_front_matter(text, PAGE, _problems())
    assert parts is not None
    assert parts.front_matter.value == {"title": "T"}
    assert text[parts.body_offset:] == "Intro.\r\n\r\n---\r\n\r\nAfter a rule.\r\n"
    assert parts.body_line == 4


def test_front_matter_positions_are_lines_of_the_file_not_of_the_yaml():
    text = "---\ntitle: T\ntable:\n  gpus: [big, pcie]\n---\nBody\n"
    parts = split_front_matter(text, PAGE, _problems())
    assert parts is not None
    assert FRONT_MATTER_OFFSET == 1  # the opening `---`
    where = parts.front_matter.position
    assert where(("title",)) == Position(2, 8)
    assert where(("table", "gpus")) == Position(4, 9)
    assert where(("table", "gpus", 1)) == Position(4, 15)  # `pcie`, the second item


@pytest.mark.parametrize(("text", "message", "hint_part"), [
    ("Just text.\n", "the page has no front matter", "start the file with a line `---`"),
    ("---\ntitle: T\n", "the front matter is not closed", "add a line `---` after the page's fields"),
    ("---\n\n---\nBody\n", "the front matter is empty", "add the page's fields"),
])
def test_a_page_without_usable_front_matter_says_how_to_write_it(text: str, message: str, hint_part: str):
    problems = _problems()
    assert split_front_matter(text, PAGE, problems) is None
    [problem] = problems.items
    assert (problem.path, problem.line, problem.message) == ("content/fr/page.md", 1, message)
    assert problem.hint is not None and hint_part in problem.hint


def test_front_matter_that_is_a_list_is_refused_on_its_first_line():
    problems = _problems()
    assert split_front_matter("---\n- title\n- slug\n---\nBody\n", PAGE, problems) is None
    assert [str(p) for p in problems.items] == [
        "content/fr/page.md:2:1: error: the front matter must be a list of `key: value` fields"]


# --- YAML and its positions ------------------------------------------------------------------------


def test_every_value_knows_its_line_and_column():
    text = "gpus:\n  - id: a\n    memory_gb: 80\n  - id: b\n    memory_gb: 24\n"
    document = parse_yaml(text, Path("data/gpus.yaml"), _problems())
    assert document is not None
    assert document.value == {"gpus": [{"id": "a", "memory_gb": 80}, {"id": "b", "memory_gb": 24}]}
    assert document.position(("gpus", 1, "memory_gb")) == Position(5, 16)
    assert document.position(("gpus", 1)) == Position(4, 5)
    # A path with no value of its own points at its nearest ancestor, and the root at the start.
    assert document.position(("gpus", 1, "missing_field")) == Position(4, 5)
    assert document.position(("nothing",)) == Position(1, 1)


def test_positions_are_found_again_from_the_text_alone():
    """A document rebuilt from the content cache has no positions: asked for one, it parses its text
    again, and finds the same line (with the front-matter offset counted once)."""
    text = "title: T\nslug: x\n"
    parsed = parse_yaml(text, PAGE, _problems(), line_offset=1)
    cached = YamlDocument({"title": "T", "slug": "x"}, None, 1, text)
    assert parsed is not None
    assert cached.position(("slug",)) == parsed.position(("slug",)) == Position(3, 7)
    assert YamlDocument({}, None, 1, None).position(("slug",)) == Position(2, 1)


def test_a_duplicated_key_names_the_line_of_the_first():
    problems = _problems()
    assert parse_yaml("model: Card\narch: X\nmodel: Carte\n", Path("data/gpus.yaml"), problems) is None
    assert [str(p) for p in problems.items] == [
        "data/gpus.yaml:3:1: error: duplicated key `model` (it is already set on line 1; keep one)"]


def test_a_key_yaml_reads_as_true_or_false_is_refused_with_the_fix():
    problems = _problems()
    assert parse_yaml("title: T\nno: 2\n", PAGE, problems, line_offset=1) is None
    [problem] = problems.items
    assert (problem.line, problem.column, problem.message) == (3, 1, "the key `no` is not a plain word")
    assert problem.hint is not None and "put the key in quotes" in problem.hint


@pytest.mark.parametrize(("text", "line", "column", "message", "hint_part"), [
    # The quote that never closes is reported where it opens, not at the end of the file.
    ('title: "GPU\nslug: x\n', 2, 8, "invalid YAML: a quote opens here and is never closed", "close the quote"),
    ("title: GPU\n  slug: x\n", 3, 7, "invalid YAML: mapping values are not allowed in this context", 'in quotes'),
    ("table:\n\t- big\n", 3, 1, "invalid YAML:", "indent with spaces, not tabs"),
    ("as_of: 2026-02-30\n", 2, 8, "cannot read the value `2026-02-30`: day is out of range for month",
     "write a date as YYYY-MM-DD"),
    ("a: &x 1\nb: *x\n", 2, 4, "YAML anchors and aliases (`&name`, `*name`) are not allowed", "write the value out"),
    ("title: A\x07B\n", 2, 9, "invalid YAML: the character U+0007 is not allowed", "control character"),
])
def test_yaml_mistakes_name_their_line_column_and_fix(text: str, line: int, column: int, message: str,
                                                     hint_part: str):
    problems = _problems()
    assert parse_yaml(text, PAGE, problems, line_offset=1) is None
    [problem] = problems.items
    assert (problem.line, problem.column) == (line, column), str(problem)
    assert problem.message.startswith(message) and hint_part in (problem.hint or ""), str(problem)


def test_nesting_deeper_than_the_limit_is_refused_before_building():
    problems = _problems()
    assert parse_yaml("x: " + "[" * 40 + "]" * 40 + "\n", PAGE, problems) is None
    [problem] = problems.items
    assert problem.message == "the YAML nests more than 32 levels deep" and problem.line == 1


def test_an_empty_document_is_none_not_an_error():
    problems = _problems()
    document = parse_yaml("# only a comment\n", PAGE, problems)
    assert document is not None and document.value is None and problems.items == []


# --- files -------------------------------------------------------------------------------------------


def test_read_text_strips_a_byte_order_mark(tmp_path: Path):
    path = tmp_path / "page.md"
    path.write_bytes(b"\xef\xbb\xbf---\ntitle: T\n---\n")
    assert read_text(path, Problems(tmp_path)) == "---\ntitle: T\n---\n"


@pytest.mark.parametrize("content", [b"", b" \n\t\n"])
def test_an_empty_file_is_reported(tmp_path: Path, content: bytes):
    path = tmp_path / "page.md"
    path.write_bytes(content)
    problems = Problems(tmp_path)
    assert read_text(path, problems) is None
    assert [str(p) for p in problems.items] == ["page.md:1:1: error: the file is empty (add content or delete the file)"]


def test_a_file_with_only_a_byte_order_mark_is_empty(tmp_path: Path):
    path = tmp_path / "page.md"
    path.write_bytes(b"\xef\xbb\xbf\n")
    problems = Problems(tmp_path)
    assert read_text(path, problems) is None
    assert [p.message for p in problems.items] == ["the file is empty"]


def test_invalid_utf8_names_the_line_and_the_byte(tmp_path: Path):
    path = tmp_path / "page.md"
    path.write_bytes(b"---\ntitle: ab\xffc\n")
    problems = Problems(tmp_path)
    assert read_text(path, problems) is None
    assert [str(p) for p in problems.items] == [
        "page.md:2:10: error: the file is not valid UTF-8 (byte 0xff) (save it as UTF-8 in your editor)"]


def test_invalid_utf8_column_counts_characters(tmp_path: Path):
    path = tmp_path / "page.md"
    path.write_bytes("title: é".encode() + b"\xff\n")  # `é` is one character, two bytes
    problems = Problems(tmp_path)
    read_text(path, problems)
    assert problems.items[0].column == 9


def test_file_state_changes_with_an_edit_and_is_none_for_a_missing_file(tmp_path: Path):
    path = tmp_path / "page.md"
    path.write_text("aaaa", encoding="utf-8")
    before = file_state(path)
    stat = os.stat(path)
    path.write_text("bbbb", encoding="utf-8")  # same size...
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # ...and the old mtime restored by a tool
    assert before is not None and file_state(path) != before  # ctime still tells
    assert file_state(tmp_path / "missing.md") is None


# --- walking folders -------------------------------------------------------------------------------------


def _tree(root: Path) -> Path:
    content = root / "content" / "fr"
    (content / "guides").mkdir(parents=True)
    for name in ("b.md", "a.md", "guides/z.md", "guides.md"):
        (content / name).write_text("x", encoding="utf-8")
    return content


def test_walk_lists_every_file_in_sorted_order(tmp_path: Path):
    content = _tree(tmp_path)
    walk = walk_files(content, tmp_path)
    # Each folder's entries by name: `guides` (a folder) sorts before `guides.md`.
    assert [path.relative_to(content).as_posix() for path in walk.files] == ["a.md", "b.md", "guides/z.md", "guides.md"]
    assert walk.refused == []
    assert walk_files(tmp_path / "nowhere", tmp_path) == ([], [])


def test_a_symbolic_link_inside_the_project_is_followed(tmp_path: Path):
    content = _tree(tmp_path)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "common.md").write_text("x", encoding="utf-8")
    os.symlink(tmp_path / "shared", content / "shared")
    os.symlink(content / "a.md", content / "c.md")
    walk = walk_files(content, tmp_path)
    names = [path.relative_to(content).as_posix() for path in walk.files]
    assert "shared/common.md" in names and "c.md" in names and walk.refused == []


def test_a_symbolic_link_leading_outside_the_project_is_refused_with_its_target(tmp_path: Path):
    project = tmp_path / "project"
    content = _tree(project)
    secret = tmp_path / "secret.md"
    secret.write_text("private", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(secret, content / "leak.md")
    os.symlink(tmp_path / "elsewhere", content / "leak-folder")
    walk = walk_files(content, project)
    assert content / "leak.md" not in walk.files and all(path.is_relative_to(project) for path in walk.files)
    assert walk.refused == [
        (content / "leak-folder", f"the symbolic link leads outside the project, to {tmp_path / 'elsewhere'}"),
        (content / "leak.md", f"the symbolic link leads outside the project, to {secret}"),
    ]


def test_broken_links_and_loops_are_refused_not_followed(tmp_path: Path):
    content = _tree(tmp_path)
    os.symlink(tmp_path / "missing.md", content / "broken.md")
    os.symlink(content, content / "guides" / "loop")
    walk = walk_files(content, tmp_path)
    assert dict(walk.refused) == {
        content / "broken.md": "the symbolic link leads nowhere (its target is missing)",
        content / "guides" / "loop": "the folder links back to a folder above it (a loop)",
    }
    assert len(walk.files) == 4  # the real files, once each


def test_a_real_folder_is_never_refused_as_a_loop(tmp_path: Path):
    content = _tree(tmp_path)
    os.symlink(content / "guides", content / "alias")  # `alias` sorts before `guides`
    walk = walk_files(content, tmp_path)
    assert content / "guides" not in dict(walk.refused)


def test_folders_resolved_once_resolve_every_path_as_realpath_does(tmp_path: Path):
    """The gate's memo of resolved folders gives realpath's answer for every kind of path: links in a
    folder above, a link as the file itself (inside or leaving the project), ``.`` and ``..`` after a
    link, a missing file; and, once the batch is over, a folder replaced by a link is seen."""
    from gpuguide.structure.project_files import folders_resolved_once, resolved

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "page.md").write_text("x", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(tmp_path / "a", tmp_path / "linked")
    os.symlink(tmp_path / "a" / "b" / "page.md", tmp_path / "a" / "b" / "alias.md")
    os.symlink(outside, tmp_path / "a" / "b" / "leaves")
    paths = [tmp_path / "a" / "b" / "page.md", tmp_path / "linked" / "b" / "page.md", tmp_path / "a" / "b" / "alias.md",
             tmp_path / "a" / "b" / "leaves", f"{tmp_path}/linked/b/../b/page.md", f"{tmp_path}/a/./b/page.md",
             tmp_path / "a" / "b" / "missing.md", f"{tmp_path}/a/b/..", tmp_path]
    with folders_resolved_once():
        for _ in range(2):  # the second time from the memo
            assert [resolved(path) for path in paths] == [os.path.realpath(path) for path in paths]
    shutil.rmtree(tmp_path / "a" / "b")
    os.symlink(outside, tmp_path / "a" / "b")
    assert resolved(tmp_path / "a" / "b" / "page.md") == str(outside / "page.md")
