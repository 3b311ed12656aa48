"""Every spelling a secret can be echoed in, and whether a text holds one: the same definition as the JavaScript
runtime's ``src/redact.ts`` (``secretSpellings``, ``unitSpellings``, ``redactSecrets``), so both runtimes see the same
echoes (held together by ``conformance/vectors/oauth-token-errors.json``). Pure.
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

__all__ = ["PARTIAL_SECRET_MIN", "holds_secret", "secret_spellings"]

PARTIAL_SECRET_MIN = 12
"""The shortest run of a secret's characters that counts as an echo of it when a text holds it cut short: a run this
long that starts (or ends) the secret, in any spelling. A secret no longer than this is matched whole only."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text``, a lone surrogate as U+FFFD (as JavaScript's ``TextEncoder``)."""
    return _SURROGATE.sub("\ufffd", text).encode("utf-8")


def _uri_component(text: str) -> str:
    """``encodeURIComponent``. :raises UnicodeEncodeError: a lone surrogate (JavaScript's throws too)."""
    return quote(text, safe="!'()*-._~")


def _form(text: str) -> str:
    """``application/x-www-form-urlencoded`` as ``URLSearchParams`` writes it: space as ``+``, ``*`` kept."""
    return quote_plus(_utf8(text), safe="*").replace("~", "%7E")


def _json(text: str) -> str:
    """``JSON.stringify`` of ``text`` without its quotes (a lone surrogate as ``\\udxxx``)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False)[1:-1])


def _b64(data: bytes, alphabet: str) -> str:
    """Base64 (padded) or base64url (unpadded, RFC 4648 §5) of ``data``."""
    if alphabet == "base64":
        return base64.b64encode(data).decode("ascii")
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _aligned_cores(data: bytes, alphabet: str) -> list[str]:
    """At each of the three byte alignments, the run of base64 characters that encodes only ``data``'s bytes (so it is
    found inside a longer encoding, such as Basic ``base64(user:password)``)."""
    out = []
    for shift in (0, 1, 2):
        encoded = _b64(b"\0" * shift + data, alphabet)
        out.append(encoded[(0 if shift == 0 else 4) : (shift + len(data)) // 3 * 4])
    return out


def secret_spellings(secret: str) -> list[str]:
    """Every string ``secret`` can be found as in an echo: the value itself; percent-encoded (``encodeURIComponent``,
    and encoded twice), form-encoded, JSON-escaped; base64 and base64url of its UTF-8 bytes, whole and as the run that
    encodes only its bytes at each byte alignment (at least 8 characters); hex of its bytes; the value reversed.
    Derived spellings shorter than 4 characters are left out; the value itself always counts. Case is not part of a
    spelling (:func:`holds_secret` ignores it)."""
    if secret == "":
        return []
    out = {secret: None}

    def add(text: str) -> None:
        if len(text) >= 4:
            out[text] = None

    try:
        percent = _uri_component(secret)
        add(percent)
        add(_uri_component(percent))
        add(percent.replace("%20", "+"))
    except UnicodeEncodeError:
        pass  # a lone surrogate: no percent-encoding of it exists
    add(_form(secret))
    add(_json(secret))
    data = _utf8(secret)
    add(data.hex())
    add(secret[::-1])
    for alphabet in ("base64", "base64url"):
        add(_b64(data, alphabet))
        for core in _aligned_cores(data, alphabet):
            if len(core) >= 8:
                out[core] = None
    return list(out)


def _unit_spellings(secret: str) -> list[tuple[list[str], int]]:
    """The spellings of ``secret`` as sequences of units, each the spelling of a stretch of the secret, with how many
    leading (or trailing) units cover :data:`PARTIAL_SECRET_MIN` of its characters: per character, the value, each
    spelling of :func:`secret_spellings` that maps character by character, and the value reversed; base64 and base64url
    in whole 4-character groups at each byte alignment. Empty for a secret of at most ``PARTIAL_SECRET_MIN``
    characters."""
    if len(secret) <= PARTIAL_SECRET_MIN:
        return []
    per_char = (
        lambda c: c,
        _uri_component,
        lambda c: _uri_component(_uri_component(c)),
        _form,
        lambda c: _uri_component(c).replace("%20", "+"),
        _json,
        lambda c: _utf8(c).hex(),
    )
    out: list[tuple[list[str], int]] = []
    seen: set[tuple[str, ...]] = set()
    for spell in per_char:
        try:
            units = [spell(c) for c in secret]
        except UnicodeEncodeError:
            continue  # a lone surrogate: no percent-encoding of it exists
        if tuple(units) in seen:
            continue
        seen.add(tuple(units))
        out.append((units, PARTIAL_SECRET_MIN))
    out.append((list(secret[::-1]), PARTIAL_SECRET_MIN))
    data = _utf8(secret)
    groups = PARTIAL_SECRET_MIN // 3
    for alphabet in ("base64", "base64url"):
        for core in _aligned_cores(data, alphabet):
            units = [core[i : i + 4] for i in range(0, len(core) - len(core) % 4, 4)]
            if len(units) > groups:
                out.append((units, groups))
    return [(units, least) for units, least in out if len(units) > least]


def _echoes(secrets: tuple[str, ...]) -> list[str]:
    """The lower-cased strings any of which in a text is an echo of one of ``secrets``: every spelling, and the first
    and last :data:`PARTIAL_SECRET_MIN` characters' worth of each unit spelling (a secret cut short)."""
    found = {s.lower(): None for secret in secrets for s in secret_spellings(secret)}
    for secret in secrets:
        for units, least in _unit_spellings(secret):
            found["".join(units[:least]).lower()] = None
            found["".join(units[-least:]).lower()] = None
    return list(found)


def holds_secret(text: str, secrets: list[str] | tuple[str, ...]) -> bool:
    """Whether ``text`` holds one of ``secrets`` in any spelling (:func:`secret_spellings`) or cut short (a run of at
    least :data:`PARTIAL_SECRET_MIN` characters that starts or ends a secret, in any of those spellings), ignoring case:
    exactly what the JavaScript runtime's ``redactSecrets`` would take out."""
    lower = text.lower()
    return any(echo in lower for echo in _echoes(tuple(s for s in secrets if s)))
