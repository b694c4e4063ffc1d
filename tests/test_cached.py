"""``cached_property``: computed once per instance on first access, then read from the instance."""

from __future__ import annotations

from gpuguide.cached import cached_property


class Counter:
    def __init__(self, start: int):
        self.start = start
        self.calls = 0

    @cached_property
    def doubled(self) -> int:
        """Twice the start."""
        self.calls += 1
        return self.start * 2


def test_computed_on_first_access_then_kept() -> None:
    counter = Counter(21)
    assert counter.calls == 0  # nothing computed before it is asked for
    assert counter.doubled == 42 and counter.doubled == 42
    assert counter.calls == 1
    assert counter.__dict__["doubled"] == 42  # stored in the instance, as functools' does


def test_each_instance_has_its_own_value() -> None:
    one, two = Counter(1), Counter(2)
    assert (one.doubled, two.doubled) == (2, 4)


def test_a_value_set_in_the_instance_is_used_without_computing() -> None:
    # The content cache fills a page's digests this way, without reading its file.
    counter = Counter(1)
    counter.__dict__["doubled"] = 99
    assert counter.doubled == 99 and counter.calls == 0


def test_deleting_the_value_computes_it_again() -> None:
    counter = Counter(5)
    assert counter.doubled == 10
    counter.start = 6
    del counter.__dict__["doubled"]
    assert counter.doubled == 12 and counter.calls == 2


def test_the_class_attribute_is_the_descriptor_with_its_docstring() -> None:
    assert isinstance(Counter.doubled, cached_property)
    assert Counter.doubled.__doc__ == "Twice the start."
