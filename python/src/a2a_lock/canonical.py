"""Canonical JSON and integrity hashes, the same bytes as the CLI's ``src/canonical.ts``.

Canonical JSON: object keys sorted by UTF-16 code unit, arrays in order, no whitespace, strings and numbers
written as JavaScript's ``JSON.stringify`` writes them. The integrity of a card snapshot and the digest of a
lockfile are ``sha256-<base64>`` of that text in UTF-8 (the Subresource Integrity format npm uses).

Numbers are written as JavaScript holds them: an integer beyond 2**53 as the nearest double (what ``JSON.parse``
reads), so a value hashes the same in both runtimes. Pure.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from decimal import Decimal
from typing import Any

__all__ = ["DuplicateKeyError", "canonical_json", "integrity_of", "js_number", "js_stringify", "parse_json"]

_MAX_SAFE = 2**53
_ESCAPE = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (``key``: the name)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {json.dumps(key)[:80]}")
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str) -> Any:
    """Parse JSON text, refusing duplicate keys and ``NaN``/``Infinity`` (as the CLI reads its files). One leading
    UTF-8 byte-order mark (some editors save one) is skipped, as the CLI and npm do.

    :raises ValueError: not JSON (``json.JSONDecodeError``), ``NaN``/``Infinity``, or a duplicate key
        (:class:`DuplicateKeyError`)
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)


def js_number(value: int | float) -> str:
    """The text JavaScript's ``String(n)`` / ``JSON.stringify(n)`` gives a number (ECMA-262 Number::toString).

    :raises ValueError: for NaN and the infinities (no JSON form)
    """
    if isinstance(value, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(value, int) and abs(value) <= _MAX_SAFE:
        return str(value)
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("NaN and Infinity have no JSON form")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    # n: the position of the decimal point relative to the digits (value = 0.digits * 10**n).
    n = exponent + len(digit_tuple)
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _escape_char(match: re.Match[str]) -> str:
    c = match.group(0)
    return _SHORT.get(c) or f"\\u{ord(c):04x}"


def _string(value: str) -> str:
    if not _ESCAPE.search(value):
        return f'"{value}"'
    # A well-formed surrogate pair (from a \\ud83d\\ude00 escape) is one character in JavaScript: kept as is.
    parts: list[str] = []
    last = 0
    for pair in _PAIR.finditer(value):
        parts.append(_ESCAPE.sub(_escape_char, value[last : pair.start()]))
        parts.append(pair.group(0))
        last = pair.end()
    parts.append(_ESCAPE.sub(_escape_char, value[last:]))
    return '"' + "".join(parts) + '"'


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _text(value: Any, out: list[str], sort: bool = True) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(js_number(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _text(item, out, sort)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key) if sort else value):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _text(value[key], out, sort)
        out.append("}")
    else:
        raise TypeError(f"a {type(value).__name__} has no JSON form")


def canonical_json(value: Any) -> str:
    """Canonical JSON text of a JSON value (dict, list, str, int, float, bool, None): sorted keys, no whitespace.

    :raises TypeError: for a value with no JSON form
    """
    out: list[str] = []
    _text(value, out)
    return "".join(out)


def integrity_of(value: Any) -> str:
    """``sha256-<base64>`` over the canonical JSON of ``value`` in UTF-8 (a snapshot's integrity, a lockfile's
    digest)."""
    text = canonical_json(value).encode("utf-8", "surrogatepass")
    return "sha256-" + base64.b64encode(hashlib.sha256(text).digest()).decode("ascii")


def js_stringify(value: Any) -> str:
    """JavaScript's ``JSON.stringify(value)`` of a JSON value: members in their order, no whitespace."""
    out: list[str] = []
    _text(value, out, sort=False)
    return "".join(out)
