"""What the runtime reads of a locked card snapshot (A2A 1.0 ProtoJSON or 0.3 JSON): the skill's input modes,
the security schemes (normalised to one shape) and the interfaces it offers. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .plan import Plan

__all__ = ["SecurityScheme", "card_interfaces", "input_modes", "narrowed_card", "security_schemes", "shape_for_version"]

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
    ``query``, ``cookie``); ``token_url`` (oauth2: the client credentials flow's ``tokenUrl``, if any); and what a
    narrowed card repeats (``description``, ``bearer_format``, ``flows``, ``oauth2_metadata_url``,
    ``open_id_connect_url``)."""

    type: str
    scheme: str | None = None
    name: str | None = None
    location: str | None = None
    token_url: str | None = None
    description: str | None = None
    bearer_format: str | None = None
    flows: Any = None
    oauth2_metadata_url: str | None = None
    open_id_connect_url: str | None = None


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
    description = inner.get("description") or None
    if kind == "http":
        return SecurityScheme(
            "http",
            scheme=inner.get("scheme"),
            bearer_format=_get(inner, "bearerFormat", "bearer_format") or None,
            description=description,
        )
    if kind == "apiKey":
        return SecurityScheme(
            "apiKey", name=inner.get("name"), location=_get(inner, "location", "in"), description=description
        )
    if kind == "oauth2":
        return SecurityScheme(
            "oauth2",
            token_url=_token_url(inner.get("flows")),
            flows=inner.get("flows"),
            oauth2_metadata_url=_get(inner, "oauth2MetadataUrl", "oauth2_metadata_url") or None,
            description=description,
        )
    if kind == "openIdConnect":
        url = _get(inner, "openIdConnectUrl", "open_id_connect_url")
        return SecurityScheme("openIdConnect", open_id_connect_url=url, description=description)
    if kind in ("mtls", "mutualTLS"):
        return SecurityScheme("mtls", description=description)
    return SecurityScheme(kind, description=description)


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


CardShape = Literal["1.0", "0.3"]


def shape_for_version(header: str | None) -> CardShape:
    """The card shape a request asks for by its ``A2A-Version``: absent, empty or 0.x → ``0.3``; else ``1.0``."""
    v = (header or "").strip()
    return "0.3" if v == "" or (v.startswith("0.") and v[2:3].isdigit()) else "1.0"


def _scheme10(s: SecurityScheme) -> dict[str, Any]:
    d = {"description": s.description} if s.description else {}
    if s.type == "apiKey":
        return {"apiKeySecurityScheme": {"location": s.location, "name": s.name, **d}}
    if s.type == "http":
        bearer = {"bearerFormat": s.bearer_format} if s.bearer_format else {}
        return {"httpAuthSecurityScheme": {"scheme": s.scheme, **bearer, **d}}
    if s.type == "oauth2":
        meta = {"oauth2MetadataUrl": s.oauth2_metadata_url} if s.oauth2_metadata_url else {}
        return {"oauth2SecurityScheme": {"flows": _plain(s.flows), **meta, **d}}
    if s.type == "openIdConnect":
        return {"openIdConnectSecurityScheme": {"openIdConnectUrl": s.open_id_connect_url, **d}}
    return {"mtlsSecurityScheme": {**d}}


def _scheme03(s: SecurityScheme) -> dict[str, Any]:
    d = {"description": s.description} if s.description else {}
    if s.type == "apiKey":
        return {"type": "apiKey", "in": s.location, "name": s.name, **d}
    if s.type == "http":
        bearer = {"bearerFormat": s.bearer_format} if s.bearer_format else {}
        return {"type": "http", "scheme": s.scheme, **bearer, **d}
    if s.type == "oauth2":
        meta = {"oauth2MetadataUrl": s.oauth2_metadata_url} if s.oauth2_metadata_url else {}
        return {"type": "oauth2", "flows": _plain(s.flows), **meta, **d}
    if s.type == "openIdConnect":
        return {"type": "openIdConnect", "openIdConnectUrl": s.open_id_connect_url, **d}
    return {"type": "mutualTLS", **d}


