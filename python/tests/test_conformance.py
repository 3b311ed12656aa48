"""The runtime conformance corpus (conformance/README.md) against the Python runtime: every case in
conformance/runtime/<rule>/<name>.json is loaded with ``a2a_lock.load_lock`` and called through
``lock.agent(name, skill).httpx_client()``, against two loopback recorders; the verdict (sent or refused, with its
code), every request the recorders received, and zero bytes on a recorder the case expects nothing on must be what
the case says. test/runtime/conformance.test.ts runs the same files against the JavaScript runtime. Only the
public API is used."""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

import a2a_lock
from loopback import Answer, Received, Recorder

CORPUS = Path(__file__).resolve().parents[2] / "conformance" / "runtime"
DEFAULT_ANSWER: Answer = (200, {"content-type": "application/json"}, b'{"jsonrpc":"2.0","id":1,"result":{}}')


def case_ids() -> list[str]:
    """Every case: ``<rule>/<name>`` below the corpus (fixtures aside)."""
    return sorted(
        f"{path.parent.name}/{path.stem}" for path in CORPUS.glob("*/*.json") if path.parent.name != "fixtures"
    )


def canonical(value: Any) -> str:
    """Canonical JSON as the corpus defines it (keys sorted, no whitespace; the corpus holds no floats)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def integrity(value: Any) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(canonical(value).encode()).digest()).decode()


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """RFC 6902 add / replace / remove, in place (the subset the corpus uses)."""
    for op in ops:
        keys = [k.replace("~1", "/").replace("~0", "~") for k in op["path"].split("/")[1:]]
        last = keys.pop()
        parent = doc
        for k in keys:
            parent = parent[int(k)] if isinstance(parent, list) else parent[k]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(index, op["value"])
            elif op["op"] == "replace":
                parent[index] = op["value"]
            else:
                del parent[index]
        elif op["op"] == "remove":
            del parent[last]
        else:
            if op["op"] == "replace" and last not in parent:
                raise KeyError(op["path"])
            parent[last] = op["value"]
    return doc


def substitute(value: Any, recorder: Recorder, other: Recorder) -> Any:
    """``value`` with ``{{recorder}}``, ``{{other}}`` and ``{{port}}`` substituted in its JSON text."""
    text = (
        json.dumps(value)
        .replace("{{recorder}}", recorder.url)
        .replace("{{other}}", other.url)
        .replace("{{port}}", str(recorder.port))
    )
    return json.loads(text)


def contains(actual: Any, expected: Any) -> bool:
    """Objects: the listed members, recursively; arrays: item by item, same length; else equal."""
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(contains(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    return type(actual) is type(expected) and actual == expected


def secrets_of(case: dict[str, Any]) -> list[str]:
    """The case's secrets: every value of its environment and providers, and every access_token its answers give."""
    o = case.get("options", {})
    values: list[Any] = [
        *o.get("env", {}).values(),
        *(v for schemes in o.get("credentials", {}).values() for v in schemes.values()),
        *([o["credentialsFunction"]] if "credentialsFunction" in o else []),
        *o.get("originAuth", {}).values(),
        *(r["body"].get("access_token") for r in case.get("responses", []) if isinstance(r.get("body"), dict)),
    ]
    return [v for v in values if isinstance(v, str) and len(v.strip()) >= 4]


def answering(answers: list[dict[str, Any]]) -> Any:
    """A recorder script: each request takes the first unused answer whose path (if any) matches, else the default."""

    def answer(request: Received) -> Answer:
        path = urlsplit(request.target).path
        for i, a in enumerate(answers):
            if a.get("path") is None or a["path"] == path:
                del answers[i]
                body = b"" if "body" not in a else json.dumps(a["body"]).encode()
                return a["status"], dict(a.get("headers", {})), body
        return DEFAULT_ANSWER

    return answer


def provider(template: str) -> a2a_lock.CredentialProvider:
    """A credentials provider returning ``template`` with ``{agent}``, ``{skill}``, ``{scheme}``, ``{scopes}``
    (space-separated) and ``{origin}`` filled from what it is asked."""

    def ask(request: a2a_lock.CredentialRequest) -> str:
        return (
            template.replace("{agent}", request.agent)
            .replace("{skill}", request.skill)
            .replace("{scheme}", request.scheme)
            .replace("{scopes}", " ".join(request.scopes))
            .replace("{origin}", request.origin)
        )

    return ask


