"""The locked fallbacks of ``create_client()``, taken as the JavaScript runtime takes them (test/runtime/
fallbacks.test.ts), against a real @a2a-js/sdk agent (scripts/agents.js) redeployed with another card: each
alternative taken once and reported (``Lock.on("fallback")``, ``fallbacks_taken``), dead ends degrading the agent
(``agent-degraded``) with a message true to the lockfile."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskPushNotificationConfig

from a2a_lock import AgentDegradedError, load_lock
from a2a_lock.events import DegradedEvent, FallbackEvent
from sdk_peers import Peer, js_agent, lock_project

HOOK = "https://hook.example/a2a"


def message(text: str) -> SendMessageRequest:
    parts = [Part(text=text)]
    return SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=parts))


async def texts(events: Any) -> list[str]:
    out: list[str] = []
    async for event in events:
        if event.HasField("message"):
            out.extend(p.text for p in event.message.parts)
        elif event.HasField("task"):
            for artifact in event.task.artifacts:
                out.extend(p.text for p in artifact.parts)
            if event.task.status.HasField("message"):
                out.extend(p.text for p in event.task.status.message.parts)
        elif event.HasField("artifact_update"):
            out.extend(p.text for p in event.artifact_update.artifact.parts)
    return out


def a2a_posts(peer: Peer, since: int = 0) -> list[dict[str, Any]]:
    return [r for r in peer.seen() if r["path"].startswith("/a2a")][since:]


@pytest.fixture(scope="module")
def agent() -> Iterator[Peer]:
    """A JS SDK agent with JSON-RPC 1.0 and 0.3 and HTTP+JSON 1.0 that pushes, and answers a push config with
    PushNotificationNotSupported once its card stops pushing."""
    with js_agent(legacy=True, push=True, strictPush=True) as peer:
        yield peer


@pytest.fixture(scope="module")
def lockfile(agent: Peer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    profile = {
        "bindings": ["JSONRPC", "HTTP+JSON"],
        "versions": ["1.0", "0.3"],
        "accepts": ["application/json", "text/plain"],
        "sends": ["text/plain"],
        "streaming": True,
    }
    skills = ["market-size"]
    manifest = {
        "profile": profile,
        "agents": {
            "research": {"card": agent.origin, "skills": skills},
            "pusher": {"card": agent.origin, "skills": skills, "profile": {"streaming": False, "pushEndpoint": HOOK}},
            "restpush": {
                "card": agent.origin,
                "skills": skills,
                "profile": {"bindings": ["HTTP+JSON"], "streaming": False, "pushEndpoint": HOOK},
            },
            "legacy": {"card": agent.origin, "skills": skills, "profile": {"versions": ["0.3"]}},
        },
    }
    return lock_project(tmp_path_factory.mktemp("fallbacks"), manifest)


@pytest.fixture(autouse=True)
def fresh_card(agent: Peer) -> Iterator[None]:
    agent.set_card()
    yield
    agent.set_card()


def with_push(text: str) -> SendMessageRequest:
    request = message(text)
    request.configuration.task_push_notification_config.CopyFrom(TaskPushNotificationConfig(url=HOOK))
    return request


async def test_version_not_supported_is_retried_once_on_the_locked_0_3_interface(agent: Peer, lockfile: Path) -> None:
    lock = load_lock(lockfile, env={})
    events: list[FallbackEvent] = []
    lock.on("fallback", events.append)
    research = lock.agent("research", "market-size")
    assert research.plan.protocol_version == "1.0"
    async with research.create_client() as client:
        assert await texts(client.send_message(message("before"))) == ["echo: before"]
        assert events == []
        agent.set_card(versions="0.3")
        since = len(a2a_posts(agent))
        assert await texts(client.send_message(message("a"))) == ["echo: a"]
        assert await texts(client.send_message(message("b"))) == ["echo: b"]
    url = f"{agent.origin}/a2a/jsonrpc"
    assert [(r["path"], r["version"]) for r in a2a_posts(agent, since)] == [
        ("/a2a/jsonrpc", "1.0"),
        ("/a2a/jsonrpc", "0.3"),
        ("/a2a/jsonrpc", "1.0"),
        ("/a2a/jsonrpc", "0.3"),
    ]
    expected = FallbackEvent(
        "research", "market-size", f"JSONRPC 1.0 {url}", f"JSONRPC 0.3 {url}", "version-not-supported"
    )
    assert events == [expected, expected]
    assert research.fallbacks_taken == {"version-not-supported": 2}
    taken = research.fallbacks_taken
    taken["version-not-supported"] = 99
    assert research.fallbacks_taken == {"version-not-supported": 2}
    assert not research.degraded


async def test_a_refused_stream_is_retried_once_as_send_message(agent: Peer, lockfile: Path) -> None:
    lock = load_lock(lockfile, env={})
    events: list[FallbackEvent] = []
    lock.on("fallback", events.append)
    research = lock.agent("research", "market-size")
    assert research.plan.delivery == "stream"
    async with research.create_client() as client:
        agent.set_card(streaming="false")
        assert "echo: s" in await texts(client.send_message(message("s")))
    assert events == [FallbackEvent("research", "market-size", "stream", "poll", "unsupported-operation")]
    assert research.fallbacks_taken == {"unsupported-operation": 1}


@pytest.mark.parametrize(("name", "path"), [("pusher", "/a2a/jsonrpc"), ("restpush", "/a2a/rest/message:send")])
async def test_push_not_supported_is_retried_once_without_the_push_config(
    agent: Peer, lockfile: Path, name: str, path: str
) -> None:
    lock = load_lock(lockfile, env={})
    events: list[FallbackEvent] = []
    lock.on("fallback", events.append)
    pusher = lock.agent(name, "market-size")
    assert pusher.plan.delivery == "push"
    assert pusher.plan.fallbacks is not None and pusher.plan.fallbacks.delivery == ("poll",)
    async with pusher.create_client() as client:
        # While the agent pushes, the push config goes through and nothing falls back.
        assert "echo: pushed" in await texts(client.send_message(with_push("pushed")))
        assert events == []
        agent.set_card(push="false")
        since = len(a2a_posts(agent))
        assert "echo: no push" in await texts(client.send_message(with_push("no push")))
    # The strict agent refuses every message carrying a push config: the second one carried none.
    assert [r["path"] for r in a2a_posts(agent, since)] == [path, path]
    assert events == [FallbackEvent(name, "market-size", "push", "poll", "push-notification-not-supported")]
    assert pusher.fallbacks_taken == {"push-notification-not-supported": 1}
    assert not pusher.degraded


async def test_a_dead_end_degrades_the_agent_naming_the_locked_fallbacks(agent: Peer, lockfile: Path) -> None:
    lock = load_lock(lockfile, env={})
    degraded: list[DegradedEvent] = []
    fallbacks: list[FallbackEvent] = []
    lock.on("degraded", degraded.append)
    lock.on("fallback", fallbacks.append)
    legacy = lock.agent("legacy", "market-size")
    assert legacy.plan.protocol_version == "0.3"
    async with legacy.create_client() as client:
        # The 0.3 plan's agent now serves 1.0 only: VersionNotSupported, and no locked fallback is of another version.
        agent.set_card(versions="1.0")
        since = len(a2a_posts(agent))
        with pytest.raises(AgentDegradedError) as caught:
            await texts(client.send_message(message("x")))
    error = caught.value
    assert error.code == "agent-degraded"
    assert error.reason == "version-not-supported"
    assert "locked fallbacks: " in error.message
    assert error.message.endswith("; none is of another protocol version")
    assert len(a2a_posts(agent, since)) == 1
    assert fallbacks == []
    assert [(e.agent, e.skill, e.reason, e.error) for e in degraded] == [
        ("legacy", "market-size", "version-not-supported", error)
    ]
    assert legacy.degraded
    assert legacy.fallbacks_taken == {}


async def test_a_failed_fallback_degrades_the_agent_once(agent: Peer, lockfile: Path) -> None:
    lock = load_lock(lockfile, env={})
    degraded: list[DegradedEvent] = []
    lock.on("degraded", degraded.append)
    research = lock.agent("research", "market-size")
    async with research.create_client() as client:
        # Neither 1.0 nor 0.3 on JSON-RPC: the agent answers the retry on the locked 0.3 interface with an error too.
        agent.set_card(versions="1.5")
        for text in ("x", "y"):
            with pytest.raises(AgentDegradedError) as caught:
                await texts(client.send_message(message(text)))
            assert caught.value.reason == "version-not-supported"
            assert "then the locked fallback JSONRPC 0.3" in caught.value.message
    assert research.fallbacks_taken == {"version-not-supported": 2}
    assert len(degraded) == 1
    assert research.degraded


async def test_a_stream_broken_after_the_task_id_is_continued_by_polling_get_task(tmp_path: Path) -> None:
    with js_agent(taskDelayMs=1500) as slow:
        profile = {
            "bindings": ["JSONRPC"],
            "versions": ["1.0"],
            "accepts": ["application/json", "text/plain"],
            "sends": ["text/plain"],
            "streaming": True,
        }
        lockfile = lock_project(tmp_path, {"profile": profile, "agents": {"slow": {"card": slow.origin}}})
        lock = load_lock(lockfile, env={})
        events: list[FallbackEvent] = []
        lock.on("fallback", events.append)
        agent = lock.agent("slow")
        assert agent.plan.delivery == "stream"
        states: list[int] = []
        async with agent.create_client(poll_interval=0.2, max_polls=50) as client:
            async for event in client.send_message(message("long")):
                if event.HasField("task"):
                    states.append(int(event.task.status.state))
                if len(states) == 1 and not events:
                    slow.drop_connections()  # the stream breaks after the task id was seen
        assert events == [FallbackEvent("slow", "*", "stream", "poll", "stream-broken")]
        assert states[-1] == 3  # TASK_STATE_COMPLETED, read by GetTask
        methods = [r["path"] for r in a2a_posts(slow)]
        assert len(methods) >= 2
        assert agent.fallbacks_taken == {"stream-broken": 1}
        assert not agent.degraded


async def test_version_not_supported_is_retried_once_on_a_locked_grpc_fallback(tmp_path: Path) -> None:
    """As the JavaScript runtime takes it (test/runtime/grpc-fallbacks.test.ts): the locked gRPC interface of
    another version, through the loader's locked channel (its target only, its version's metadata)."""
    with js_agent(legacy=True, grpc=True, grpcCard=True) as agent:
        profile = {
            "bindings": ["GRPC", "JSONRPC"],
            "versions": ["0.3", "1.0"],
            "accepts": ["application/json", "text/plain"],
            "sends": ["text/plain"],
            "streaming": False,
        }
        manifest = {"profile": profile, "agents": {"research": {"card": agent.origin, "skills": ["market-size"]}}}
        lock = load_lock(lock_project(tmp_path, manifest), env={})
        events: list[FallbackEvent] = []
        lock.on("fallback", events.append)
        research = lock.agent("research", "market-size")
        assert (research.plan.protocol_binding, research.plan.protocol_version) == ("JSONRPC", "0.3")
        assert research.plan.fallbacks is not None
        grpc = research.plan.fallbacks.interfaces[0]
        assert (grpc.protocol_binding, grpc.protocol_version) == ("GRPC", "1.0")
        async with research.create_client() as client:
            agent.set_card(versions="1.0")
            since = len(agent.seen())
            assert await texts(client.send_message(message("to grpc"))) == ["echo: to grpc"]
        assert [(r["method"], r["path"], r["version"]) for r in agent.seen()[since:]] == [
            ("POST", "/a2a/jsonrpc", "0.3"),
            ("GRPC", "/lf.a2a.v1.A2AService/SendMessage", "1.0"),
        ]
        url = f"{agent.origin}/a2a/jsonrpc"
        assert events == [
            FallbackEvent(
                "research", "market-size", f"JSONRPC 0.3 {url}", f"GRPC 1.0 {grpc.url}", "version-not-supported"
            )
        ]
        assert not research.degraded
