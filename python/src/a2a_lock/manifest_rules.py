"""The manifest's refinements: the checks of ``a2a.json`` that its JSON Schema cannot state, the same named
predicates as the JavaScript runtime's ``src/manifest/rules.ts`` (in snake_case), and :func:`first_rule_error`, which
applies them where the zod schema (``src/manifest/schema.ts``) does, with the one zod check the JSON Schema states only
as an annotation (a profile's ``pushEndpoint``, ``z.url``: :func:`is_http_url`). Run after the schema check: the value
has the schema's shape. Pure.

Not here: ``isSemverRange`` (an agent's ``version``, npm's range grammar), for want of a Python package that reads
ranges exactly as npm's ``semver`` does; ``isNotWildcard`` and ``isNonEmpty``/``hasNoRepeats``, which the schema's
media type ``pattern``, ``minItems`` and ``uniqueItems`` already enforce.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from .origin_auth import origin_of
from .proxy import _whatwg_ipv4, is_loopback_host

__all__ = [
    "first_rule_error",
    "is_canonical_binding",
    "is_card_path",
    "is_destination_pattern",
    "is_http_url",
    "is_not_proto",
    "is_origin",
    "is_tls_or_loopback",
    "is_tls_or_loopback_destination",
    "url_as_read",
]

CORE_BINDINGS = ("JSONRPC", "GRPC", "HTTP+JSON")
"""The A2A core protocol bindings, spelled canonically (``CORE_BINDINGS`` of ``src/card/model.ts``)."""

# Code points the WHATWG URL parser refuses in a domain (the forbidden domain code points), or changes (%, upper case).
_NOT_PRINTED = re.compile(r"[\x00-\x20\x7f#%/:<>?@\[\\\]^|A-Z]")
_CARD_PATH_NOT = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//|[#?\\]|(?:^|/)\.\.(?:/|\Z)")
_DESTINATION = re.compile(r"(https?)://(\*\.)?([^/?#*]*)\Z")
_ENDS_IN_NUMBER = re.compile(r"(?:[0-9]+|0[xX][0-9a-fA-F]*)\Z")


def _printed_host(host: str) -> bool:
    """True when ``host`` is spelled as the WHATWG URL parser prints it: an IPv6 address compressed, in brackets;
    an IPv4 address as a dotted quad; a name in lower-case ASCII (an internationalised name in its ``xn--`` form,
    which must decode)."""
    if host.startswith("["):
        try:
            return host == f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]" and "%" not in host
        except ValueError:
            return False
    if not host.isascii() or _NOT_PRINTED.search(host):
        return False
    return _domain_ok(host, printed=True)


def is_origin(value: str) -> bool:
    """An origin ``scheme://host[:port]`` (http or https) exactly as a URL parser prints it: lower case, no default
    port, no userinfo, path, query or trailing slash (``isOrigin``)."""
    if not value.startswith(("http://", "https://")) or origin_of(value) != value:
        return False
    host = value.split("://", 1)[1]
    host = host.rsplit(":", 1)[0] if re.search(r":[0-9]+\Z", host) else host
    return _printed_host(host)


def is_tls_or_loopback(value: str) -> bool:
    """Not plain http, unless to a loopback host: a platform credential is never sent in cleartext
    (``isTlsOrLoopback``; ``value`` is an origin)."""
    if not value.startswith("http:"):
        return True
    try:
        host = urlsplit(value).hostname
    except ValueError:
        return True
    return host is None or is_loopback_host(host)


def _parse_destination(entry: str) -> tuple[str, bool] | None:
    """The origin a ``credentialDestinations`` entry names, its ``*.`` spelled as one label ``x.``, and whether it had
    one; None when it is not an origin (``parseDestination`` of ``src/manifest/credential-destinations.ts``)."""
    m = _DESTINATION.match(entry)
    if not m:
        return None
    wildcard = m.group(2) is not None
    candidate = f"{m.group(1)}://{'x.' if wildcard else ''}{m.group(3)}"
    return (candidate, wildcard) if is_origin(candidate) else None


def _host_of(origin: str) -> str:
    return urlsplit(origin).hostname or ""


def is_destination_pattern(entry: str) -> bool:
    """A well-formed ``credentialDestinations`` entry: an origin as a URL parser prints it, its host optionally opened
    by ``*.`` (then not an IP address) (``isDestinationPattern``)."""
    parsed = _parse_destination(entry)
    if parsed is None:
        return False
    origin, wildcard = parsed
    return not wildcard or re.fullmatch(r"[0-9.]+", _host_of(origin)[2:]) is None


def is_tls_or_loopback_destination(entry: str) -> bool:
    """A ``credentialDestinations`` entry that is not plain http, unless to a loopback host (not a wildcard): a
    credential never crosses the network in cleartext (``isTlsOrLoopbackDestination``)."""
    parsed = _parse_destination(entry)
    if parsed is None or not entry.startswith("http:"):
        return True
    origin, wildcard = parsed
    return not wildcard and is_loopback_host(_host_of(origin))


# ECMAScript's white space and line terminators (what String.prototype.trim removes).
_JS_WHITE_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# The forbidden domain code points of the WHATWG URL standard.
_FORBIDDEN_DOMAIN = re.compile(r"[\x00-\x20\x7f#%/:<>?@\[\\\]^|]")


def _parsed_host(host: str) -> bool:
    """True when the WHATWG URL parser reads ``host`` (of a special URL, as written) as a host: an IPv6 address in
    brackets, else (percent-decoded) a domain with no forbidden code point whose last label, when it is a number, makes
    an IPv4 address. A non-ASCII domain is taken as the parser's IDNA step would take it, unless it holds U+FFFD."""
    if host.startswith("["):
        if not host.endswith("]") or "%" in host:
            return False
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    if re.search(r"%(?![0-9A-Fa-f]{2})", host) is None:
        host = unquote_to_bytes(host).decode("utf-8", "replace")
    if not host or "\ufffd" in host or _FORBIDDEN_DOMAIN.search(host):
        return False
    if not host.isascii():
        return True
    return _domain_ok(host.lower(), printed=False)


