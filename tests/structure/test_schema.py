"""Validation against the schema: strict models, and each pydantic error turned into a problem at
the line and column of the offending value, with a message naming the field and a hint to fix it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import pydantic
import pytest
from pydantic import Field, model_validator

from gpuguide.errors import Problems
from gpuguide.structure.schema import PATTERN_HINTS, Strict, pattern_hint, validate
from gpuguide.structure.yaml_documents import parse_yaml

FILE = Path("data/cards.yaml")
CODE = pattern_hint(r"^[a-z]+$", "use lower-case letters, e.g. `big`")


class Link(Strict):
    kind: str
    width: int = 1


class Card(Strict):
    id: Annotated[str, Field(pattern=CODE)]
    memory_gb: float = Field(gt=0, lt=10_000, allow_inf_nan=False)
    segment: Literal["data_center", "workstation"]
    """where the card is sold: `data_center` or `workstation`"""
    released: bool = False
    links: list[Link] = Field(default_factory=list)
    note: str | None = None

    @model_validator(mode="after")
    def _workstations_are_small(self) -> Card:
        if self.segment == "workstation" and self.memory_gb > 100:
            raise ValueError("a workstation card has at most 100 GB")
        return self


class CardFile(Strict):
    cards: list[Card]


GOOD = "cards:\n  - id: big\n    memory_gb: 80\n    segment: data_center\n"


def check(text: str, model: type[pydantic.BaseModel] = CardFile, line_offset: int = 0,
          base: tuple = ()) -> tuple[object, list[str]]:
    problems = Problems(Path.cwd())
    document = parse_yaml(text, FILE, problems, line_offset)
    assert document is not None, problems.items
    return validate(model, document, FILE, problems, base), [str(p) for p in problems.items]


def test_a_valid_document_is_a_frozen_model():
    result, problems = check(GOOD)
    assert problems == []
    assert isinstance(result, CardFile) and result.cards[0].memory_gb == 80
    with pytest.raises(pydantic.ValidationError):
        result.cards[0].memory_gb = 1  # type: ignore[misc]


@pytest.mark.parametrize(("old", "new", "expected"), [
    # Strict: a quoted figure is text, even "80".
    ("memory_gb: 80", 'memory_gb: "80"', ("data/cards.yaml:3:16: error: `memory_gb`: input should be a valid number, "
                                         "got '80' (write a plain number, without unit or quotes)")),
    ("memory_gb: 80", "memory_gb: 0", ("data/cards.yaml:3:16: error: `memory_gb`: input should be greater than 0, "
                                      "got 0 (write a number greater than zero)")),
    ("memory_gb: 80", "memory_gb: 80000", ("data/cards.yaml:3:16: error: `memory_gb`: input should be less than "
                                          "10000, got 80000 (write a plausible figure: is there a digit too many?)")),
    ("memory_gb: 80", "memory_gb: .nan", ("data/cards.yaml:3:16: error: `memory_gb`: input should be a finite "
                                         "number, got nan (write the figure itself, not .inf or .nan)")),
    # A field with a description: the description says what to write.
    ("segment: data_center", "segment: datacenter",
     ("data/cards.yaml:4:14: error: `segment`: input should be 'data_center' or 'workstation', got 'datacenter' "
     "(where the card is sold: `data_center` or `workstation`)")),
    # A pattern registered with pattern_hint: its hint.
    ("id: big", "id: Big", ("data/cards.yaml:2:9: error: `id`: string should match pattern '^[a-z]+$', got 'Big' "
                           "(use lower-case letters, e.g. `big`)")),
    ("segment: data_center", "segment: data_center\n    released: oui",
     "data/cards.yaml:5:15: error: `released`: input should be a valid boolean, got 'oui' (write true or false)"),
])
def test_a_wrong_value_names_its_line_column_field_and_fix(old: str, new: str, expected: str):
    result, problems = check(GOOD.replace(old, new))
    assert result is None
    assert problems == [expected]


def test_an_unknown_field_suggests_the_closest_one_at_its_value():
    result, problems = check(GOOD + "    memory_gbs: 1\n")
    assert result is None
    assert problems == ["data/cards.yaml:5:17: error: unknown field `memory_gbs` (did you mean `memory_gb`?)"]


def test_an_unknown_field_with_no_close_match_lists_the_fields_of_its_own_record():
    # Nested: the allowed fields are the link's, not the card's.
    result, problems = check(GOOD + "    links:\n      - kind: nvlink\n        colour: red\n")
    assert result is None
    assert problems == ["data/cards.yaml:7:17: error: unknown field `colour` (allowed fields: kind, width)"]


def test_a_missing_field_points_at_the_record_that_lacks_it():
    result, problems = check("cards:\n  - id: big\n    segment: data_center\n")
    assert result is None
    assert problems == ["data/cards.yaml:2:5: error: missing required field `memory_gb` (add `memory_gb: …`)"]


def test_a_rule_of_the_model_gives_its_own_message_at_its_record():
    text = GOOD.replace("data_center", "workstation").replace("memory_gb: 80", "memory_gb: 200")
    result, problems = check(text, Card, base=("cards", 0))
    assert result is None
    # The record as a whole breaks the rule: no field to name, the record's first line.
    assert problems == [("data/cards.yaml:2:5: error: a workstation card has at most 100 GB "
                        "(change the value as the message says)")]
    _, [problem] = check(text)
    assert problem.startswith("data/cards.yaml:2:5: error: ") and "a workstation card has at most 100 GB" in problem


def test_every_error_of_the_document_is_reported_at_once():
    text = ("cards:\n  - id: big\n    memory_gb: -1\n    segment: data_center\n"
            "  - id: Small\n    memory_gb: 24\n    segment: workstation\n")
    _, problems = check(text)
    assert [problem.split(": error:")[0] for problem in problems] == ["data/cards.yaml:3:16", "data/cards.yaml:5:9"]


def test_a_long_value_is_shortened_in_the_message():
    _, [problem] = check(GOOD.replace("memory_gb: 80", "memory_gb: " + "x" * 100))
    # repr of the value cut to 37 characters and an ellipsis: 40 in all.
    assert f"got '{'x' * 36}…" in problem and "x" * 40 not in problem


def test_front_matter_lines_and_a_part_of_the_document():
    # line_offset: the YAML starts on line 2 of its file; base: only the first card is validated.
    text = "cards:\n  - id: big\n    memory_gb: many\n    segment: data_center\n"
    result, problems = check(text, Card, line_offset=1, base=("cards", 0))
    assert result is None
    assert problems == [("data/cards.yaml:4:16: error: `memory_gb`: input should be a valid number, got 'many' "
                        "(write a plain number, without unit or quotes)")]
    result, problems = check(GOOD, Card, base=("cards", 0))
    assert isinstance(result, Card) and problems == []


def test_pattern_hint_registers_and_returns_the_pattern():
    assert CODE == r"^[a-z]+$" and PATTERN_HINTS[CODE] == "use lower-case letters, e.g. `big`"


class Table(Strict):
    columns: list[str | Link]


def test_an_error_in_a_list_of_texts_or_records_names_the_field():
    result, problems = check("columns: [memory, 5]\n", Table)
    assert result is None
    assert problems and all("`columns`" in problem for problem in problems), problems
    assert not any("`str`" in problem or "`Link`" in problem for problem in problems), problems


def test_a_value_that_fits_no_form_of_a_union_is_one_error_at_that_value():
    _, problems = check("columns: [memory, 5]\n", Table)
    assert len(problems) == 1 and ":1:19: " in problems[0] and "fits none of the forms" in problems[0], problems
    assert "got 5" in problems[0]


def test_a_record_in_a_union_reports_only_what_is_wrong_inside_it():
    # A mapping was meant as a Link: its own mistakes are reported, not "it is not a string".
    _, problems = check("columns: [memory, {kind: a, widht: 2}]\n", Table)
    assert len(problems) == 1 and "unknown field `widht`" in problems[0] and "did you mean `width`" in problems[0]


class SoldCard(Card):
    price: float = Field(gt=0, description="the price per hour, in US dollars")
    """not what the reference shows: the Field's own description comes first"""
    stock: int = 0


def test_a_fields_description_is_its_docstring_read_where_it_is_declared():
    from gpuguide.structure.schema import field_description

    # The docstring under the field in the class that declares it, inherited fields included.
    assert field_description(Card, "segment") == "where the card is sold: `data_center` or `workstation`"
    assert field_description(SoldCard, "segment") == "where the card is sold: `data_center` or `workstation`"
    # A Field's own description comes first (as in pydantic); without either, nothing.
    assert field_description(SoldCard, "price") == "the price per hour, in US dollars"
    assert field_description(SoldCard, "stock") == ""
    assert field_description(Card, "memory_gb") == ""
    assert field_description(Card, "no_such_field") == ""
