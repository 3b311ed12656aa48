"""Credentials: where a locked security scheme puts its secret (header, query, cookie), the providers a caller
gives, and the manifest's environment variables. The placement is pure; providers are asked per request.

Secrets never appear in an error message or a ``repr()``: errors name the scheme, the agent and the variable.
"""

from __future__ import annotations

import base64
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote_plus, urlsplit, urlunsplit

from .card import SecurityScheme
from .errors import UsageError

__all__ = [
    "CredentialProvider",
    "CredentialRequest",
    "CredentialsOption",
    "Placement",
    "apply_placements",
    "call_provider",
    "is_header_safe",
    "place_credential",
]

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_COOKIE_FORBIDDEN = re.compile(r'[\x00-\x20\x7f",;\\]')
_HEADER_SAFE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?\Z")
"""What a credential placed as it is in a header or a cookie must be (the JavaScript runtime's ``src/credentials.ts``
holds the same rule): printable ASCII (RFC 9110 §5.5 field-vchar and space; a header cannot carry another character
as it is, and clients disagree on what they send instead), with no leading or trailing space (which a header loses)."""


def is_header_safe(value: str) -> bool:
    """Whether ``value`` may go as it is into a header or a cookie (printable ASCII, no leading or trailing space):
    every credential placement and ``originAuth`` value is held to it before anything is sent."""
    return _HEADER_SAFE.match(value) is not None


@dataclass(frozen=True)
class CredentialRequest:
    """What a credential is asked for: the locked ``agent`` and ``skill`` (``"*"``: the agent-level plan), the
    security ``scheme`` name as the card spells it, the ``scopes`` the locked requirement lists, and the ``origin``
    (``scheme://host[:port]``) the request goes to, as ``credentialDestinations`` spell it: a gRPC interface's is the
    origin its channel is dialled at (``host:port`` over TLS: ``https://host:port``; see
    :func:`a2a_lock.origin_auth.credential_origin_of`)."""

    agent: str
    skill: str
    scheme: str
    scopes: tuple[str, ...]
    origin: str


CredentialProvider = Callable[[CredentialRequest], str | Awaitable[str | None] | None]
"""Returns a credential's secret when a request is made (sync or async); ``None`` or ``""``: it has none, which is
``credential-unset`` with nothing sent (never a fallback to the manifest)."""

CredentialsOption = Mapping[str, Mapping[str, CredentialProvider]] | CredentialProvider
"""``load_lock``'s ``credentials``: ``{agent: {scheme: provider}}``, or one provider for every agent and scheme."""


@dataclass(frozen=True)
class Placement:
    """Where one credential goes: ``headers``, ``query`` parameters and ``cookies`` (each name → value).
    ``repr()`` shows the names only."""

    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Placement(headers={sorted(self.headers)}, query={sorted(self.query)}, cookies={sorted(self.cookies)})"

    def secrets(self) -> list[str]:
        """Every value this placement sends (for redaction)."""
        return [*self.headers.values(), *self.query.values(), *self.cookies.values()]