def _domain_ok(host: str, *, printed: bool) -> bool:
    """An ASCII domain (lower case) the WHATWG URL parser takes: one whose last label is a number is an IPv4
    address (spelled as the parser prints it, when ``printed``); every other one's ``xn--`` labels decode."""
    labels = host.split(".")
    last = labels[-2] if labels[-1] == "" and len(labels) > 1 else labels[-1]
    if _ENDS_IN_NUMBER.fullmatch(last):
        ipv4 = _whatwg_ipv4(host)
        return ipv4 == host if printed else ipv4 is not None
    return all(not label.startswith("xn--") or _punycode_ok(label) for label in labels)


def _punycode_ok(label: str) -> bool:
    try:
        return bool(label[4:].encode("ascii").decode("punycode"))
    except UnicodeError:
        return False


def url_as_read(value: str) -> str:
    """A URL string as the zod schema keeps it (``z.url``): trimmed of white space, without tabs and line breaks."""
    return re.sub(r"[\t\n\r]", "", value.strip(_JS_WHITE_SPACE))


def is_http_url(value: str) -> bool:
    """An http(s) URL a URL parser reads, as the zod schema's ``z.url({protocol: /^https?$/})`` checks a profile's
    ``pushEndpoint``: trimmed, it starts with ``http://`` or ``https://`` (any case) and has a host (see
    :func:`_parsed_host`) and a port of at most 65535. Tabs and line breaks are dropped, as the parser drops them."""
    value = url_as_read(value)
    m = re.match(r"https?://", value, re.IGNORECASE)
    if not m:
        return False
    # Further slashes (and backslashes) before the authority are skipped; it ends at the path, query or fragment.
    authority = re.split(r"[/\\?#]", value[m.end() :].lstrip("/\\"), maxsplit=1)[0]
    host_port = authority.rsplit("@", 1)[-1]
    bracket = host_port.find("]") if host_port.startswith("[") else -1
    split_at = host_port.find(":", bracket + 1) if bracket >= 0 or not host_port.startswith("[") else -1
    host, port = (host_port[:split_at], host_port[split_at + 1 :]) if split_at >= 0 else (host_port, "")
    if bracket >= 0 and host != host_port[: bracket + 1]:
        return False
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        return False
    return _parsed_host(host)


