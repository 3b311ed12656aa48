"""Which way a request goes: directly, through the environment's proxy, or not at all. Pure (``env`` is given).

httpx ignores ``HTTPS_PROXY`` / ``HTTP_PROXY`` once a custom transport is set, so the loader applies them itself,
with the CLI's rule (undici's ``EnvHttpProxyAgent``, plus what a2a-lock adds):

- a loopback host (``localhost``, 127.0.0.0/8, ``::1``) is never proxied; an IPv4 host is read as the WHATWG URL
  parser reads it (``0x7f.1`` is 127.0.0.1);
- an ``http`` URL uses ``http_proxy``, else ``HTTP_PROXY``; an ``https`` URL ``https_proxy``, else ``HTTPS_PROXY``,
  else the ``http`` one (a lower-case variable that is set wins, even empty; empty means none);
- ``no_proxy`` (when set, even empty), else ``NO_PROXY``: entries separated by commas or spaces; ``*`` matches
  every host; a domain (with or without a leading ``.`` or ``*.``) matches itself and its subdomains; an IP literal
  matches that address; a CIDR range (``10.0.0.0/8``, ``fd00::/8``) matches addresses in it; ``host:port``
  (``[v6]:port``) only that port;
- a proxy variable that is not an ``http://`` or ``https://`` URL refuses every request it would carry (named, its
  value never quoted); a request it would not carry (loopback, ``NO_PROXY``, the other scheme) goes as it would;
- a credential never goes through a proxy in cleartext: an ``http`` request that carries one and would be proxied
  is refused, naming the variable (nothing is sent).

The shared vectors ``conformance/vectors/proxy.json`` are the rule's definition: this module and the JavaScript one
(``src/http/proxy-rule.ts``) are both tested against every vector.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

__all__ = [
    "PROXY_VARIABLES",
    "ProxyRoute",
    "is_cleartext_off_loopback",
    "is_loopback_host",
    "proxy_environment",
    "proxy_route",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class ProxyRoute:
    """The way of one request: ``kind`` ``direct``, ``proxy`` (``proxy`` is the proxy URL, ``variable`` the
    variable it came from) or ``refuse`` (``variable`` names the variable at fault, ``reason`` says why)."""

    kind: Literal["direct", "proxy", "refuse"]
    proxy: str | None = None
    variable: str | None = None
    reason: str | None = None


DIRECT = ProxyRoute("direct")


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _whatwg_ipv4(host: str) -> str | None:
    """``host`` as the WHATWG URL parser reads an IPv4 address (what the JavaScript runtime sees, and what the
    resolver contacts): 1 to 4 parts, each decimal, ``0x`` hex or ``0``-led octal, the last filling the remaining
    bytes (``0x7f.1`` is 127.0.0.1, ``2130706433`` too), as a dotted quad; None when it is not one."""
    labels = host.split(".")
    if labels and labels[-1] == "" and len(labels) > 1:
        labels = labels[:-1]
    if not 1 <= len(labels) <= 4:
        return None
    numbers: list[int] = []
    for label in labels:
        if re.fullmatch(r"0[xX][0-9a-fA-F]*", label):
            numbers.append(int(label[2:] or "0", 16))
        elif re.fullmatch(r"0[0-7]+", label):
            numbers.append(int(label, 8))
        elif re.fullmatch(r"0|[1-9][0-9]*", label):
            numbers.append(int(label))
        else:
            return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))
    return str(ipaddress.IPv4Address(value))


def is_loopback_host(host: str) -> bool:
    """``localhost``, 127.0.0.0/8 (in any spelling the WHATWG URL parser reads: ``0x7f.1``), ``::1`` and
    IPv4-mapped loopback. A name under ``.localhost`` is not pinned to loopback (as in the JavaScript runtime)."""
    h = host.strip("[]").lower().rstrip(".")
    h = _whatwg_ipv4(h) or h
    if h == "localhost":
        return True
    ip = _ip(h)
    if ip is None:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def is_cleartext_off_loopback(url: str) -> bool:
    """True for a plain-http URL (``http:``, or gRPC's plaintext ``grpc:``) to a host that is not loopback
    (:func:`is_loopback_host`; ``0.0.0.0`` and ``[::]`` are not): a request there crosses the network in
    cleartext. The JavaScript runtime's ``isCleartextOffLoopback``; a URL that does not parse is not plain http
    to anywhere (False: the interface check refuses it)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "grpc") and not is_loopback_host(host)


