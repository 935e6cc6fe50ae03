"""Problems in a scenario, one line each: ``path.to[1].field: what is wrong (what is allowed)``.

Pydantic's errors are mapped to this form: the union tags it inserts into locations are dropped,
its messages are rephrased to name the value and what is allowed, and unknown keys get a
did-you-mean among the fields of the table they were found in.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from mpsim._core import ConfigError

__all__ = [
    "MAX_NESTING",
    "Problem",
    "ScenarioError",
    "check_shape",
    "did_you_mean",
    "format_path",
    "problems_from_validation",
]


def did_you_mean(word: str, allowed: Iterable[str]) -> str:
    """`` did you mean 'lia'?`` when a close match exists, else the empty string."""
    close = difflib.get_close_matches(word, list(allowed), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    value: str = ""
    """The value found, as the core writes it (empty when the message alone says it)."""
    allowed: str = ""
    """What is allowed (empty when the message alone says it)."""

    def __str__(self) -> str:
        # One problem is one line, whatever characters the user's keys and values hold.
        text = f"{self.path}: {self.message}" if self.path else self.message
        return "".join(_LINE_BREAKING.get(ch, ch) for ch in text)


# Every character str.splitlines() breaks at, and the other control characters, as Python escapes them.
_LINE_BREAKING = {
    ch: ch.encode("unicode_escape").decode("ascii")
    for ch in [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u2028", "\u2029"]
}


class ScenarioError(ConfigError):
    """An invalid scenario: every problem found, one per line, each naming the path of its field."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


_PLAIN_KEY = re.compile(r"^[\w.#-]+$")


def format_path(loc: Iterable[str | int]) -> str:
    """``flows[0].cc``; a key that is not a plain word is quoted (``"a b"``)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = part if _PLAIN_KEY.match(part) else repr(part)
            out += f".{text}" if out else text
    return out


def _unwrap(tp: Any) -> Any:
    """Strips Annotated and Optional."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
            continue
        if origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) == 1:
                tp = args[0]
                continue
        return tp


def _union_members(tp: Any) -> list[Any]:
    tp = _unwrap(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [_unwrap(a) for a in typing.get_args(tp)]
    return [tp]


def _tag_of(cls: Any) -> str | None:
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        for key in ("type", "preset"):
            f = cls.model_fields.get(key)
            if f is not None:
                args = typing.get_args(f.annotation)
                if args and isinstance(args[0], str):
                    return args[0]
    return None


def _field_name(cls: type[BaseModel], key: str) -> str | None:
    for name, f in cls.model_fields.items():
        if key in (name, f.alias):
            return name
    return None


def _clean(loc: tuple[str | int, ...], root: type[BaseModel]) -> tuple[list[str | int], type[BaseModel] | None]:
    """The user's path (union tags removed, aliases kept) and the model class found at its end."""
    path: list[str | int] = []
    tp: Any = root
    for part in loc:
        tp = _unwrap(tp)
        members = _union_members(tp)
        if len(members) > 1:
            chosen = [m for m in members if _tag_of(m) == part]
            if chosen:
                tp = chosen[0]
                continue
            tp = next((m for m in members if isinstance(m, type) and issubclass(m, BaseModel)), members[0])
        if typing.get_origin(tp) is list and isinstance(part, int):
            path.append(part)
            tp = typing.get_args(tp)[0]
            continue
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str):
            name = _field_name(tp, part)
            path.append(part)
            tp = tp.model_fields[name].annotation if name is not None else Any
            continue
        if isinstance(part, str) and not re.match(r"^[A-Za-z_][\w.-]*$", part):
            continue  # pydantic's names of validator functions or union members
        path.append(part)
    end = _unwrap(tp)
    if isinstance(end, type) and issubclass(end, BaseModel):
        return path, end
    members = [m for m in _union_members(end) if isinstance(m, type) and issubclass(m, BaseModel)]
    return path, (members[0] if len(members) == 1 else None)


_EXPECTED = re.compile(r"'([^']*)'")


