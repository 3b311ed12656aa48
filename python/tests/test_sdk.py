"""a2a_lock.sdk against real a2a-sdk 1.3 servers (test/python/sdk_agent.py) and the JS SDK agents
(scripts/agents.js), with lockfiles written by the built CLI: ``card()`` is the locked snapshot narrowed to the
locked interface; ``create_client()`` is an a2a-sdk ``Client`` on exactly the plan (binding, version, delivery,
output modes, extensions, credential); calls outside the plan are refused with ``plan-violation`` before a byte
is sent, and recorded in ``Lock.refusals``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types.a2a_pb2 import (
    GetExtendedAgentCardRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
)

from a2a_lock import PlanViolationError, load_lock
from sdk_peers import PROFILE, Peer, js_agent, lock_project, sdk_agent

TOKEN = "py-bearer-T0ken"


def message(text: str) -> SendMessageRequest:
    parts = [Part(text=text)]
    return SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=parts))


async def reply(client: Any, text: str) -> list[str]:
    out: list[str] = []
    async for event in client.send_message(message(text)):
        if event.HasField("message"):
            out.extend(p.text for p in event.message.parts)
        elif event.HasField("task"):
            for artifact in event.task.artifacts:
                out.extend(p.text for p in artifact.parts)
    return out


def posts(peer: Peer) -> list[dict[str, Any]]:
    """What the agent received, card fetches (by the CLI's lock) left out."""
    return [r for r in peer.seen() if not r["path"].startswith("/.well-known/")]


@pytest.fixture(scope="module")
def compat() -> Iterator[Peer]:
    """JSON-RPC and HTTP+JSON, each at 1.0 and 0.3 (the card lists the 1.0 interfaces first)."""
    with sdk_agent(compat=True, bindings=["JSONRPC", "HTTP+JSON"], versionField=True) as peer:
        yield peer


@pytest.fixture(scope="module")
def gated() -> Iterator[Peer]:
    """A bearer-gated agent with an authenticated extended card."""
    with sdk_agent(token=TOKEN, extended=True, versionField=True) as peer:
        yield peer


def locked(tmp_path: Path, peer: Peer, profile: dict[str, Any], **agent: Any) -> Any:
    lock_project(tmp_path, {"profile": {**PROFILE, **profile}, "agents": {"py": {"card": peer.origin, **agent}}})
    return load_lock(tmp_path / "a2a.lock.json", env={})


def test_card_holds_the_locked_interface_only(tmp_path: Path, compat: Peer) -> None:
    lock = locked(tmp_path, compat, {"versions": ["0.3"], "bindings": ["HTTP+JSON"]}, skills=["market-size"])
    agent = lock.agent("py", "market-size")
    card = agent.card()
    assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        (f"{compat.origin}/a2a/rest", "HTTP+JSON", "0.3")
    ]
    assert not card.capabilities.push_notifications
    assert [s.id for s in card.skills] == ["market-size"]
    # The snapshot itself offers four interfaces, and a2a-sdk's own factory upgrades to a 1.0 one.
    full = parse_agent_card(agent.snapshot_json())
    assert len(full.supported_interfaces) == 4
    chosen = ClientFactory(ClientConfig(supported_protocol_bindings=["HTTP+JSON"]))
    assert type(chosen.create(full)._transport).__name__ == "RestTransport"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("profile", "path", "version"),
    [
        ({"versions": ["1.0"], "bindings": ["JSONRPC"]}, "/a2a/jsonrpc", "1.0"),
        ({"versions": ["0.3"], "bindings": ["JSONRPC"]}, "/a2a/jsonrpc", "0.3"),
        ({"versions": ["1.0"], "bindings": ["HTTP+JSON"]}, "/a2a/rest/message:send", "1.0"),
        ({"versions": ["0.3"], "bindings": ["HTTP+JSON"]}, "/a2a/rest/v1/message:send", "0.3"),
    ],
    ids=["jsonrpc-1.0", "jsonrpc-0.3", "rest-1.0", "rest-0.3"],
)
async def test_create_client_sends_on_the_locked_binding_and_version(
    tmp_path: Path, compat: Peer, profile: dict[str, Any], path: str, version: str
) -> None:
    lock = locked(tmp_path, compat, {**profile, "streaming": False}, skills=["market-size"])
    agent = lock.agent("py", "market-size")
    assert agent.plan.delivery == "poll"
    before = len(posts(compat))
    async with agent.create_client() as client:
        assert await reply(client, "hello") == ["echo: hello"]
    sent = posts(compat)[before:]
    assert [(r["method"], r["path"], r["version"]) for r in sent] == [("POST", path, version)]


async def test_stream_plan_streams_and_poll_plan_refuses_streams_with_nothing_sent(
    tmp_path: Path, compat: Peer
) -> None:
    streamed = locked(tmp_path / "s", compat, {"versions": ["1.0"], "bindings": ["HTTP+JSON"]}, skills=[])
    agent = streamed.agent("py")
    assert agent.plan.delivery == "stream"
    before = len(posts(compat))
    async with agent.create_client() as client:
        assert await reply(client, "streamed") == ["echo: streamed"]
    assert [r["path"] for r in posts(compat)[before:]] == ["/a2a/rest/message:stream"]

    polled = locked(tmp_path / "p", compat, {"versions": ["1.0"], "streaming": False}, skills=[])
    agent = polled.agent("py")
    before = len(posts(compat))
    async with agent.create_client() as client:
        # a2a-sdk never streams on a config without streaming; a push config call it would send: the plan refuses.
        with pytest.raises(PlanViolationError) as refused:
            await client.create_task_push_notification_config(
                TaskPushNotificationConfig(task_id="t-1", url="https://hooks.example/x")
            )
        assert refused.value.code == "plan-violation"
        assert "push notification config call (create_task_push_notification_config)" in str(refused.value)
        # A part whose media type the plan does not send: refused by the enforcing transport.
        image = SendMessageRequest(
            message=Message(
                message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(raw=b"\x89PNG", media_type="image/png")]
            )
        )
        with pytest.raises(PlanViolationError, match="image/png"):
            async for _ in client.send_message(image):
                pass
    assert posts(compat)[before:] == []
    assert [e.code for e in polled.refusals] == ["plan-violation", "plan-violation"]


