"""Faster construction of the engine's frozen, slotted records (actions, events, pending decisions).

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`, which looks the name
up again on every call; the rules build several records per action and the playout policy dozens, so that
lookup shows in the profiles. `fast_init(cls)` swaps in an `__init__` with the same parameters (order,
defaults, default factories, keyword-only fields) that writes each slot through its own C-level setter.
Nothing about the records changes: same fields, equality, hashing, repr and `__post_init__`.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_FACTORY = object()  # marks "no value given" for a field with a default factory


def fast_init(cls: type[T]) -> type[T]:
    """Give a frozen slotted dataclass a faster `__init__` with the same signature; returns the class."""
    if not is_dataclass(cls) or "__dict__" in dir(cls):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    namespace: dict[str, Any] = {"FACTORY": _FACTORY}
    positional: list[str] = []
    keyword_only: list[str] = []
    body: list[str] = []
    for f in fields(cls):
        if not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: fields outside __init__ are not supported")
        namespace[f"set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is not MISSING:
            namespace[f"default_{f.name}"] = f.default
            param = f"{f.name}=default_{f.name}"
            value = f.name
        elif f.default_factory is not MISSING:
            namespace[f"factory_{f.name}"] = f.default_factory
            param = f"{f.name}=FACTORY"
            value = f"factory_{f.name}() if {f.name} is FACTORY else {f.name}"
        else:
            param = f.name
            value = f.name
        (keyword_only if f.kw_only else positional).append(param)
        body.append(f"    set_{f.name}(self, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword_only] if keyword_only else [])])
    src = f"def __init__({params}):\n" + ("\n".join(body) if body else "    pass") + "\n"
    exec(src, namespace)  # generated from the dataclass's own field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = getattr(cls.__init__, "__doc__", None)
    setattr(cls, "__init__", init)  # noqa: B010 -- replacing a method on the class object
    return cls