def narrowed_card(
    snapshot: Mapping[str, Any], plan: Plan, skill: str, modes: tuple[str, ...], shape: CardShape
) -> dict[str, Any]:
    """The locked card narrowed to the plan, as the JavaScript runtime's ``narrowedCard`` writes it: only the locked
    interface and its locked fallbacks, ``streaming`` / ``pushNotifications`` as the locked delivery, only the
    locked extensions and security requirement, the locked skill with its locked input modes (``modes``) and
    accepted output modes; ``shape`` ``1.0`` (ProtoJSON) or ``0.3``. A fresh JSON object."""
    interfaces = [plan.interface, *(plan.fallbacks.interfaces if plan.fallbacks else ())]
    ifaces = [
        {
            "url": i.url,
            "protocolBinding": i.protocol_binding,
            "protocolVersion": i.protocol_version,
            **({"tenant": i.tenant} if i.tenant else {}),
        }
        for i in interfaces
    ]
    caps = snapshot.get("capabilities") if isinstance(snapshot.get("capabilities"), Mapping) else {}
    assert isinstance(caps, Mapping)
    raw_extensions = caps.get("extensions") if isinstance(caps.get("extensions"), (list, tuple)) else ()
    assert raw_extensions is not None
    extensions = [
        {
            "uri": e.get("uri"),
            "required": e.get("required") or False,
            **({"description": e["description"]} if e.get("description") else {}),
            **({"params": _plain(e["params"])} if e.get("params") else {}),
        }
        for e in raw_extensions
        if isinstance(e, Mapping) and e.get("uri") in plan.extensions
    ]
    capabilities = {
        "streaming": plan.delivery == "stream",
        "pushNotifications": plan.delivery == "push",
        "extensions": extensions,
    }
    found: Mapping[str, Any] = {}
    skills = snapshot.get("skills")
    if isinstance(skills, (list, tuple)):
        found = next((s for s in skills if isinstance(s, Mapping) and s.get("id") == skill), {})
    examples = found.get("examples")
    locked_skill = {
        "id": skill,
        "name": found.get("name", skill),
        "description": found.get("description", ""),
        "tags": list(found.get("tags") or []),
        **({"examples": list(examples)} if examples else {}),
        "inputModes": list(modes),
        "outputModes": list(plan.accepted_output_modes),
    }
    defined = security_schemes(snapshot)
    schemes = [name for name in plan.security if name in defined]
    common = {
        "name": snapshot.get("name"),
        "description": snapshot.get("description"),
        "version": snapshot.get("version"),
    }
    if shape == "1.0":
        return {
            **common,
            "supportedInterfaces": ifaces,
            "capabilities": {**capabilities, "extendedAgentCard": False},
            "securitySchemes": {name: _scheme10(defined[name]) for name in schemes},
            "securityRequirements": [{"schemes": {name: {"list": list(plan.security[name])} for name in schemes}}]
            if schemes
            else [],
            "defaultInputModes": list(modes),
            "defaultOutputModes": list(plan.accepted_output_modes),
            "skills": [] if skill == "*" else [locked_skill],
        }
    primary, *rest = ifaces
    return {
        **common,
        "protocolVersion": f"{primary['protocolVersion']}.0",
        "url": primary["url"],
        "preferredTransport": primary["protocolBinding"],
        "additionalInterfaces": [{"url": i["url"], "transport": i["protocolBinding"]} for i in rest],
        "capabilities": capabilities,
        "securitySchemes": {name: _scheme03(defined[name]) for name in schemes},
        "security": [{name: list(plan.security[name]) for name in schemes}] if schemes else [],
        "supportsAuthenticatedExtendedCard": False,
        "defaultInputModes": list(modes),
        "defaultOutputModes": list(plan.accepted_output_modes),
        "skills": [] if skill == "*" else [locked_skill],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