def place_credential(scheme: SecurityScheme, secret: str, name: str, owner: str | None = None) -> Placement:
    """Where ``secret`` goes for the security ``scheme`` named ``name`` (A2A 1.0 §4.5; OpenAPI security schemes):
    http Bearer → ``Authorization: Bearer``; Basic (``user:password``) → ``Authorization: Basic <base64>``; another
    http scheme → ``Authorization: <scheme> <secret>``; apiKey → its header, query parameter or cookie; oauth2 and
    openIdConnect → ``Authorization: Bearer``. ``owner`` (``agent (skill)``) is named first in messages when given.

    :raises UsageError: an empty secret or one with a control character; a secret placed as it is in a header or
        cookie (Bearer, another http scheme, an apiKey header or cookie, an access token) that is not printable ASCII
        or has a leading or trailing space; mTLS, an unknown scheme type, or a scheme that cannot carry it (the
        message names the owner and the scheme, never the secret)
    """
    what = f'security scheme "{name[:60]}" ({scheme.type})'
    if owner is not None:
        what = f"{owner[:200]}: {what}"

    def fail(message: str) -> UsageError:
        return UsageError(f"{what}: {message}")

    def verbatim() -> None:
        """The secret goes as it is into a header or cookie: printable ASCII, no leading or trailing space."""
        if not is_header_safe(secret):
            raise fail(
                "the credential has a character that is not printable ASCII, or a leading or trailing space, which a "
                "header or cookie cannot carry as it is"
            )

    if scheme.type == "mtls":
        raise fail("mutual TLS needs a client certificate, which cannot be sent in HTTP headers; not supported")
    if not isinstance(secret, str) or secret == "":
        raise fail("the credential is empty")
    if _CONTROL.search(secret):
        raise fail("the credential contains a line break or control character (a trailing newline?)")
    if scheme.type == "http":
        auth = scheme.scheme
        if not isinstance(auth, str) or not _TOKEN.match(auth):
            raise fail("the http scheme name is not a valid HTTP auth-scheme token")
        if auth.lower() == "bearer":
            verbatim()
            return Placement(headers={"Authorization": f"Bearer {secret}"})
        if auth.lower() == "basic":
            if ":" not in secret:
                raise fail('a Basic credential must be "user:password" (no ":" found)')
            return Placement(headers={"Authorization": "Basic " + base64.b64encode(secret.encode()).decode("ascii")})
        verbatim()
        return Placement(headers={"Authorization": f"{auth} {secret}"})
    if scheme.type == "apiKey":
        key = scheme.name
        if not isinstance(key, str) or key == "":
            raise fail("the apiKey has no name")
        location = scheme.location.lower() if isinstance(scheme.location, str) else ""
        if location == "header":
            if not _TOKEN.match(key):
                raise fail("the apiKey name is not a valid HTTP header name")
            verbatim()
            return Placement(headers={key: secret})
        if location == "query":
            return Placement(query={key: secret})
        if location == "cookie":
            if not _TOKEN.match(key):
                raise fail("the apiKey name is not a valid cookie name")
            verbatim()
            if _COOKIE_FORBIDDEN.search(secret):
                raise fail("the credential contains a character a cookie value cannot carry")
            return Placement(cookies={key: secret})
        raise fail(f"apiKey location {str(scheme.location)[:32]!r} is not header, query or cookie")
    if scheme.type in ("oauth2", "openIdConnect"):
        verbatim()
        return Placement(headers={"Authorization": f"Bearer {secret}"})
    raise fail(f"unknown scheme type {scheme.type[:40]!r}")


def apply_placements(
    url: str, headers: list[tuple[str, str]], placements: list[Placement]
) -> tuple[str, list[tuple[str, str]]]:
    """The URL and headers with every placement applied: a placed header replaces the request's own of that name,
    query parameters are set, cookies appended to ``Cookie``.

    :raises UsageError: two credentials need the same header, query parameter or cookie
    """
    out = list(headers)
    seen_headers: set[str] = set()
    seen_query: set[str] = set()
    seen_cookies: set[str] = set()
    cookies: list[str] = []
    query_set: dict[str, str] = {}
    for placement in placements:
        for name, value in placement.headers.items():
            key = name.lower()
            if key in seen_headers:
                raise UsageError(f"two credentials both need the {name} header; one request cannot carry both")
            seen_headers.add(key)
            out = [(n, v) for n, v in out if n.lower() != key]
            out.append((name, value))
        for name, value in placement.query.items():
            if name in seen_query:
                raise UsageError(f'two credentials both need the query parameter "{name[:60]}"')
            seen_query.add(name)
            query_set[name] = value
        for name, value in placement.cookies.items():
            if name in seen_cookies:
                raise UsageError(f'two credentials both need the cookie "{name[:60]}"')
            seen_cookies.add(name)
            cookies.append(f"{name}={value}")
    if query_set:
        parts = urlsplit(url)
        pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in query_set]
        pairs.extend(query_set.items())
        query = "&".join(f"{_form_quote(k)}={_form_quote(v)}" for k, v in pairs)
        url = urlunsplit(parts._replace(query=query))
    if cookies:
        existing = [v for n, v in out if n.lower() == "cookie" and v]
        out = [(n, v) for n, v in out if n.lower() != "cookie"]
        out.append(("Cookie", "; ".join([*existing, *cookies])))
    return url, out


def _form_quote(value: str) -> str:
    """Form-urlencoding as URLSearchParams writes it (the JavaScript runtime's query): ``*`` kept, ``~`` encoded."""
    return quote_plus(value, safe="*").replace("~", "%7E")


async def call_provider(provider: Callable[..., Any], *args: Any) -> Any:
    """Call a sync or async provider and return its value."""
    value = provider(*args)
    if inspect.isawaitable(value):
        value = await value
    return value
