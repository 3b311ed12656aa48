"""A locked plan checked against its own snapshot and settings, without network: the plan must be what the
snapshot negotiates with the locked settings, narrowed to the locked choices (the JavaScript ``checkOffline``,
``negotiate(card, skill, settings, { locked })``). The snapshot's integrity covers the card, not the plans: this is
what refuses a plan edited by hand (a delivery, an extension, an output mode, a dropped security requirement).

The rules checked (each as ``negotiate`` decides it): the interface (the card offers the locked URL; the locked
binding and version are in the profile); the security requirement (the first of the skill's, else the card's,
requirements whose schemes the locked credentials hold, scopes included; none listed: no credential); the input
modes take everything the profile sends; the accepted output modes (the locked ones the profile accepts, among the
skill's outputs, in order); the delivery (stream: card and profile stream; push: the card pushes and a push
endpoint is set; else poll); the extensions (the card's, in its order, that the plan and profile list; a required
one missing refuses); the delivery fallback (poll for a stream or push plan). Without the settings' ``allowHttp``,
a plan interface or push endpoint on plain http to a host that is not loopback (``0.0.0.0`` and ``[::]``
included) refuses (``plain-http``) and such a fallback interface is never offered. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urljoin

from .card import card_interfaces
from .proxy import is_cleartext_off_loopback
from .request_check import media_type_key, same_url

__all__ = ["plan_issues"]


def _major_minor(version: str) -> str:
    m = re.match(r"^(\d+)\.(\d+)", version.strip())
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else version


def _requirements(holder: Mapping[str, Any]) -> list[dict[str, list[str]]]:
    raw = holder.get("securityRequirements")
    if not (isinstance(raw, list) and raw):
        legacy = holder.get("security")
        raw = legacy if isinstance(legacy, list) and legacy else []
    out: list[dict[str, list[str]]] = []
    for r in raw:
        if not isinstance(r, dict):
            continue
        schemes = r.get("schemes")
        if isinstance(schemes, dict):
            out.append(
                {k: list((v or {}).get("list") or []) if isinstance(v, dict) else [] for k, v in schemes.items()}
            )
        else:
            out.append({k: list(v or []) for k, v in r.items()})
    return out


def _modes(value: Any) -> list[str]:
    return [m for m in value if isinstance(m, str)] if isinstance(value, list) else []


def plan_issues(entry: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
    """Why the entry's plans are not what its snapshot negotiates with ``settings`` (one reason per skill), or
    ``[]``. ``entry`` and ``settings`` passed the lockfile schema."""
    extended = entry.get("extended")
    card: Mapping[str, Any] = extended["snapshot"] if isinstance(extended, dict) else entry["snapshot"]
    reasons: list[str] = []
    for skill_id, plan in entry["plans"].items():
        refusal, fields = _check(entry, card, settings, skill_id, plan)
        if refusal:
            reasons.append(f'skill "{skill_id}": the snapshot no longer negotiates ({refusal})')
        elif fields:
            reasons.append(
                f'skill "{skill_id}": locked plan differs from the plan its snapshot negotiates ({", ".join(fields)})'
            )
    return reasons


def _card_urls(
    entry: Mapping[str, Any], card: Mapping[str, Any], settings: Mapping[str, Any]
) -> list[tuple[str, Any, Any]]:
    resolved = entry.get("resolved")
    base = resolved if isinstance(resolved, str) and resolved.lower().startswith(("http://", "https://")) else None
    out: list[tuple[str, Any, Any]] = []
    for snapshot in (entry["snapshot"], card):
        for url, binding, version in card_interfaces(snapshot):
            grpc = binding == "GRPC" or re.fullmatch(r"[^/:]+:\d+|\[[^\]]+\]:\d+", url) is not None
            absolute = urljoin(base, url) if base and not grpc else url
            out.append((absolute, binding, version))
            if settings.get("rebaseInterfaces") and base and not grpc:
                from urllib.parse import urlsplit

                parts, origin = urlsplit(absolute), urlsplit(base)
                rebased = f"{origin.scheme}://{origin.netloc}{parts.path}" + (f"?{parts.query}" if parts.query else "")
                out.append((rebased, binding, version))
    return out


def _same_target(a: str, b: str) -> bool:
    strip = re.compile(r"^(grpcs?|https?)://", re.I)
    return same_url(a, b) or strip.sub("", a).rstrip("/") == strip.sub("", b).rstrip("/")


def _check(
    entry: Mapping[str, Any],
    card: Mapping[str, Any],
    settings: Mapping[str, Any],
    skill_id: str,
    plan: Mapping[str, Any],
) -> tuple[str | None, list[str]]:
    fields: list[str] = []
    skills = card.get("skills") if isinstance(card.get("skills"), list) else []
    assert isinstance(skills, list)
    skill: Mapping[str, Any] | None = (
        {} if skill_id == "*" else next((s for s in skills if isinstance(s, dict) and s.get("id") == skill_id), None)
    )
    if skill is None:
        return "skill-not-found", fields
    # Interface: the locked one, in the (narrowed) profile and on the card.
    versions = {_major_minor(v) for v in settings["versions"]}
    if plan["protocolBinding"] not in settings["bindings"] or _major_minor(plan["protocolVersion"]) not in versions:
        return "no-common-interface", fields
    offered = _card_urls(entry, card, settings)
    interfaces = [plan, *((plan.get("fallbacks") or {}).get("interfaces", []))]
    allow_http = settings.get("allowHttp") is True
    for iface in interfaces:
        if not any(
            _same_target(iface["url"], url)
            and (binding is None or binding == iface["protocolBinding"])
            and (version is None or _major_minor(str(version)) == _major_minor(iface["protocolVersion"]))
            for url, binding, version in offered
        ):
            return ("no-common-interface", fields) if iface is plan else (None, ["fallbacks"])
        # Plain http off loopback is no candidate without allowHttp: the plan's interface is refused, a fallback
        # one is never offered (so the locked fallbacks differ).
        if not allow_http and is_cleartext_off_loopback(iface["url"]):
            return ("plain-http", fields) if iface is plan else (None, ["fallbacks"])
    # Security: the first requirement the locked credentials hold.
    requirements = _requirements(skill) or _requirements(card)
    held = {s for s in plan["security"] if s in settings["credentials"]}
    security: dict[str, list[str]] = {}
    if requirements:
        match = next((r for r in requirements if all(s in held for s in r)), None)
        if match is None:
            return "missing-credential", fields
        security = match
    if {k: list(v) for k, v in plan["security"].items()} != security:
        fields.append("security")
    # Modes.
    inputs = _modes(skill.get("inputModes")) or _modes(card.get("defaultInputModes"))
    input_keys = {media_type_key(m) for m in inputs}
    if any(media_type_key(t) not in input_keys for t in settings["sends"]):
        return "input-mode-not-accepted", fields
    outputs = _modes(skill.get("outputModes")) or _modes(card.get("defaultOutputModes"))
    accept_keys = {media_type_key(a) for a in settings["accepts"]}
    wanted = [m for m in plan["acceptedOutputModes"] if media_type_key(m) in accept_keys]
    negotiated: list[str] = []
    for want in wanted:
        theirs = next((o for o in outputs if media_type_key(o) == media_type_key(want)), None)
        if theirs is not None and theirs not in negotiated:
            negotiated.append(theirs)
    if not negotiated:
        return "no-common-output-mode", fields
    if [media_type_key(m) for m in plan["acceptedOutputModes"]] != [media_type_key(m) for m in negotiated]:
        fields.append("acceptedOutputModes")
    # Delivery.
    caps = card.get("capabilities") if isinstance(card.get("capabilities"), dict) else {}
    assert isinstance(caps, dict)
    locked_delivery = plan["delivery"]
    if locked_delivery == "stream" and caps.get("streaming") is True and settings["streaming"] is True:
        delivery = "stream"
    elif locked_delivery == "push" and caps.get("pushNotifications") is True and settings["pushEndpoint"]:
        delivery = "push"
    else:
        delivery = "poll"
    if delivery == "push" and not allow_http and is_cleartext_off_loopback(settings["pushEndpoint"]):
        return "plain-http", fields
    if delivery != locked_delivery:
        fields.append("delivery")
    # Extensions.
    exts = [e for e in (caps.get("extensions") or []) if isinstance(e, dict) and isinstance(e.get("uri"), str)]
    narrowed = [u for u in plan["extensions"] if u in settings["extensions"]]
    if any(e.get("required") and e["uri"] not in narrowed for e in exts):
        return "required-extension-unsupported", fields
    active: list[str] = []
    for e in exts:
        if e["uri"] in narrowed and e["uri"] not in active:
            active.append(e["uri"])
    if list(plan["extensions"]) != active:
        fields.append("extensions")
    # The delivery fallback.
    fallbacks = plan.get("fallbacks")
    delivery_fallback: Sequence[str] = fallbacks["delivery"] if fallbacks else []
    if list(delivery_fallback) != ([] if delivery == "poll" else ["poll"]) and "fallbacks" not in fields:
        fields.append("fallbacks")
    return None, fields
