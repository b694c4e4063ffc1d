"""``cached_property`` without a lock (standard library only).

Python 3.11's ``functools.cached_property`` takes a lock on every first access (3.12 removed it):
loading ten thousand pages asks each for its path, URL and output path once, and the lock made that
three times slower (18 → 6 ms for 30,000 first accesses). Same contract: computed on first access,
then stored in the instance's ``__dict__``, where later accesses find it without calling anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached_property(Generic[T]):  # named as the one it replaces
    def __init__(self, function: Callable[[Any], T]):
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached_property[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value
