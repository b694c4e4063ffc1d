"""Validation of parsed YAML against pydantic models, with errors pointing at the file and line.

Models are strict (``"80 Go"`` is not a number, ``"80"`` is not either) and forbid unknown keys, so a
typo never passes silently. Each pydantic error is turned into a ``Problem`` at the position the
YAML loader recorded for the offending value.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from pathlib import Path
from typing import Any, TypeVar

import pydantic
from pydantic import BaseModel, ConfigDict

from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.yaml_documents import YamlDocument

Model = TypeVar("Model", bound=BaseModel)


#: A regular expression a text field must match → how to write it (the hint of a mismatch).
PATTERN_HINTS: dict[str, str] = {}


def pattern_hint(pattern: str, hint: str) -> str:
    """Register ``hint`` as the fix for a text that does not match ``pattern``; returns the pattern:
    ``Annotated[str, Field(pattern=pattern_hint(r"^…$", "use …"))]``."""
    PATTERN_HINTS[pattern] = hint
    return pattern


class Strict(BaseModel):
    """Base for every record an editor writes."""

    # A field's docstring is its description (``field_description``), read only when asked for:
    # pydantic's ``use_attribute_docstrings`` reads and parses every model's source at import,
    # 0.1 s of each build (a fifth of the imports of a one-page edit).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def field_description(model: type[BaseModel], name: str) -> str:
    """What a field is: the ``Field(description=…)`` it was given, or else the docstring under its
    line in the class that declares it (pydantic's order); "" when it has neither."""
    info = model.model_fields.get(name)
    if info is None:
        return ""
    if info.description:
        return info.description
    owner = next((owner for owner in model.__mro__ if name in owner.__dict__.get("__annotations__", {})), None)
    return _attribute_docstrings(owner).get(name, "") if owner is not None else ""


@functools.cache
def _attribute_docstrings(owner: type) -> dict[str, str]:
    """``name: type`` followed by a string on the next statement, in ``owner``'s source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(owner)))
    except (OSError, TypeError, SyntaxError):  # no source (a frozen install): the fallback description
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docstrings = {}
    for statement, following in zip(body, body[1:]):
        if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)):
            docstrings[statement.target.id] = inspect.cleandoc(following.value.value)
    return docstrings


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


#: How pydantic names the member of a union (``str | ModelColumn``) an error is about, in its location.
_PRIMITIVE_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict", "none", "date"})


def _is_member_tag(part: Any) -> bool:
    """A part of an error's location that names a union member or a validator, not a field (fields
    are snake_case; members are type names: ``str``, ``ModelColumn``, ``function-after[…]``)."""
    return isinstance(part, str) and (part in _PRIMITIVE_TAGS or part[:1].isupper() or "[" in part)


def _one_per_union(errors: list[Any]) -> list[Any]:
    """Pydantic reports a value that fits no member of a union once per member. When the value went
    into one member (an error inside it), only that member's errors are kept; when it fits none,
    one error says so, at the value."""
    by_value: dict[tuple[Any, ...], list[Any]] = {}
    kept: list[Any] = []
    for error in errors:
        loc = error["loc"]
        tags = [index for index, part in enumerate(loc) if _is_member_tag(part)]
        if not tags:
            kept.append(error)
            continue
        by_value.setdefault(loc[:tags[0]], []).append(error)
    for at, group in by_value.items():
        inside = [error for error in group if len(error["loc"]) > len(at) + 1]
        if inside:
            kept.extend(inside)
        elif len(group) == 1:
            kept.append(group[0])
        else:
            kept.append({"loc": at, "type": "union_mismatch", "input": group[0].get("input"),
                         "msg": "Input fits none of the forms this field takes"})
    return kept


def _field_name(loc: tuple[Any, ...]) -> str:
    names = [str(part) for part in loc if not isinstance(part, int)]
    return names[-1] if names else "value"


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model that owns the last key of ``loc`` (to suggest its field names)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = info.annotation
        # unwrap list[X], X | None, dict[str, X]
        for _ in range(3):
            args = getattr(current, "__args__", None)
            if not args:
                break
            candidates = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            current = candidates[0] if candidates else args[-1]
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def validate(model: type[Model], document: YamlDocument, path: Path, problems: Problems,
             base: tuple[str | int, ...] = ()) -> Model | None:
    """Validate ``document.value`` (or the part at ``base``) as ``model``; report every error."""
    data = document.value
    for part in base:
        data = data[part]
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        for error in _one_per_union(exc.errors()):
            loc = tuple(part for part in error["loc"] if not _is_member_tag(part))
            pos = document.position(base + loc)
            field = _field_name(loc)
            kind = error["type"]
            if kind == "extra_forbidden":
                owner = _model_at(model, loc)
                hint = did_you_mean(field, owner.model_fields) if owner else None
                allowed = ", ".join(sorted(owner.model_fields)) if owner else ""
                problems.error(path, pos.line, pos.column, f"unknown field `{field}`",
                               hint or (f"allowed fields: {allowed}" if allowed else None))
            elif kind == "missing":
                problems.error(path, pos.line, pos.column, f"missing required field `{field}`",
                               f"add `{field}: …`")
            elif kind == "value_error":  # a rule of the model's own: its message says what is wrong
                reason = str(error.get("ctx", {}).get("error", error["msg"]))
                where = f"`{field}`: " if loc else ""
                problems.error(path, pos.line, pos.column, f"{where}{reason}", _type_hint(model, loc, kind))
            else:
                got = error.get("input")
                hint = (PATTERN_HINTS.get(str(error.get("ctx", {}).get("pattern")))
                        if kind == "string_pattern_mismatch" else None)
                problems.error(path, pos.line, pos.column,
                               f"`{field}`: {error['msg'][0].lower() + error['msg'][1:]}, got {_describe(got)}",
                               hint or _type_hint(model, loc, kind))
        return None


#: What to do about each kind of pydantic error, when the field has no description of its own.
_HINTS = {
    "greater_than": "write a number greater than zero",
    "greater_than_equal": "write a plausible figure: is a digit or an exponent wrong?",
    "string_too_long": "shorten it",
    "less_than": "write a plausible figure: is there a digit too many?",
    "less_than_equal": "write a plausible figure: is there a digit too many?",
    "finite_number": "write the figure itself, not .inf or .nan",
    "literal_error": "use one of the values listed",
    "string_pattern_mismatch": "see the allowed form in README.md",
    "value_error": "change the value as the message says",
    "string_too_short": "write a value",
    "too_short": "give at least one value",
    "date_from_datetime_parsing": "write a date as YYYY-MM-DD",
    "date_parsing": "write a date as YYYY-MM-DD",
    "date_type": "write a date as YYYY-MM-DD, without quotes",
    "bool_type": "write true or false",
    "union_mismatch": "see the data fields described in README.md",
}


def _type_hint(model: type[BaseModel], loc: tuple[Any, ...], kind: str) -> str:
    while loc and isinstance(loc[-1], int):  # an item of a list: the list's field describes it
        loc = loc[:-1]
    owner = _model_at(model, loc)
    field = _field_name(loc)
    description = field_description(owner, field) if owner else ""
    if kind.startswith(("int", "float", "greater", "less", "finite")):
        return "write a plain number, without unit or quotes" if kind.startswith(("int", "float")) else _HINTS[kind]
    if description:
        return description
    if kind.startswith(("int", "float")):
        return "write a plain number, without unit or quotes"
    if kind.startswith(("str", "string")):
        return "write text, in quotes if it holds a colon"
    return _HINTS.get(kind, "see the data fields described in README.md")