@pytest.fixture(scope="module")
def pusher() -> Iterator[Peer]:
    """A JS SDK agent whose card offers push notifications."""
    with js_agent(push=True) as peer:
        yield peer


@pytest.mark.parametrize("delivery", ["poll", "push"])
async def test_subscribe_on_a_plan_without_stream_is_a_plan_violation_before_a2a_sdk_is_asked(
    tmp_path: Path, compat: Peer, pusher: Peer, delivery: str
) -> None:
    # As the JavaScript runtime's resubscribeTask: plan-violation, nothing sent, recorded. a2a-sdk's BaseClient raised
    # its own NotImplementedError (no code) before any interceptor ran.
    peer = compat if delivery == "poll" else pusher
    profile = {"streaming": False, **({"pushEndpoint": "https://hooks.example/a2a"} if delivery == "push" else {})}
    lock = locked(tmp_path, peer, profile, skills=[])
    agent = lock.agent("py")
    assert agent.plan.delivery == delivery
    before = len(posts(peer))
    async with agent.create_client() as client:
        with pytest.raises(PlanViolationError) as refused:
            async for _ in client.subscribe(SubscribeToTaskRequest(id="t-1")):
                pass
    assert refused.value.code == "plan-violation"
    assert str(refused.value) == (
        f"plan-violation: py (*): a streaming call (subscribe), but the locked delivery is {delivery}"
    )
    assert posts(peer)[before:] == []
    assert [e.code for e in lock.refusals] == ["plan-violation"]


async def test_subscribe_on_a_stream_plan_is_sent(tmp_path: Path, compat: Peer) -> None:
    lock = locked(tmp_path, compat, {"versions": ["1.0"], "bindings": ["HTTP+JSON"]}, skills=[])
    agent = lock.agent("py")
    assert agent.plan.delivery == "stream"
    before = len(posts(compat))
    async with agent.create_client() as client:
        with pytest.raises(Exception) as answered:  # the agent knows no task t-1: its own error, not the plan's
            async for _ in client.subscribe(SubscribeToTaskRequest(id="t-1")):
                pass
    assert not isinstance(answered.value, PlanViolationError)
    assert [r["path"] for r in posts(compat)[before:]] == ["/a2a/rest/tasks/t-1:subscribe"]
    assert lock.refusals == []


async def test_credential_and_extended_card_stay_on_the_plan(tmp_path: Path, gated: Peer) -> None:
    lock_project(
        tmp_path,
        {
            "profile": {**PROFILE, "streaming": False},
            "agents": {
                "py": {"card": gated.origin, "skills": ["deep-dive"], "credentials": {"bearer": {"env": "PY_TOKEN"}}}
            },
        },
        env={"PY_TOKEN": TOKEN},
    )
    lock = load_lock(tmp_path / "a2a.lock.json", env={"PY_TOKEN": TOKEN})
    agent = lock.agent("py", "deep-dive")
    before = len(posts(gated))
    async with agent.create_client() as client:
        assert await reply(client, "signed in") == ["echo: signed in"]
        extended = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
        # The card the client adopts is narrowed as the locked one is.
        assert [i.url for i in extended.supported_interfaces] == [f"{gated.origin}/a2a/jsonrpc"]
        assert "deep-dive" in [s.id for s in extended.skills]
        assert await reply(client, "again") == ["echo: again"]
    sent = posts(gated)[before:]
    assert [(r["path"], r["authorization"]) for r in sent] == [("/a2a/jsonrpc", True)] * 3


async def test_js_sdk_agent_gets_the_locked_extensions_and_modes(tmp_path: Path) -> None:
    with js_agent() as peer:
        profile = {
            "bindings": ["JSONRPC"],
            "versions": ["1.0"],
            "accepts": ["application/json"],
            "sends": ["text/plain"],
            "streaming": False,
            "extensions": ["https://example.com/ext/citations/v1"],
        }
        lock_project(tmp_path, {"profile": profile, "agents": {"js": {"card": peer.origin, "skills": ["market-size"]}}})
        agent = load_lock(tmp_path / "a2a.lock.json", env={}).agent("js", "market-size")
        assert agent.plan.extensions == ("https://example.com/ext/citations/v1",)
        async with agent.create_client() as client:
            assert (await reply(client, "js")) != []
        sent = posts(peer)
        assert [(r["path"], r["version"], r["extensions"]) for r in sent] == [
            ("/a2a/jsonrpc", "1.0", "https://example.com/ext/citations/v1")
        ]


async def test_js_sdk_agent_0_3_compat(tmp_path: Path) -> None:
    with js_agent(legacy=True) as peer:
        profile = {**PROFILE, "bindings": ["JSONRPC"], "versions": ["0.3"], "streaming": False}
        lock_project(tmp_path, {"profile": profile, "agents": {"js": {"card": peer.origin}}})
        agent = load_lock(tmp_path / "a2a.lock.json", env={}).agent("js")
        assert (agent.plan.protocol_version, agent.plan.protocol_binding) == ("0.3", "JSONRPC")
        async with agent.create_client() as client:
            assert (await reply(client, "legacy")) != []
        assert [(r["path"], r["version"]) for r in posts(peer)] == [("/a2a/jsonrpc", "0.3")]
