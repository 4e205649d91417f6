"""The engine's speed tricks, all of them, in one place.

The rules are written plainly; what only makes them faster lives here:

- `identity_hash` (a class decorator for Enums): `Enum.__hash__` hashes the member's name in Python code, and
  colours are the commonest dict keys on the hot path. Members are singletons compared by identity, so the
  identity hash is equivalent (equal members, equal hashes) and runs in C.
- `fast_init`: a frozen dataclass's generated `__init__` sets each field through `object.__setattr__`, which
  looks the name up again on every call; the rules build several records per action. `fast_init(cls)` swaps in
  an `__init__` with the same parameters (order, defaults, default factories, keyword-only fields) that writes
  each slot through its own C-level setter.
- `replace_fields` and `setters`: copy a frozen slotted record with some fields changed without re-running
  `__init__`, and change a record this code owns in place (see `engine.work.Work`).
- `freezer`: build a frozen slotted record from a mapping of field expressions with straight-line code.

Nothing about the records changes: same fields, equality, hashing, repr and `__post_init__`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")
E = TypeVar("E")

_FACTORY = object()  # marks "no value given" for a field with a default factory


def identity_hash(cls: type[E]) -> type[E]:
    """Hash an Enum's members by identity (see the module docstring); returns the class."""
    cls.__hash__ = object.__hash__  # type: ignore[method-assign]
    return cls


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


def setters(cls: type) -> dict[str, Callable[[Any, object], None]]:
    """Each field's slot setter: C-level, skipping the frozen class's `__setattr__` (which refuses) and the
    by-name lookup `object.__setattr__` would do."""
    return {f.name: getattr(cls, f.name).__set__ for f in fields(cls)}


_REPLACERS: dict[type, Callable[[Any, Mapping[str, object]], Any]] = {}


def _make_replacer(cls: type) -> Callable[[Any, Mapping[str, object]], Any]:
    """Straight-line code copying every field (generated once per class: no per-field loop at run time), then
    the changes. A name that is not a field has no setter (KeyError)."""
    slot_setters = setters(cls)
    body = [f"    set_{n}(new, obj.{n})" for n in slot_setters]
    src = ("def replacer(obj, ch):\n    new = new_(cls)\n" + "\n".join(body)
           + "\n    for name, value in ch.items():\n        setters[name](new, value)\n    return new\n")
    namespace: dict[str, Any] = {"new_": object.__new__, "cls": cls, "setters": slot_setters}
    namespace.update({f"set_{n}": setter for n, setter in slot_setters.items()})
    exec(src, namespace)  # generated from the dataclass's own field names only
    replacer: Callable[[Any, Mapping[str, object]], Any] = namespace["replacer"]
    return replacer


def replace_fields(obj: T, changes: Mapping[str, object]) -> T:
    """`dataclasses.replace` for our frozen slotted records without re-running `__init__`. Unknown field
    names raise TypeError."""
    cls: Any = type(obj)
    replacer = _REPLACERS.get(cls)
    if replacer is None:
        if "__dict__" in dir(cls) or not hasattr(cls, "__slots__"):
            raise TypeError(f"{cls.__name__} is not a slotted dataclass")
        replacer = _REPLACERS[cls] = _make_replacer(cls)
    try:
        result: T = replacer(obj, changes)
    except KeyError:
        unknown = sorted(set(changes) - {f.name for f in fields(cls)})
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}") from None
    return result


def freezer(cls: type[T], sources: Mapping[str, str], params: str) -> Callable[..., T]:
    """A function `(params) -> cls` setting each field of `cls` from the Python expression `sources[field]`
    (over `params`), in straight-line code generated from the class's own fields."""
    slot_setters = setters(cls)
    missing = sorted(set(slot_setters) - set(sources))
    if missing:
        raise TypeError(f"no source for {cls.__name__} field(s) {missing}")
    lines = [f"    set_{n}(new, {sources[n]})" for n in slot_setters]
    src = f"def build({params}):\n    new = new_(cls)\n" + "\n".join(lines) + "\n    return new\n"
    namespace: dict[str, Any] = {"new_": object.__new__, "cls": cls, "tuple": tuple}
    namespace.update({f"set_{n}": setter for n, setter in slot_setters.items()})
    exec(src, namespace)  # generated from the class's own field names only
    build: Callable[..., T] = namespace["build"]
    return build
