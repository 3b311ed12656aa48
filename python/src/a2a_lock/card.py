"""What the runtime reads of a locked card snapshot (A2A 1.0 ProtoJSON or 0.3 JSON): the skill's input modes,
the security schemes (normalised to one shape) and the interfaces it offers. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SecurityScheme", "card_interfaces", "input_modes", "security_schemes"]

_WRAPPERS = {
    "apiKeySecurityScheme": "apiKey",
    "httpAuthSecurityScheme": "http",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mtls",
}


@dataclass(frozen=True)
class SecurityScheme:
    """A card's security scheme in one shape: ``type`` (``http``, ``apiKey``, ``oauth2``, ``openIdConnect``,
    ``mtls``); ``scheme`` (http: ``Bearer``, ``Basic``, …); ``name`` and ``location`` (apiKey: ``header``,
    ``query``, ``cookie``); ``token_url`` (oauth2: the client credentials flow's ``tokenUrl``, if any)."""

    type: str
    scheme: str | None = None
    name: str | None = None
    location: str | None = None
    token_url: str | None = None


def _get(value: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in value:
            return value[name]
    return None


def _token_url(flows: Any) -> str | None:
    if not isinstance(flows, dict):
        return None
    flow = _get(flows, "clientCredentials", "client_credentials")
    if not isinstance(flow, dict):
        return None
    url = _get(flow, "tokenUrl", "token_url")
    return url if isinstance(url, str) and url else None


def _scheme(raw: Any) -> SecurityScheme | None:
    if not isinstance(raw, dict):
        return None
    wrappers = [k for k in _WRAPPERS if k in raw]
    if len(wrappers) == 1:
        kind = _WRAPPERS[wrappers[0]]
        inner = raw[wrappers[0]] if isinstance(raw[wrappers[0]], dict) else {}
    elif not wrappers and isinstance(raw.get("type"), str):
        kind = raw["type"]
        inner = raw
    else:
        return None
    if kind == "http":
        return SecurityScheme("http", scheme=inner.get("scheme"))
    if kind == "apiKey":
        return SecurityScheme("apiKey", name=inner.get("name"), location=_get(inner, "location", "in"))
    if kind == "oauth2":
        return SecurityScheme("oauth2", token_url=_token_url(inner.get("flows")))
    if kind in ("openIdConnect", "mtls"):
        return SecurityScheme(kind)
    return SecurityScheme(kind)


def security_schemes(snapshot: Mapping[str, Any]) -> dict[str, SecurityScheme]:
    """The snapshot's ``securitySchemes``, each normalised; a scheme in no known shape is left out (a plan that
    locks it is refused when its credential is placed)."""
    raw = _get(snapshot, "securitySchemes", "security_schemes")
    out: dict[str, SecurityScheme] = {}
    if isinstance(raw, dict):
        for name, value in raw.items():
            scheme = _scheme(value)
            if scheme is not None:
                out[name] = scheme
    return out


def input_modes(snapshot: Mapping[str, Any], skill: str) -> tuple[str, ...]:
    """The locked skill's input modes (its own, else the card's ``defaultInputModes``); ``*``: the card's."""
    skills = snapshot.get("skills")
    if skill != "*" and isinstance(skills, list):
        for s in skills:
            if isinstance(s, dict) and s.get("id") == skill:
                modes = _get(s, "inputModes", "input_modes")
                if isinstance(modes, list) and modes:
                    return tuple(m for m in modes if isinstance(m, str))
    modes = _get(snapshot, "defaultInputModes", "default_input_modes")
    return tuple(m for m in modes if isinstance(m, str)) if isinstance(modes, list) else ()


def card_interfaces(snapshot: Mapping[str, Any]) -> list[tuple[str, str | None, str | None]]:
    """Every ``(url, binding, version)`` the card offers: 1.0 ``supportedInterfaces``, 0.3 ``url`` with
    ``preferredTransport`` and ``additionalInterfaces`` (version ``None`` where the card gives none)."""
    out: list[tuple[str, str | None, str | None]] = []
    for field in ("supportedInterfaces", "supported_interfaces"):
        items = snapshot.get(field)
        if isinstance(items, list):
            for i in items:
                if isinstance(i, dict) and isinstance(i.get("url"), str):
                    out.append(
                        (
                            i["url"],
                            _get(i, "protocolBinding", "protocol_binding"),
                            _get(i, "protocolVersion", "protocol_version"),
                        )
                    )
    version = snapshot.get("protocolVersion")
    if isinstance(snapshot.get("url"), str):
        out.append(
            (
                snapshot["url"],
                snapshot.get("preferredTransport") or "JSONRPC",
                version if isinstance(version, str) else None,
            )
        )
    extra = _get(snapshot, "additionalInterfaces", "additional_interfaces")
    if isinstance(extra, list):
        for i in extra:
            if isinstance(i, dict) and isinstance(i.get("url"), str):
                out.append((i["url"], i.get("transport"), version if isinstance(version, str) else None))
    return out
