"""The manifest's refinements (``a2a_lock.manifest_rules``): the shared vectors
``conformance/vectors/manifest-rules.json`` (the verdicts of the JavaScript runtime's ``src/manifest/rules.ts``), and
``parse_manifest`` refusing a manifest that fails one, naming its JSON path in the JavaScript runtime's words. The
conformance corpus (``lockfile/manifest-*``) holds the same refusals end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lock import manifest_rules
from a2a_lock.errors import InvalidInputError
from a2a_lock.manifest import parse_manifest

ROOT = Path(__file__).resolve().parents[2]
VECTORS: dict[str, list[dict[str, Any]]] = json.loads(
    (ROOT / "conformance" / "vectors" / "manifest-rules.json").read_text(encoding="utf-8")
)["rules"]

PREDICATES: dict[str, Callable[[str], bool]] = {
    "isOrigin": manifest_rules.is_origin,
    "isTlsOrLoopback": manifest_rules.is_tls_or_loopback,
    "isDestinationPattern": manifest_rules.is_destination_pattern,
    "isTlsOrLoopbackDestination": manifest_rules.is_tls_or_loopback_destination,
    "isCanonicalBinding": manifest_rules.is_canonical_binding,
    "isCardPath": manifest_rules.is_card_path,
    "isNotProto": manifest_rules.is_not_proto,
    "pushEndpoint": manifest_rules.is_http_url,
}


def test_every_rule_has_vectors_both_ways() -> None:
    assert sorted(VECTORS) == sorted(PREDICATES)
    for vectors in VECTORS.values():
        assert any(v["valid"] for v in vectors)
        assert any(not v["valid"] for v in vectors)


@pytest.mark.parametrize(
    ("rule", "vector"),
    [(rule, v) for rule, vectors in VECTORS.items() for v in vectors],
    ids=[f"{rule}-{json.dumps(v['value'])}" for rule, vectors in VECTORS.items() for v in vectors],
)
def test_same_verdict_as_the_javascript_runtime(rule: str, vector: dict[str, Any]) -> None:
    assert PREDICATES[rule](vector["value"]) is vector["valid"]


PROFILE = {"bindings": ["JSONRPC"], "versions": ["1.0"], "accepts": ["text/plain"]}


def refusal(manifest: dict[str, Any]) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as caught:
        parse_manifest(json.dumps(manifest), "a2a.json")
    assert caught.value.code == "manifest-invalid"
    return caught.value


@pytest.mark.parametrize(
    ("extra", "path", "words"),
    [
        (
            {"originAuth": {"http://platform.example.com": {"bearer": {"env": "T"}}}},
            '$.originAuth["http://platform.example.com"]',
            "invalid key: plain http only to a loopback host: a platform credential is never sent in cleartext",
        ),
        (
            {"originAuth": {"https://Platform.example.com": {"bearer": {"env": "T"}}}},
            '$.originAuth["https://Platform.example.com"]',
            "invalid key: must be an origin: https://host[:port] (lower case, no path, no trailing slash)",
        ),
        (
            {"credentialDestinations": ["https://ok.example.com", "http://agents.example.com"]},
            "$.credentialDestinations[1]",
            "plain http only to a loopback host: a credential is never sent in cleartext",
        ),
        (
            {"credentialDestinations": ["https://*.10.0.0.1"]},
            "$.credentialDestinations[0]",
            "must be an origin https://host[:port] or https://*.domain[:port] (lower case, no path, no trailing slash)",
        ),
        (
            {"agents": {"a": {"card": "a.json", "profile": {"bindings": ["HTTP+JSON", "grpc"]}}}},
            "$.agents.a.profile.bindings[1]",
            'core bindings are spelled "JSONRPC", "GRPC", "HTTP+JSON"',
        ),
        (
            {"agents": {"a": {"card": "a.json", "cardPath": "../card.json"}}},
            "$.agents.a.cardPath",
            'must be a path (no scheme, host, query, fragment or "..")',
        ),
        (
            {"agents": {"a": {"card": "a.json", "skills": ["x", "__proto__"]}}},
            "$.agents.a.skills[1]",
            'skill id "__proto__" is not supported',
        ),
        (
            {"agents": {"a": {"card": "a.json", "profile": {"pushEndpoint": "ftp://hooks.example.com/a2a"}}}},
            "$.agents.a.profile.pushEndpoint",
            "Invalid input",
        ),
    ],
)
def test_a_manifest_failing_a_refinement_is_invalid(extra: dict[str, Any], path: str, words: str) -> None:
    error = refusal({"profile": PROFILE, **extra})
    assert error.path == path
    assert str(error).endswith(f"{path}: {words}")


def test_the_top_level_profile_is_checked_too() -> None:
    assert refusal({"profile": {**PROFILE, "bindings": ["jsonrpc"]}}).path == "$.profile.bindings[0]"


def test_a_manifest_passing_every_refinement_loads() -> None:
    manifest = parse_manifest(
        json.dumps(
            {
                "profile": PROFILE,
                "agents": {"a": {"card": "a.json", "cardPath": "", "skills": ["x"], "profile": {"bindings": ["GRPC"]}}},
                "originAuth": {
                    "http://127.0.0.1:8080": {"bearer": {"env": "T"}},
                    "https://p.example.com": {"bearer": {"env": "T"}},
                },
                "credentialDestinations": ["https://*.example.com", "http://localhost:3000"],
            }
        ),
        "a2a.json",
    )
    assert manifest["agents"]["a"]["credentials"] == {}


def test_a_push_endpoint_is_kept_as_the_cli_reads_it() -> None:
    manifest = parse_manifest(
        json.dumps(
            {
                "profile": {**PROFILE, "pushEndpoint": "\thttps://hooks.example.com/a2a\n"},
                "agents": {
                    "a": {"card": "a.json", "profile": {"pushEndpoint": "\u00a0https://hooks.exa\tmple.com/b "}}
                },
            }
        ),
        "a2a.json",
    )
    assert manifest["profile"]["pushEndpoint"] == "https://hooks.example.com/a2a"
    assert manifest["agents"]["a"]["profile"]["pushEndpoint"] == "https://hooks.example.com/b"