def _message(err: ErrorDetails, owner: type[BaseModel] | None) -> str:
    kind = err["type"]
    ctx = err.get("ctx", {}) or {}
    value = err.get("input")
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if kind == "missing":
        return "required, but missing"
    if kind == "extra_forbidden":
        key = str(err["loc"][-1])
        allowed = [f.alias or n for n, f in owner.model_fields.items()] if owner is not None else []
        allowed = [a for a in allowed if a not in ("type", "preset")] or allowed
        tail = f" (allowed: {', '.join(allowed)})" if allowed else ""
        return f"unknown field {key!r}{did_you_mean(key, allowed)}{tail}"
    if kind == "literal_error":
        allowed = _EXPECTED.findall(str(ctx.get("expected", "")))
        return f"{shown} is not allowed{did_you_mean(str(value), allowed)} (allowed: {', '.join(allowed)})"
    if kind == "union_tag_invalid":
        allowed = _EXPECTED.findall(str(ctx.get("expected_tags", "")))
        field = str(ctx.get("discriminator", "type")).strip("'")
        tag = str(ctx.get("tag"))
        return f"unknown {field} {tag!r}{did_you_mean(tag, allowed)} (allowed: {', '.join(allowed)})"
    if kind == "union_tag_not_found":
        field = str(ctx.get("discriminator", "type")).strip("'")
        return f"needs a '{field}' key"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[kind]
        bound = next(iter(ctx.values()), "?")
        return f"must be {op} {bound}, got {shown}"
    if kind in ("too_short", "too_long"):
        return f"{err['msg'][0].lower()}{err['msg'][1:]}, got {shown}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"expected a whole number, got {shown}"
    if kind in ("float_type", "float_parsing"):
        return f"expected a number, got {shown}"
    if kind in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {shown}"
    if kind == "string_type":
        return f"expected a string, got {shown}"
    if kind == "list_type":
        return f"expected a list, got {shown}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"expected a table, got {shown}"
    # Custom errors (units, unknown algorithms, cross-field rules) already name the value.
    return err["msg"].removeprefix("Value error, ")


def problems_from_validation(error: ValidationError, root: type[BaseModel], prefix: str = "") -> list[Problem]:
    out: list[Problem] = []
    seen: set[str] = set()
    for err in error.errors(include_url=False):
        inner = (err.get("ctx") or {}).get("error")
        loc = tuple(err["loc"])
        if isinstance(inner, ScenarioError):
            # A model whose own constructor already reported its problems (mpsim._types.Model.__init__),
            # at the place where it is nested.
            where = _joined(prefix, format_path(_clean(loc, root)[0]))
            found = [Problem(_joined(where, p.path), p.message, p.value, p.allowed) for p in inner.problems]
        else:
            path, owner = _clean(loc[:-1] if err["type"] == "extra_forbidden" else loc, root)
            if err["type"] == "extra_forbidden":
                path.append(loc[-1])
            found = [Problem(_joined(prefix, format_path(path)), _message(err, owner))]
        for p in found:
            if str(p) not in seen:
                seen.add(str(p))
                out.append(p)
    return out


def _joined(head: str, tail: str) -> str:
    """``flows[0]`` and ``cc`` as ``flows[0].cc``; ``links`` and ``[1]`` as ``links[1]``."""
    if not head or not tail:
        return head or tail
    return f"{head}{tail}" if tail.startswith("[") else f"{head}.{tail}"


MAX_NESTING = 32
"""Most levels of tables and lists a scenario may nest: far more than any valid scenario needs."""


def check_shape(data: Any) -> None:
    """Raises :class:`ScenarioError` unless every key of ``data`` is a string and it nests at most
    :data:`MAX_NESTING` levels: what a TOML file always gives, and a dict from Python may not."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_NESTING:
            shown = format_path(loc[:3])
            raise ScenarioError(
                [Problem(shown, f"nested more than {MAX_NESTING} levels deep (allowed: at most {MAX_NESTING})")]
            )
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not isinstance(key, str):
                    what = f"keys must be strings, got {key!r} ({type(key).__name__})"
                    raise ScenarioError([Problem(format_path(loc), what if loc else f"top-level {what}")])
                stack.append((item, [*loc, key]))
        elif isinstance(value, list | tuple):
            stack.extend((item, [*loc, i]) for i, item in enumerate(value))
