"""Formulas as data: one definition of the serving model, two evaluators.

The serving and roofline functions are written once, with ordinary arithmetic and the helpers
below (``minimum``, ``select``…). Given numbers they compute numbers, exactly. Given a ``Var`` (the
planner's context, users…) they build an expression instead; ``Program`` compiles expressions into
a flat list of instructions, which this module evaluates with ``Fraction``s and the planner's
script (``templates/assets/planner.js``) with exact fractions of ``BigInt``s: the same formulas,
the same results, to the last digit.

An instruction is ``[op, argument…]``, each argument the index of an earlier instruction: ``["n",
"3/2"]`` a number, ``["s", "auto"]`` a text, ``["v", "users"]`` an input, ``["add", 0, 1]``…
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, Union

Number = Union[int, Fraction]
Value = Union[Fraction, bool, str]


class Expr:
    """A node: an operation on other nodes (or on numbers, texts and inputs)."""

    __slots__ = ("op", "args")

    def __init__(self, op: str, args: tuple[Any, ...]):
        self.op, self.args = op, args

    def __add__(self, other: Any) -> Any:
        return apply("add", self, other)

    def __radd__(self, other: Any) -> Any:
        return apply("add", other, self)

    def __sub__(self, other: Any) -> Any:
        return apply("sub", self, other)

    def __rsub__(self, other: Any) -> Any:
        return apply("sub", other, self)

    def __mul__(self, other: Any) -> Any:
        return apply("mul", self, other)

    def __rmul__(self, other: Any) -> Any:
        return apply("mul", other, self)

    def __truediv__(self, other: Any) -> Any:
        return apply("div", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return apply("div", other, self)

    def __neg__(self) -> Any:
        return apply("sub", 0, self)

    def __bool__(self) -> bool:
        raise TypeError("an expression has no truth value until it is evaluated: use `select` or `first`")

    def __repr__(self) -> str:
        return f"{self.op}({', '.join(map(repr, self.args))})"


def var(name: str) -> Expr:
    """An input of the program: ``var("users")``."""
    return Expr("v", (name,))


def symbolic(*values: Any) -> bool:
    # A loop on exact types, not ``any(isinstance(...))``: asked of every operand (no subclass of Expr).
    for value in values:
        if type(value) is Expr:
            return True
    return False


def constant_key(value: Any) -> tuple[Any, ...]:
    """A number, text or flag as a key that tells 1, Fraction(1) and True apart; a fraction keyed by
    its numerator and denominator (``Fraction.__hash__`` computes a modular inverse on every call)."""
    if type(value) is Fraction:
        return (Fraction, value.numerator, value.denominator)
    return (type(value), value)


def _first(*conditions: bool) -> Fraction:
    return Fraction(next((index for index, condition in enumerate(conditions) if condition), -1))


def _significant(value: Fraction, digits: Fraction, direction: Fraction) -> Fraction:
    """``value`` to ``digits`` significant digits, rounded up (direction 1) or down (-1)."""
    if value <= 0:
        return Fraction(0)
    exponent = _exponent(value) - int(digits) + 1
    scaled = value / Fraction(10) ** exponent
    whole = math.ceil(scaled) if direction > 0 else math.floor(scaled)
    return whole * Fraction(10) ** exponent


def _exponent(value: Fraction) -> int:
    """⌊log₁₀ value⌋ of a positive fraction, exactly."""
    exponent = len(str(value.numerator)) - len(str(value.denominator))
    if Fraction(10) ** exponent > value:
        exponent -= 1
    return exponent


def _missing_stays_missing(operation: Callable[..., Any]) -> Callable[..., Value | None]:
    """A figure computed from a missing one (None: not published) is missing too."""
    def guarded(*args: Any) -> Value | None:
        for arg in args:  # a loop, not ``any(...)``: every number a page's plans compute comes here
            if arg is None:
                return None
        return operation(*args)
    return guarded


def _missing_is_false(comparison: Callable[..., bool]) -> Callable[..., bool]:
    """A comparison with a missing figure does not hold."""
    def guarded(*args: Any) -> bool:
        for arg in args:
            if arg is None:
                return False
        return comparison(*args)
    return guarded


_ARITHMETIC: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: Fraction(a) / b,
    "min": min,
    "max": max,
    "floor": lambda a: Fraction(math.floor(a)),
    "ceil": lambda a: Fraction(math.ceil(a)),
    "sig": _significant,
}

#: Every operation, with its meaning: the script implements each one the same way.
OPERATIONS: dict[str, Callable[..., Value | None]] = {
    **{op: _missing_stays_missing(operation) for op, operation in _ARITHMETIC.items()},
    "le": _missing_is_false(lambda a, b: a <= b),
    "lt": _missing_is_false(lambda a, b: a < b),
    "and": lambda *terms: all(terms),
    "or": lambda *terms: any(terms),
    "not": lambda a: not a,
    "select": lambda index, *options: options[int(index)],
    "first": _first,
}


#: While a program is built (``sharing``): every node built so far, by operation and arguments.
_shared: dict[tuple[Any, ...], Expr] | None = None


@contextlib.contextmanager
def sharing() -> Iterator[None]:
    """Within this block, equal nodes are one node: a builder that states the same figure twice
    (each GPU count's memory, in the test and in the row) makes one object, which ``Program`` then
    compiles once instead of walking each copy down to its numbers."""
    global _shared
    outer, _shared = _shared, {} if _shared is None else _shared
    try:
        yield
    finally:
        _shared = outer


def apply(op: str, *args: Any) -> Any:
    """``op`` on ``args``: computed now when none of them is an expression, else a node."""
    if not symbolic(*args):
        return OPERATIONS[op](*args)
    if _shared is None:
        return Expr(op, args)
    # A node is its own key (equal nodes are one object here); 1, Fraction(1) and True are not.
    key = (op, *[arg if type(arg) is Expr else constant_key(arg) for arg in args])
    node = _shared.get(key)
    if node is None:
        node = _shared[key] = Expr(op, args)
    return node


def minimum(a: Any, b: Any) -> Any:
    return apply("min", a, b)


def maximum(a: Any, b: Any) -> Any:
    return apply("max", a, b)


def at_most(a: Any, b: Any) -> Any:
    """a ≤ b."""
    return apply("le", a, b)


def below(a: Any, b: Any) -> Any:
    """a < b."""
    return apply("lt", a, b)


def both(*terms: Any) -> Any:
    return apply("and", *terms)


def either(*terms: Any) -> Any:
    return apply("or", *terms)


def negate(a: Any) -> Any:
    return apply("not", a)


def select(index: Any, options: Sequence[Any]) -> Any:
    """``options[index]``; with one option, or options that are all the same constant, that option
    (a missing figure stays None for the pages' tests of it)."""
    head = options[0]
    if len(options) == 1 or all(option is head for option in options) or (
            not symbolic(*options) and all(type(option) is type(head) and option == head for option in options)):
        return head
    return apply("select", index, *options)


def choose(index: Any, count: int, option: Callable[[int], Any]) -> Any:
    """``select`` over ``option(0)`` … ``option(count - 1)``, computed on demand: with a known index
    only the chosen one is computed (a page asks for one answer), with an input all of them (the
    program needs every branch)."""
    if symbolic(index):
        return select(index, [option(number) for number in range(count)])
    return option(int(index))


def or_else(condition: Any, otherwise: Callable[[], Any]) -> Any:
    """``condition`` or ``otherwise()``, the second computed only when the first is not known true."""
    if not symbolic(condition) and condition:
        return True
    return either(condition, otherwise())


def first(conditions: Sequence[Any]) -> Any:
    """The index of the first true condition, -1 when none is."""
    return apply("first", *conditions) if conditions else Fraction(-1)


def floor(a: Any) -> Any:
    return apply("floor", a)


def ceil(a: Any) -> Any:
    return apply("ceil", a)


def significant(a: Any, digits: int, up: bool) -> Any:
    """``a`` to ``digits`` significant digits, rounded up or down."""
    return apply("sig", a, digits, 1 if up else -1)


# --- Programs ------------------------------------------------------------------------------------

class Program:
    """Expressions compiled into one list of instructions, each node once (equal subtrees shared)."""

    def __init__(self, outputs: Any):
        self.instructions: list[tuple[Any, ...]] = []  # JSON writes each as a list
        self._index: dict[tuple[Any, ...], int] = {}
        self._seen: dict[Any, int] = {}  # a node, or a constant's ``constant_key``: its index
        self.outputs = self._walk(outputs)

    def _walk(self, item: Any) -> Any:
        """Outputs are nested lists and dicts of terms: each term becomes its instruction's index."""
        if isinstance(item, dict):
            return {key: self._walk(value) for key, value in item.items()}
        if isinstance(item, (list, tuple)):
            return [self._walk(value) for value in item]
        return self.term(item)

    def _add(self, key: tuple[Any, ...]) -> int:
        if (index := self._index.get(key)) is None:
            index = self._index[key] = len(self.instructions)
            self.instructions.append(key)
        return index

    def term(self, value: Any) -> int:
        """The index of ``value``'s instruction (added, with its arguments, when new)."""
        # Each node and each constant is looked up once: a program repeats the same numbers (a
        # GPU's bandwidth, a format's bytes) thousands of times.
        key = value if type(value) is Expr else constant_key(value)
        seen = self._seen
        index = seen.get(key)
        if index is not None:
            return index
        if type(value) is Expr:
            if value.op == "v":
                index = self._add(("v", value.args[0]))
            else:
                # An argument compiled already (most: nodes are shared) is looked up without a call.
                index = self._add((value.op, *[found if type(arg) is Expr and (found := seen.get(arg)) is not None
                                               else self.term(arg) for arg in value.args]))
        elif isinstance(value, bool):
            index = self._add(("b", 1 if value else 0))
        elif isinstance(value, str):
            index = self._add(("s", value))
        elif value is None:
            index = self._add(("z",))
        else:
            number = Fraction(value)
            index = self._add(("n", f"{number.numerator}/{number.denominator}"))
        self._seen[key] = index
        return index

    def evaluate(self, inputs: Mapping[str, Any]) -> list[Any]:
        """Every instruction's value for ``inputs`` (numbers as ``Fraction``s)."""
        values: list[Any] = []
        for op, *args in self.instructions:
            if op == "n":
                values.append(Fraction(args[0]))
            elif op == "v":  # None: a figure not published
                given = inputs[args[0]]
                values.append(None if given is None else Fraction(given))
            elif op == "s":
                values.append(args[0])
            elif op == "b":
                values.append(bool(args[0]))
            elif op == "z":
                values.append(None)
            else:
                values.append(OPERATIONS[op](*(values[arg] for arg in args)))
        return values

    def read(self, values: Sequence[Any], outputs: Any = None) -> Any:
        """The outputs (or a part of them) with each index replaced by its value."""
        item = self.outputs if outputs is None else outputs
        if isinstance(item, dict):
            return {key: self.read(values, value) for key, value in item.items()}
        if isinstance(item, list):
            return [self.read(values, value) for value in item]
        return values[item]

    def as_json(self) -> dict[str, Any]:
        """What the script receives: the instructions and where each output is."""
        return {"instructions": self.instructions, "outputs": self.outputs}


def flatten(items: Iterable[Any]) -> list[Any]:
    return [item for group in items for item in group]
