"""The engine's speed tricks, all of them, in one place, behind one switch.

The rules are written plainly; what only makes them faster lives here. Set the environment variable
`SENESCHAL_ENGINE_SPEED=0` before the engine is imported to turn every trick off (`ENABLED`): games play out
identically either way (tests/engine/test_speed.py), only slower.

- `identity_hash` (a class decorator for Enums): `Enum.__hash__` hashes the member's name in Python code, and
  colours are the commonest dict keys on the hot path. Members are singletons compared by identity, so the
  identity hash is equivalent (equal members, equal hashes) and runs in C.
- `install(records)`: a frozen dataclass's generated `__init__` sets each field through `object.__setattr__`,
  which looks the name up again on every call, and the rules build several records per action. `fast_init`
  swaps in an `__init__` with the same parameters (order, defaults, default factories, keyword-only fields)
  that writes each slot through its own C-level setter.
- `replace_fields`: copy a frozen slotted record with some fields changed without re-running `__init__`.
- Drafts: a frozen class's `__setattr__` is Python code (it refuses), so each slot must be written through
  its descriptor, one call per field. A big record of its own (no base class, `DRAFT_FIELDS` fields or more:
  states, players, battles) is instead built as its *draft*, a class with the same slots and plain attribute
  stores (which the interpreter specialises into direct slot writes), then turned into the record by
  assigning `__class__` (allowed between classes of the same layout). Nobody ever sees a draft. `fast_init`
  and `replace_fields` use them; `builder(cls)` builds one straight from its fields (the next state, once
  per action).
- `memo(maxsize)`: `functools.lru_cache` for pure functions of a few small immutable values (the knight
  counts an advance can take): the same answer without working it out again. (Not for anything keyed by a
  game's own data: a new game misses, and the cache would keep old games alive.)
- `Owned`: a working copy changes the records it made itself in place instead of copying them again.

Nothing about the records changes: same fields, equality, hashing, repr and `__post_init__`.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

ENABLED = os.environ.get("SENESCHAL_ENGINE_SPEED", "1") != "0"

T = TypeVar("T")
E = TypeVar("E")
F = TypeVar("F", bound=Callable[..., Any])

_FACTORY = object()  # marks "no value given" for a field with a default factory


def identity_hash(cls: type[E]) -> type[E]:
    """Hash an Enum's members by identity (see the module docstring); returns the class."""
    if ENABLED:
        cls.__hash__ = object.__hash__  # type: ignore[method-assign]
    return cls


def memo(maxsize: int) -> Callable[[F], F]:
    """Remember a pure function's last `maxsize` answers (its arguments hashable and never mutated); the
    function itself when the tricks are off."""

    def wrap(fn: F) -> F:
        if not ENABLED:
            return fn
        return functools.wraps(fn)(functools.lru_cache(maxsize)(fn))  # type: ignore[return-value]

    return wrap


def install(records: Iterable[type]) -> None:
    """Give these frozen slotted record classes a faster `__init__` (nothing when the tricks are off)."""
    if ENABLED:
        for cls in records:
            fast_init(cls)


DRAFT_FIELDS = 8  # below this, swapping the class (twice when building) costs more than it saves

_DRAFTS: dict[type, type | None] = {}


def draft_of(cls: type) -> type | None:
    """The draft class of a record worth drafting (see the module docstring), None for any other."""
    if cls not in _DRAFTS:
        slots = cls.__dict__.get("__slots__", ())
        worth = cls.__bases__ == (object,) and len(slots) >= DRAFT_FIELDS and "__dict__" not in dir(cls)
        _DRAFTS[cls] = type(f"{cls.__name__}Draft", (object,), {
            "__slots__": tuple(slots),
            "__setattr__": object.__setattr__,  # both, or the interpreter keeps the slow path
            "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
        }) if worth else None
    return _DRAFTS[cls]


def fast_init(cls: type[T]) -> type[T]:
    """Give a frozen slotted dataclass a faster `__init__` with the same signature; returns the class."""
    if not dataclasses.is_dataclass(cls) or "__dict__" in dir(cls):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    draft = draft_of(cls)
    namespace: dict[str, Any] = {"FACTORY": _FACTORY, "cls": cls, "draft": draft, "as_draft": _set_slot,
                                 "dataclass_init": cls.__init__}
    positional: list[str] = []
    keyword_only: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: fields outside __init__ are not supported")
        namespace[f"set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is not dataclasses.MISSING:
            namespace[f"default_{f.name}"] = f.default
            param = f"{f.name}=default_{f.name}"
            value = f.name
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"factory_{f.name}"] = f.default_factory
            param = f"{f.name}=FACTORY"
            value = f"factory_{f.name}() if {f.name} is FACTORY else {f.name}"
        else:
            param = f.name
            value = f.name
        (keyword_only if f.kw_only else positional).append(param)
        body.append(f"self.{f.name} = {value}" if draft else f"set_{f.name}(self, {value})")
    if draft:
        # A subclass's instance keeps its own class: it is built the dataclass's way.
        names = [f"{f.name}={f.name}" for f in dataclasses.fields(cls)]
        body = ["if type(self) is not cls:", f"    return dataclass_init(self, {', '.join(names)})",
                "as_draft(self, '__class__', draft)", *body, "self.__class__ = cls"]
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword_only] if keyword_only else [])])
    src = f"def __init__({params}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(src, namespace)  # generated from the dataclass's own field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = getattr(cls.__init__, "__doc__", None)
    setattr(cls, "__init__", init)  # noqa: B010 -- replacing a method on the class object
    return cls