def is_canonical_binding(binding: str) -> bool:
    """A core binding spelled canonically (``JSONRPC``, not ``jsonrpc``), or a binding that is not a core one
    (``isCanonicalBinding``)."""
    return not any(core != binding and core.lower() == binding.lower() for core in CORE_BINDINGS)


def is_card_path(path: str) -> bool:
    """A path only: no scheme, host, query, fragment or ``..`` segment (``isCardPath``)."""
    return _CARD_PATH_NOT.search(path) is None


def is_not_proto(skill_id: str) -> bool:
    """Not ``__proto__`` (a skill id keys the lockfile's plans, where ``__proto__`` would not survive)
    (``isNotProto``)."""
    return skill_id != "__proto__"


_ORIGIN = "must be an origin: https://host[:port] (lower case, no path, no trailing slash)"
_ORIGIN_CLEARTEXT = "plain http only to a loopback host: a platform credential is never sent in cleartext"
_DESTINATION_SHAPE = (
    "must be an origin https://host[:port] or https://*.domain[:port] (lower case, no path, no trailing slash)"
)
_DESTINATION_CLEARTEXT = "plain http only to a loopback host: a credential is never sent in cleartext"
_BINDING = "core bindings are spelled " + ", ".join(f'"{b}"' for b in CORE_BINDINGS)
_CARD_PATH = 'must be a path (no scheme, host, query, fragment or "..")'
_PROTO = 'skill id "__proto__" is not supported'
_PUSH_ENDPOINT = "Invalid input"

_Issue = tuple[tuple[str | int, ...], str]


def _profile_issues(profile: Mapping[str, Any], path: tuple[str | int, ...]) -> Iterator[_Issue]:
    for i, binding in enumerate(profile.get("bindings", [])):
        if not is_canonical_binding(binding):
            yield (*path, "bindings", i), _BINDING
    endpoint = profile.get("pushEndpoint")
    if isinstance(endpoint, str) and not is_http_url(endpoint):
        yield (*path, "pushEndpoint"), _PUSH_ENDPOINT


def _agent_issues(name: str, entry: Mapping[str, Any]) -> Iterator[_Issue]:
    path: tuple[str | int, ...] = ("agents", name)
    for i, skill in enumerate(entry.get("skills", [])):
        if not is_not_proto(skill):
            yield (*path, "skills", i), _PROTO
    if "profile" in entry:
        yield from _profile_issues(entry["profile"], (*path, "profile"))
    if "cardPath" in entry and not is_card_path(entry["cardPath"]):
        yield (*path, "cardPath"), _CARD_PATH


def _issues(manifest: Mapping[str, Any]) -> Iterator[_Issue]:
    yield from _profile_issues(manifest["profile"], ("profile",))
    for name, entry in manifest.get("agents", {}).items():
        yield from _agent_issues(name, entry)
    for origin in manifest.get("originAuth", {}):
        if not is_origin(origin):
            yield ("originAuth", origin), f"invalid key: {_ORIGIN}"
        elif not is_tls_or_loopback(origin):
            yield ("originAuth", origin), f"invalid key: {_ORIGIN_CLEARTEXT}"
    for i, entry in enumerate(manifest.get("credentialDestinations", [])):
        if not is_destination_pattern(entry):
            yield ("credentialDestinations", i), _DESTINATION_SHAPE
        elif not is_tls_or_loopback_destination(entry):
            yield ("credentialDestinations", i), _DESTINATION_CLEARTEXT


def first_rule_error(manifest: Mapping[str, Any]) -> tuple[tuple[str | int, ...], str] | None:
    """The first refinement ``manifest`` (a value valid against the manifest's JSON Schema) fails, as its JSON path
    parts and message (the JavaScript runtime's words), else None."""
    return next(_issues(manifest), None)
