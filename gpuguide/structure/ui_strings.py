"""The UI strings of ``data/ui/<language>.yaml`` (``UiStrings``) and their checks: each string well
formed, and every language defining every string with the same placeholders."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Mapping
from typing import Literal

from gpuguide.errors import Problems
from gpuguide.structure.language import placeholders
from gpuguide.structure.schema import Strict
from gpuguide.structure.yaml_documents import YamlDocument

PluralCategory = Literal["zero", "one", "two", "few", "many", "other"]
#: A UI string: one text, or one per CLDR plural category of the language (``one``, ``other``…),
#: chosen by the ``{count}`` it is given.
UiString = str | dict[PluralCategory, str]


class UiStrings(Strict):
    strings: dict[str, UiString]


def _ui_string_forms(value: UiString) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def check_ui_string_forms(ui: UiStrings, doc: YamlDocument, path: Path, problems: Problems) -> None:
    """Each UI string is text with plain ``{name}`` placeholders; plural forms include ``other``."""
    for key, value in ui.strings.items():
        # Asked only for a problem: a document from the cache parses its text again for positions.
        def where(key: str = key) -> tuple[int, int]:
            pos = doc.position(("strings", key))
            return pos.line, pos.column

        if isinstance(value, dict) and "other" not in value:
            problems.error(path, *where(), f"the UI string `{key}` has no `other` form",
                           "plural forms are chosen by CLDR category; `other` is the one every language has")
        for text in _ui_string_forms(value):
            if not text.strip():
                problems.error(path, *where(), f"the UI string `{key}` is empty", "write its text")
                continue
            try:
                placeholders(text)
            except ValueError as exc:
                problems.error(path, *where(), f"the UI string `{key}`: {exc}",
                               "write braces only around a placeholder name; `{{` and `}}` print a brace")


def check_ui_strings_complete(strings: dict[str, dict[str, UiString]], files: dict[str, Path],
                               lines: Mapping[str, Mapping[str, int]], problems: Problems) -> None:
    """Every language defines every UI string, with the same placeholders: a missing one is an
    error, never a fallback, and a placeholder only one language uses would never be filled."""
    every_key = set().union(*strings.values()) if strings else set()
    for language, table in strings.items():
        for key in sorted(every_key - set(table)):
            others = [lang for lang in strings if key in strings[lang]]
            problems.error(files[f"ui/{language}"], lines[language].get("", 1), 1, f"missing UI string `{key}`",
                           f"translate it from data/ui/{others[0]}.yaml (line {lines[others[0]].get(key, 1)}) "
                           "and add it among the `strings:`")
    languages = list(strings)
    for key in sorted(every_key):
        names = {}
        for language in languages:
            if key in strings[language]:
                try:
                    names[language] = sorted({name for text in _ui_string_forms(strings[language][key])
                                              for name in placeholders(text)})
                except ValueError:
                    continue  # reported by check_ui_string_forms
        if len({tuple(found) for found in names.values()}) > 1:
            first, *rest = languages
            for language in rest:
                if language in names and first in names and names[language] != names[first]:
                    problems.error(files[f"ui/{language}"], lines[language].get(key, 1), 3,
                                   f"the UI string `{key}` uses {{{'}, {'.join(names[language])}}} "
                                   f"but data/ui/{first}.yaml uses {{{'}, {'.join(names[first])}}}",
                                   "use the same placeholders in every language")