def builder(cls: type[T]) -> Callable[..., T]:
    """What builds a `cls` from all its fields, positionally and in order: the class itself, or with the
    tricks on, for a class with a draft and no `__post_init__`, a function that fills a draft and gives it its
    class (one swap, where a faster `__init__` swaps twice)."""
    draft = draft_of(cls)
    if not ENABLED or draft is None or hasattr(cls, "__post_init__"):
        return cls
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    src = (f"def build({', '.join(names)}):\n    new = new_(draft)\n"
           + "".join(f"    new.{n} = {n}\n" for n in names) + "    new.__class__ = cls\n    return new\n")
    namespace: dict[str, Any] = {"new_": object.__new__, "draft": draft, "cls": cls}
    exec(src, namespace)  # generated from the dataclass's own field names only
    build: Callable[..., T] = namespace["build"]
    return build


_SETTERS: dict[type, dict[str, Callable[[Any, object], None]]] = {}


def _setters(cls: type) -> dict[str, Callable[[Any, object], None]]:
    """Each field's slot setter: C-level, skipping the frozen class's `__setattr__` (which refuses) and the
    by-name lookup `object.__setattr__` would do."""
    found = _SETTERS.get(cls)
    if found is None:
        if "__dict__" in dir(cls) or not hasattr(cls, "__slots__"):
            raise TypeError(f"{cls.__name__} is not a slotted dataclass")
        found = _SETTERS[cls] = {f.name: getattr(cls, f.name).__set__ for f in dataclasses.fields(cls)}
    return found


_REPLACERS: dict[type, Callable[[Any, Mapping[str, object]], Any]] = {}


def _make_replacer(cls: type) -> Callable[[Any, Mapping[str, object]], Any]:
    """Straight-line code copying every field (generated once per class: no per-field loop at run time), then
    the changes; into a draft when the class has one. A name that is not a field has no setter (KeyError) or
    no slot (AttributeError)."""
    slot_setters = _setters(cls)
    draft = draft_of(cls)
    namespace: dict[str, Any] = {"new_": object.__new__, "cls": cls, "draft": draft, "setters": slot_setters}
    if draft is not None:
        body = [f"    new.{n} = obj.{n}" for n in slot_setters]
        src = ("def replacer(obj, ch):\n    new = new_(draft)\n" + "\n".join(body)
               + "\n    for name, value in ch.items():\n        setattr(new, name, value)\n"
               + "    new.__class__ = cls\n    return new\n")
    else:
        body = [f"    set_{n}(new, obj.{n})" for n in slot_setters]
        src = ("def replacer(obj, ch):\n    new = new_(cls)\n" + "\n".join(body)
               + "\n    for name, value in ch.items():\n        setters[name](new, value)\n    return new\n")
        namespace.update({f"set_{n}": setter for n, setter in slot_setters.items()})
    exec(src, namespace)  # generated from the dataclass's own field names only
    replacer: Callable[[Any, Mapping[str, object]], Any] = namespace["replacer"]
    return replacer


def replacer_of(cls: type) -> Callable[[Any, Mapping[str, object]], Any]:
    """The class's replacer, made the first time it is asked for."""
    replacer = _REPLACERS.get(cls)
    if replacer is None:
        replacer = _REPLACERS[cls] = _make_replacer(cls)
    return replacer


def replace_fields(obj: T, changes: Mapping[str, object]) -> T:
    """`dataclasses.replace(obj, **changes)` for our frozen slotted records. Unknown field names raise
    TypeError."""
    if not ENABLED:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    cls: Any = type(obj)
    replacer = _REPLACERS.get(cls) or replacer_of(cls)
    try:
        result: T = replacer(obj, changes)
    except (KeyError, AttributeError):
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(cls)})
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}") from None
    return result


_set_slot = object.__setattr__  # a slot's own setter, past the frozen class's `__setattr__`


class Owned:
    """The records a working copy made itself. `change` copies a record the first time and changes that copy
    in place afterwards (with the tricks off it copies every time), so a caller never keeps a record across a
    change to read its old values; `release` hands them all over (they belong to a frozen state from then)."""

    __slots__ = ("_mine",)

    def __init__(self) -> None:
        self._mine: dict[int, object] = {}  # id -> record (kept alive, so an id is never reused meanwhile)

    def change(self, record: T, changes: Mapping[str, object]) -> T:
        if id(record) in self._mine:
            for name, value in changes.items():
                _set_slot(record, name, value)  # an unknown name raises AttributeError
            return record
        if not ENABLED:
            return dataclasses.replace(record, **changes)  # type: ignore[type-var]
        replacer = _REPLACERS.get(type(record)) or replacer_of(type(record))
        new: T = replacer(record, changes)
        self._mine[id(new)] = new
        return new

    def release(self) -> None:
        if self._mine:
            self._mine.clear()
