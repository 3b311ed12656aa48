"""The manifest ``a2a.json`` as the runtime reads it: checked against the shared manifest schema and the refinements
a JSON Schema cannot state (:mod:`a2a_lock.manifest_rules`), and compared with the lockfile as the CLI's
``manifestMismatches`` does (agents, card locations, settings, originAuth, skills). Pure (the text is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import DuplicateKeyError, parse_json
from .errors import InvalidInputError
from .manifest_rules import first_rule_error, url_as_read
from .origin_auth import origin_of
from .schema import first_error, format_path, manifest_schema

__all__ = ["agent_settings", "manifest_mismatches", "parse_manifest"]

_PROFILE_DEFAULTS: dict[str, Any] = {"sends": [], "streaming": False, "pushEndpoint": None, "extensions": []}


def parse_manifest(text: str, source: str) -> dict[str, Any]:
    """The manifest's JSON value, checked against ``schemas/a2a.schema.json`` and the refinements a JSON Schema cannot
    state (:mod:`a2a_lock.manifest_rules`), with its defaults filled in.

    :raises InvalidInputError: ``manifest-invalid`` naming the JSON path
    """
    try:
        value = parse_json(text)
    except DuplicateKeyError as e:
        raise InvalidInputError("manifest-invalid", source, f"duplicate key {e.key[:60]!r}") from None
    except (ValueError, RecursionError):
        raise InvalidInputError("manifest-invalid", source, "invalid JSON") from None
    error = first_error(value, manifest_schema())
    if error:
        raise InvalidInputError("manifest-invalid", source, error.message, path=format_path(error.path))
    assert isinstance(value, dict)
    # The checks the JSON Schema cannot state (the JavaScript runtime's refinements, src/manifest/rules.ts).
    refused = first_rule_error(value)
    if refused:
        raise InvalidInputError("manifest-invalid", source, refused[1], path=format_path(refused[0]))
    value.setdefault("agents", {})
    for key, default in _PROFILE_DEFAULTS.items():
        value["profile"].setdefault(key, default)
    for entry in value["agents"].values():
        entry.setdefault("skills", [])
        entry.setdefault("credentials", {})
    # A push endpoint is kept as the CLI's reader keeps it (trimmed, no tab or line break): the locked settings say so.
    for profile in (value["profile"], *(e["profile"] for e in value["agents"].values() if "profile" in e)):
        if isinstance(profile.get("pushEndpoint"), str):
            profile["pushEndpoint"] = url_as_read(profile["pushEndpoint"])
    return value


def agent_settings(manifest: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The effective settings of one agent (``AgentSettings``): the top-level profile overridden by the agent's
    own, the credential names held (sorted), and the agent's version range and trust settings."""
    entry = manifest["agents"][name]
    root = manifest["profile"]
    override = entry.get("profile", {})
    out: dict[str, Any] = {
        key: override[key] if key in override else root[key]
        for key in ("bindings", "versions", "accepts", "sends", "streaming", "pushEndpoint", "extensions")
    }
    out["credentials"] = sorted(entry["credentials"])
    if "version" in entry:
        out["versionRange"] = entry["version"]
    if "trust" in entry:
        out["trustJwks"] = entry["trust"]["jwks"]
    for flag in ("requireSignature", "allowHttp", "rebaseInterfaces"):
        if entry.get(flag):
            out[flag] = True
    if "cardPath" in entry:
        out["cardPath"] = entry["cardPath"]
    return out


def _entry_origins(entry: Mapping[str, Any]) -> list[str]:
    urls = [entry.get("resolved")]
    extended = entry.get("extended")
    if isinstance(extended, dict):
        urls.append(extended.get("resolved"))
    for plan in (entry.get("plans") or {}).values():
        if isinstance(plan, dict):
            urls.append(plan.get("url"))
            fallbacks = plan.get("fallbacks")
            if isinstance(fallbacks, dict):
                urls.extend(i.get("url") for i in fallbacks.get("interfaces", []) if isinstance(i, dict))
    origins = {origin_of(u) for u in urls if isinstance(u, str) and u[:8].lower().startswith(("http://", "https://"))}
    return sorted(o for o in origins if o)


def _origin_auth_mismatch(entry: Mapping[str, Any], config: Mapping[str, Any] | None) -> str | None:
    recorded: Mapping[str, Any] = entry.get("originAuth") or {}
    wanted: dict[str, Any] = {}
    if config:
        for origin in sorted({*_entry_origins(entry), *recorded}):
            if origin in config:
                wanted[origin] = config[origin]
    changed = sorted(o for o in {*recorded, *wanted} if recorded.get(o) != wanted.get(o))
    return f"originAuth changed in the manifest for {', '.join(changed)}" if changed else None


def manifest_mismatches(manifest: Mapping[str, Any], lock: Mapping[str, Any]) -> dict[str, list[str]]:
    """Why the lockfile does not satisfy the manifest, per agent name (empty when it does). An entry without a
    string ``card`` and a ``plans`` object is left out (its own schema error comes with its check)."""
    out: dict[str, list[str]] = {}
    agents: Mapping[str, Any] = lock["agents"]
    comparable = {
        n
        for n, e in agents.items()
        if isinstance(e, dict) and isinstance(e.get("card"), str) and isinstance(e.get("plans"), dict)
    }
    for name, entry in manifest["agents"].items():
        if name in agents and name not in comparable:
            continue
        reasons: list[str] = []
        locked = agents.get(name)
        if locked is None:
            out[name] = ["not in the lockfile"]
            continue
        if locked["card"] != entry["card"]:
            reasons.append(f"card changed in the manifest ({locked['card']} → {entry['card']})")
        settings = lock["settings"].get(name)
        if settings is None or settings != agent_settings(manifest, name):
            reasons.append("profile, credentials, version range or trust changed in the manifest")
        origin_auth = _origin_auth_mismatch(locked, manifest.get("originAuth"))
        if origin_auth:
            reasons.append(origin_auth)
        locked_skills = sorted(locked["plans"])
        wanted = sorted(entry["skills"]) if entry["skills"] else ["*"]
        if locked_skills != wanted:
            reasons.append(f"skills changed ({', '.join(locked_skills)} → {', '.join(wanted)})")
        if reasons:
            out[name] = reasons
    for name in agents:
        if name not in manifest["agents"]:
            out.setdefault(name, []).append("no longer in the manifest")
    return out


def describe_mismatches(mismatches: Mapping[str, list[str]]) -> str:
    """``name: reason; reason | name: reason``."""
    return " | ".join(f"{name}: {'; '.join(reasons)}" for name, reasons in mismatches.items())
