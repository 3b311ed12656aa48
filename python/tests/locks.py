"""Lockfiles for the runtime tests, written as the CLI writes them (snapshot integrity by the canonical form the
shared vectors hold to the CLI's), pointing at loopback recorders."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from a2a_lock.canonical import integrity_of

EXT = "https://example.com/ext/citations/v1"


def snapshot(url: str, *, token_url: str | None = None) -> dict[str, Any]:
    return {
        "name": "Echo",
        "description": "echoes",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": f"{url}/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": f"{url}/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ],
        "capabilities": {"streaming": True, "pushNotifications": True, "extensions": [{"uri": EXT}]},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["application/json", "text/plain"],
        "securitySchemes": {
            "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
            "key": {"apiKeySecurityScheme": {"location": "query", "name": "api_key"}},
            "hkey": {"apiKeySecurityScheme": {"location": "header", "name": "X-Api-Key"}},
            "oauth": {
                "oauth2SecurityScheme": {
                    "flows": {"clientCredentials": {"tokenUrl": token_url or f"{url}/token", "scopes": {"read": "r"}}}
                }
            },
        },
        "skills": [
            {
                "id": "echo",
                "name": "Echo",
                "description": "echo",
                "tags": [],
                "inputModes": ["text/plain", "application/json"],
                "outputModes": ["application/json"],
            }
        ],
    }


def write_lock(
    directory: Path,
    url: str,
    *,
    plan: dict[str, Any] | None = None,
    binding: str = "JSONRPC",
    credentials: dict[str, Any] | None = None,
    push_endpoint: str | None = None,
    origin_auth: dict[str, Any] | None = None,
    token_url: str | None = None,
    manifest: bool = True,
    name: str = "echo",
    allow_http: bool = False,
) -> Path:
    """Write ``a2a.lock.json`` (and a matching ``a2a.json`` unless ``manifest`` is false) into ``directory``."""
    credentials = {"bearer": {"env": "ECHO_TOKEN"}} if credentials is None else credentials
    snap = snapshot(url, token_url=token_url)
    scopes = {scheme: (["read"] if scheme == "oauth" else []) for scheme in credentials}
    if scopes:
        snap["securityRequirements"] = [{"schemes": {k: {"list": v} for k, v in scopes.items()}}]
    locked_plan: dict[str, Any] = {
        "url": f"{url}/a2a/jsonrpc" if binding == "JSONRPC" else f"{url}/a2a/rest",
        "protocolBinding": binding,
        "protocolVersion": "1.0",
        "security": {scheme: (["read"] if scheme == "oauth" else []) for scheme in credentials},
        "acceptedOutputModes": ["application/json"],
        "delivery": "poll",
        "extensions": [EXT],
    }
    locked_plan.update(plan or {})
    if locked_plan["delivery"] != "poll":
        locked_plan.setdefault("fallbacks", {"interfaces": [], "delivery": ["poll"]})
    profile = {
        "bindings": ["JSONRPC", "HTTP+JSON"],
        "versions": ["1.0"],
        "accepts": ["application/json"],
        "sends": ["text/plain"],
        "streaming": False,
        "pushEndpoint": push_endpoint,
        "extensions": [EXT],
    }
    entry: dict[str, Any] = {
        "card": url,
        "resolved": f"{url}/.well-known/agent-card.json",
        "a2aVersion": "1.0",
        "version": "1.0.0",
        "integrity": integrity_of(snap),
        "snapshot": snap,
        "plans": {"echo": locked_plan},
    }
    if origin_auth:
        entry["originAuth"] = origin_auth
    lock = {
        "lockfileVersion": 1,
        "settings": {
            name: {
                **copy.deepcopy(profile),
                "credentials": sorted(credentials),
                **({"allowHttp": True} if allow_http else {}),
            }
        },
        "agents": {name: entry},
    }
    (directory / "a2a.lock.json").write_text(json.dumps(lock, indent=2))
    if manifest:
        doc: dict[str, Any] = {
            "profile": profile,
            "agents": {name: {"card": url, "skills": ["echo"], "credentials": credentials}},
        }
        if allow_http:
            doc["agents"][name]["allowHttp"] = True
        if origin_auth:
            doc["originAuth"] = origin_auth
        (directory / "a2a.json").write_text(json.dumps(doc, indent=2))
    return directory / "a2a.lock.json"


def send_message(
    *, text: str = "hi", method: str = "SendMessage", configuration: Any = None, **extra: Any
) -> dict[str, Any]:
    params: dict[str, Any] = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    if configuration is not None:
        params["configuration"] = configuration
    params.update(extra)
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
