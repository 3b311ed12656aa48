"""The shared JSON Schemas (``schemas/*.json`` at the repository's root, shipped in this package) and a small
validator for the keywords they use.

The schemas are the one definition of the lockfile and the manifest; this module only interprets them. A keyword
the validator does not know fails closed (:class:`SchemaKeywordError`), so a schema that grows a new keyword is
noticed by the tests instead of being skipped. Pure (the schema files are read once, from the package).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "SchemaError",
    "SchemaKeywordError",
    "first_error",
    "format_path",
    "json_kind",
    "lockfile_schema",
    "manifest_schema",
]

# Annotations: no effect on validation ("format" is an annotation in draft 2020-12 unless asserted).
_ANNOTATIONS = frozenset({"$schema", "title", "description", "default", "format", "$comment"})
_KNOWN = _ANNOTATIONS | frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "pattern",
        "minLength",
        "minItems",
        "items",
        "enum",
        "const",
        "anyOf",
        "uniqueItems",
    }
)


class SchemaKeywordError(Exception):
    """The schema uses a keyword this validator does not implement (a bug to fix here, never ignored)."""


class SchemaError:
    """The first place a value fails its schema: ``path`` (JSON path parts) and ``message``."""

    __slots__ = ("message", "path")

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        self.path = path
        self.message = message

    def __repr__(self) -> str:
        return f"SchemaError({format_path(self.path)!r}, {self.message!r})"


def format_path(path: tuple[str | int, ...] | list[str | int]) -> str:
    """A JSON path as the CLI prints it: ``$.agents["my agent"].plans[0]``."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


@cache
def _load(name: str) -> dict[str, Any]:
    text = resources.files("a2a_lock").joinpath("schemas").joinpath(name).read_text(encoding="utf-8")
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def lockfile_schema() -> dict[str, Any]:
    """The lockfile's JSON Schema (``schemas/a2a-lock.schema.json``)."""
    return _load("a2a-lock.schema.json")


def manifest_schema() -> dict[str, Any]:
    """The manifest's JSON Schema (``schemas/a2a.schema.json``)."""
    return _load("a2a.schema.json")


# ECMAScript's white space and line terminators (what its `\s` matches), and what its `.` does not match.
_JS_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_JS_LINE_TERMINATORS = "\\n\\r\\u2028\\u2029"


def _ecmascript(pattern: str) -> str:
    """``pattern`` (an ECMAScript regular expression, as JSON Schema's ``pattern`` is) in Python's syntax with the same
    meaning: ``.`` matches no line terminator (U+2028 and U+2029 included), ``\\s`` is ECMAScript's white space (the
    no-break space and U+FEFF included), ``$`` is the end of input.

    :raises SchemaKeywordError: ``\\S`` inside a character class, or an empty class (not translated)
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped == "s":
                out.append(_JS_SPACE if in_class else f"[{_JS_SPACE}]")
            elif escaped == "S" and not in_class:
                out.append(f"[^{_JS_SPACE}]")
            elif escaped == "S":
                raise SchemaKeywordError(f"pattern {pattern!r}: \\S in a character class is not supported")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
        elif ch == "[":
            # ECMAScript's empty classes `[]` and `[^]` are classes with a `]` in Python.
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                raise SchemaKeywordError(f"pattern {pattern!r}: an empty character class is not supported")
            in_class = True
            out.append(ch)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
        elif ch == ".":
            out.append(f"[^{_JS_LINE_TERMINATORS}]")
        elif ch == "$":
            out.append(r"\Z")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(_ecmascript(pattern), re.ASCII)


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    raise SchemaKeywordError(f"unknown type {kind!r}")


def json_kind(value: Any) -> str:
    """The JSON type of a parsed value as the error messages name it: ``null``, ``boolean``, ``object``, ``array``,
    ``string`` or ``number``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "number"


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0, but True is not 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def first_error(value: Any, schema: dict[str, Any] | bool, path: tuple[str | int, ...] = ()) -> SchemaError | None:
    """The first place ``value`` fails ``schema`` (a JSON Schema using the keywords listed above), else ``None``.

    :raises SchemaKeywordError: the schema uses a keyword not implemented here
    """
    if schema is True:
        return None
    if schema is False:
        return SchemaError(path, "not allowed")
    unknown = set(schema) - _KNOWN
    if unknown:
        raise SchemaKeywordError(f"unsupported JSON Schema keyword(s) {sorted(unknown)} at {format_path(path)}")
    kinds = schema.get("type")
    if kinds is not None:
        options = kinds if isinstance(kinds, list) else [kinds]
        if not any(_type_ok(value, k) for k in options):
            return SchemaError(path, f"expected {' or '.join(options)}, got {json_kind(value)}")
    if "const" in schema and not _same(value, schema["const"]):
        return SchemaError(path, f"expected {json.dumps(schema['const'])}")
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        return SchemaError(path, f"expected one of {', '.join(json.dumps(o) for o in schema['enum'])}")
    if isinstance(value, str):
        if "minLength" in schema and len(value.encode("utf-16-le", "surrogatepass")) // 2 < schema["minLength"]:
            return SchemaError(path, f"expected at least {schema['minLength']} character(s)")
        if "pattern" in schema and not _regex(schema["pattern"]).search(value):
            return SchemaError(path, f"does not match {schema['pattern']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return SchemaError(path, f"expected at least {schema['minItems']} item(s)")
        if schema.get("uniqueItems"):
            for i, item in enumerate(value):
                if any(_same(item, other) for other in value[:i]):
                    return SchemaError((*path, i), "duplicate entries")
        if "items" in schema:
            for i, item in enumerate(value):
                error = first_error(item, schema["items"], (*path, i))
                if error:
                    return error
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return SchemaError((*path, key), "required, missing")
        names = schema.get("propertyNames")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if names is not None:
                error = first_error(key, names, (*path, key))
                if error:
                    return SchemaError(error.path, f"invalid key: {error.message}")
            sub = properties.get(key, extra)
            if sub is False:
                return SchemaError(path, f"unknown key {json.dumps(key)}")
            error = first_error(item, sub, (*path, key))
            if error:
                return error
    if "anyOf" in schema:
        errors = [first_error(value, option, path) for option in schema["anyOf"]]
        if all(errors):
            # The one form whose required keys the value has (a discriminated union) names the inner error.
            fitting = [
                e
                for e, option in zip(errors, schema["anyOf"], strict=True)
                if isinstance(value, dict)
                and isinstance(option, dict)
                and option.get("required")
                and all(k in value for k in option["required"])
            ]
            if len(fitting) == 1 and fitting[0] is not None:
                return fitting[0]
            return SchemaError(path, "matches none of the allowed forms")
    return None