PROXY_VARIABLES = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY")
"""The variables the proxy rule reads (the proxies and ``NO_PROXY``, either case)."""


def proxy_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The proxy rule's variables of ``environ`` as they are now (a copy). The loader takes them from the process
    environment when the lockfile is loaded (as the JavaScript ``loadLock`` does), never from its ``env`` option,
    which is where credential variables are read."""
    return {name: environ[name] for name in PROXY_VARIABLES if name in environ}


def _variable(env: Mapping[str, str], lower: str) -> tuple[str, str] | None:
    for name in (lower, lower.upper()):
        if name in env:
            value = env[name]
            return (name, value) if value else None
    return None


def _entry_matches(entry: str, host: str, port: int) -> bool:
    entry = entry.strip().lower()
    if not entry:
        return False
    if entry == "*":
        return True
    entry_port: int | None = None
    bracket = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?", entry)
    if bracket:
        entry, entry_port = bracket.group(1), int(bracket.group(2)) if bracket.group(2) else None
    else:
        with_port = re.fullmatch(r"([^:]+):(\d+)", entry)
        if with_port:
            entry, entry_port = with_port.group(1), int(with_port.group(2))
    if entry_port is not None and entry_port != port:
        return False
    host_ip = _ip(host)
    if "/" in entry:
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return False
        return host_ip is not None and host_ip.version == network.version and host_ip in network
    entry_ip = _ip(entry)
    if entry_ip is not None or host_ip is not None:
        return entry_ip is not None and host_ip is not None and entry_ip == host_ip
    entry = re.sub(r"^\*?\.", "", entry).rstrip(".")
    name = host.rstrip(".")
    return name == entry or name.endswith("." + entry)


@functools.lru_cache(maxsize=1024)
def _target(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a URL the environment may route through a proxy; ``None`` for one that always
    goes direct (malformed, not http(s), no host, loopback). Depends on the URL alone, so it is computed once per
    URL (the environment is still read on every request)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        host = _whatwg_ipv4(host) or host
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 0)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not host or is_loopback_host(host):
        return None
    return scheme, host, port


def proxy_route(env: Mapping[str, str], url: str, *, credential: bool = False) -> ProxyRoute:
    """The way a request to ``url`` goes under ``env`` (see the module comment). ``credential``: the request
    carries a credential (the plan's or an ``originAuth`` one). Never raises; a malformed ``url`` is direct (the
    request check refuses it before)."""
    target = _target(url)
    if target is None:
        return DIRECT
    scheme, host, port = target
    chosen = (
        _variable(env, "http_proxy")
        if scheme == "http"
        else (_variable(env, "https_proxy") or _variable(env, "http_proxy"))
    )
    if chosen is None:
        return DIRECT
    name, value = chosen
    no_proxy = _variable(env, "no_proxy")
    if no_proxy is not None and any(_entry_matches(e, host, port) for e in re.split(r"[,\s]", no_proxy[1])):
        return DIRECT
    try:
        proxy = urlsplit(value)
        valid = proxy.scheme.lower() in ("http", "https") and bool(proxy.hostname)
        _ = proxy.port
    except ValueError:
        valid = False
    if not valid:
        return ProxyRoute("refuse", variable=name, reason=f"{name} is set but is not an http:// or https:// proxy URL")
    if credential and scheme == "http":
        return ProxyRoute(
            "refuse",
            variable=name,
            reason=f"a credential is never sent through a proxy in cleartext ({name} would carry this http request)",
        )
    return ProxyRoute("proxy", proxy=value, variable=name)