def load_options(case: dict[str, Any], directory: Path, recorder: Recorder, other: Recorder) -> dict[str, Any]:
    """Write the case's lockfile (and manifest) into ``directory``; the keyword arguments of ``load_lock``."""
    fixture = CORPUS / "fixtures" / case["fixture"] if "fixture" in case else None

    def read(name: str) -> Any:
        path = fixture / name if fixture else None
        return json.loads(path.read_text()) if path and path.exists() else None

    lock = copy.deepcopy(case["lockfile"] if "lockfile" in case else read("a2a.lock.json"))
    manifest = copy.deepcopy(case["manifest"] if "manifest" in case else read("a2a.json"))
    patch = case.get("patch", {})
    if "lockfile" in patch:
        lock = apply_patch(lock, patch["lockfile"])
    if "manifest" in patch:
        manifest = apply_patch(manifest, patch["manifest"])
    lock = substitute(lock, recorder, other)
    manifest = substitute(manifest, recorder, other)
    if isinstance(lock, str):
        lock_text = lock
    else:
        agents = lock.get("agents") if isinstance(lock, dict) else None
        if isinstance(agents, dict):
            for entry in agents.values():
                if isinstance(entry, dict) and entry.get("integrity") == "{{integrity}}":
                    entry["integrity"] = integrity(entry.get("snapshot"))
        lock_text = json.dumps(lock, indent=2) + "\n"
    lockfile = directory / "a2a.lock.json"
    lockfile.write_text(lock_text)
    if manifest is not None:
        (directory / "a2a.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest, indent=2))
    options = substitute(case.get("options", {}), recorder, other)
    kwargs: dict[str, Any] = {"env": dict(options.get("env", {}))}
    if "credentials" in options:
        kwargs["credentials"] = {
            agent: {scheme: provider(value) for scheme, value in schemes.items()}
            for agent, schemes in options["credentials"].items()
        }
    if "credentialsFunction" in options:
        kwargs["credentials"] = provider(options["credentialsFunction"])
    if "originAuth" in options:
        kwargs["origin_auth"] = {origin: (lambda v=value: v) for origin, value in options["originAuth"].items()}
    if "expectDigest" in options:
        digest = options["expectDigest"]
        kwargs["expect_digest"] = integrity(json.loads(lock_text)) if digest == "{{digest}}" else digest
    return {"lockfile": lockfile, **kwargs}


async def run(
    case: dict[str, Any], options: dict[str, Any], recorder: Recorder, other: Recorder
) -> tuple[httpx.Response | None, Exception | None]:
    """What the Python runtime did: (the answer, None) or (None, the exception)."""
    request = substitute(case["request"], recorder, other)
    if "bodyText" in request:
        content: bytes | None = request["bodyText"].encode()
    elif "body" in request:
        content = json.dumps(request["body"], separators=(",", ":")).encode()
    else:
        content = None
    try:
        lock = a2a_lock.load_lock(options.pop("lockfile"), **options)
        agent = lock.agent(case["agent"], case["skill"]) if "skill" in case else lock.agent(case["agent"])
        async with agent.httpx_client() as client:
            response = await client.request(
                request["method"], request["url"], headers=list(request.get("headers", {}).items()), content=content
            )
            await response.aread()
        return response, None
    except Exception as error:
        return None, error


@pytest.fixture(scope="module")
def recorders() -> Iterator[tuple[Recorder, Recorder]]:
    recorder, other = Recorder().start(), Recorder().start()
    yield recorder, other
    recorder.stop()
    other.stop()


@pytest.mark.parametrize("case_id", case_ids())
async def test_conformance(case_id: str, recorders: tuple[Recorder, Recorder], tmp_path: Path) -> None:
    recorder, other = recorders
    case = json.loads((CORPUS / f"{case_id}.json").read_text())
    assert case["id"] == case_id
    for r in (recorder, other):
        r.requests.clear()
        r.bytes_received = 0
    answers = substitute(case.get("responses", []), recorder, other)
    recorder.answer = answering([a for a in answers if a.get("recorder", "recorder") == "recorder"])
    other.answer = answering([a for a in answers if a.get("recorder") == "other"])
    options = load_options(case, tmp_path, recorder, other)
    answer, error = await run(case, options, recorder, other)
    await asyncio.sleep(0.005)  # anything still on its way lands now
    code = getattr(error, "code", None) if error is not None else None
    if error is not None and not isinstance(code, str):
        code = f"(no code: {type(error).__name__}: {error})"
    # Answered: sent when a recorder received anything, else served (made from the lockfile).
    verdict = "refused" if answer is None else "sent" if recorder.bytes_received + other.bytes_received else "served"
    expected = case["expect"]
    assert (verdict, code) == (expected["verdict"], expected.get("code")), str(error)
    if error is not None:  # a refusal never quotes a secret of the case, in any case (conformance/README.md, "Secrets")
        for secret in secrets_of(case):
            assert secret.lower() not in str(error).lower(), f"the error quotes {secret!r}"
    response = substitute(expected.get("response"), recorder, other)
    if response is not None and answer is not None:
        if "status" in response:
            assert answer.status_code == response["status"], "answer status"
        for header, value in response.get("headers", {}).items():
            assert answer.headers.get(header) == value, f"answer header {header}"
        if "body" in response:
            assert contains(json.loads(answer.content), response["body"]), f"answer body {answer.content!r}"
    wanted = substitute(expected["requests"], recorder, other)
    for name, r in (("recorder", recorder), ("other", other)):
        mine = [e for e in wanted if e.get("recorder", "recorder") == name]
        assert [f"{q.method} {q.target}" for q in r.requests] == [f"{e['method']} {e['url']}" for e in mine], name
        for i, (q, e) in enumerate(zip(r.requests, mine, strict=True)):
            for header, value in e.get("headers", {}).items():
                assert q.header(header) == value, f"{name} request {i} header {header}"
            if "body" in e:
                assert contains(json.loads(q.body), e["body"]), f"{name} request {i} body {q.body!r}"
            if "form" in e:
                form = dict(parse_qsl(q.body.decode()))
                assert {k: form.get(k) for k in e["form"]} == e["form"], f"{name} request {i} form"
        if not mine:
            assert r.bytes_received == 0, f"bytes on {name}"
