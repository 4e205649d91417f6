"""A small JSON codec for the engine's frozen dataclasses, driven by their type hints.

Supports ints, strs, bools, None, Enums (by value), tuples (homogeneous `tuple[X, ...]` and fixed),
frozensets, `Mapping[str|Enum, X]`, optional types and nested dataclasses. Decoding validates types and raises
`ValueError` quoting the bad input, so callers can turn it into their own error (a refused action, a
`SaveError`).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar, Union

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        module = __import__(cls.__module__, fromlist=["*"])
        hints = typing.get_type_hints(cls, vars(module))
        _HINTS[cls] = hints
    return hints


def encode(value: Any) -> Any:
    """Plain-JSON form of an engine value."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_json = getattr(value, "to_json", None)
        if to_json is not None and getattr(type(value), "_codec_custom", False):
            return to_json()
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((encode(v) for v in value), key=repr)
    if isinstance(value, Mapping):
        return {str(k.value if isinstance(k, Enum) else k): encode(v) for k, v in value.items()}
    raise TypeError(f"cannot encode {value!r}")


def decode(tp: Any, obj: Any, where: str = "value") -> Any:
    """Rebuild a value of type `tp` from its JSON form; ValueError quoting the input if it does not fit."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return obj
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if obj is None and type(None) in args:
            return None
        errors: list[str] = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return decode(arg, obj, where)
            except (ValueError, TypeError, KeyError) as exc:
                errors.append(str(exc))
        raise ValueError(f"{where}: {obj!r} does not fit {tp} ({'; '.join(errors)})")
    if tp is type(None):
        if obj is not None:
            raise ValueError(f"{where}: expected null, got {obj!r}")
        return None
    if tp is bool:
        if not isinstance(obj, bool):
            raise ValueError(f"{where}: expected true/false, got {obj!r}")
        return obj
    if tp is int:
        if not isinstance(obj, int) or isinstance(obj, bool):
            raise ValueError(f"{where}: expected an integer, got {obj!r}")
        return obj
    if tp is str:
        if not isinstance(obj, str):
            raise ValueError(f"{where}: expected a string, got {obj!r}")
        return obj
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(obj)
        except ValueError:
            raise ValueError(f"{where}: {obj!r} is not a {tp.__name__}") from None
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(obj, list | tuple):
            raise ValueError(f"{where}: expected a list, got {obj!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(obj))
        if len(args) != len(obj):
            raise ValueError(f"{where}: expected {len(args)} items, got {obj!r}")
        return tuple(decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, obj, strict=True)))
    if origin is frozenset:
        (arg,) = typing.get_args(tp)
        if not isinstance(obj, list | tuple):
            raise ValueError(f"{where}: expected a list, got {obj!r}")
        return frozenset(decode(arg, v, f"{where}[]") for v in obj)
    if origin in (Mapping, dict, typing.Mapping) or origin is getattr(typing, "Mapping", None):
        kt, vt = typing.get_args(tp)
        if not isinstance(obj, dict):
            raise ValueError(f"{where}: expected an object, got {obj!r}")
        return {decode(kt, k, f"{where} key"): decode(vt, v, f"{where}.{k}") for k, v in obj.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if getattr(tp, "_codec_custom", False):
            return tp.from_json(obj)  # type: ignore[attr-defined]
        if not isinstance(obj, dict):
            raise ValueError(f"{where}: expected an object for {tp.__name__}, got {obj!r}")
        hints = _hints(tp)
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            if f.name not in obj:
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                    continue
                raise ValueError(f"{where}: {tp.__name__} is missing {f.name!r}")
            kwargs[f.name] = decode(hints[f.name], obj[f.name], f"{where}.{f.name}")
        return tp(**kwargs)
    raise TypeError(f"{where}: cannot decode type {tp!r}")


def decode_as(cls: type[T], obj: Any, where: str = "value") -> T:
    result: T = decode(cls, obj, where)
    return result


def typed_to_json(record: Any, type_name: str) -> dict[str, Any]:
    """A record (action, event) as JSON with its `"type"` tag first."""
    out: dict[str, Any] = {"type": type_name}
    enc = encode(record)
    assert isinstance(enc, dict)
    out.update(enc)
    return out


def typed_from_json(registry: Mapping[str, type[T]], obj: Any, what: str, error: type[Exception]) -> T:
    """Decode `{"type": ..., fields...}` into the class registered for its type; `error` carries problems."""
    if not isinstance(obj, dict):
        raise error(f"an {what} is a JSON object with a 'type', got {obj!r}")
    kind = obj.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise error(f"unknown {what} type {kind!r}; known: {', '.join(sorted(registry))}")
    try:
        record: T = decode(cls, {k: v for k, v in obj.items() if k != "type"}, str(kind))
    except (ValueError, TypeError) as exc:
        raise error(f"malformed {kind} {what} {obj!r}: {exc}") from None
    return record
