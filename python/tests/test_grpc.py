"""gRPC plans against a real a2a-sdk 1.3 gRPC server (test/python/sdk_agent.py): the channel factory dials the
locked target only, the unary AND the stream interceptor check every call (a streaming call on a poll plan is
refused before the server sees it), ``a2a-version`` is the locked version, the credential goes as metadata, and
plaintext to a host that is not loopback is refused before any connection."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

from a2a_lock import CredentialRequest, PlanViolationError, load_lock
from a2a_lock.grpc import locked_channel
from a2a_lock.plan import Plan
from sdk_peers import PROFILE, Peer, lock_project, sdk_agent

TOKEN = "grpc-bearer-T0ken"


@pytest.fixture(scope="module")
def peer() -> Iterator[Peer]:
    with sdk_agent(bindings=["GRPC", "JSONRPC"], versionField=True, token=TOKEN) as server:
        yield server


def grpc_calls(peer: Peer) -> list[dict[str, Any]]:
    return [r for r in peer.seen() if r["method"] == "GRPC"]


def locked(tmp_path: Path, peer: Peer, streaming: bool) -> Any:
    manifest = {
        "profile": {**PROFILE, "bindings": ["GRPC"], "versions": ["1.0"], "streaming": streaming},
        "agents": {"py": {"card": peer.origin, "skills": ["market-size"], "credentials": {"bearer": {"env": "T"}}}},
    }
    lock_project(tmp_path, manifest, env={"T": TOKEN})
    return load_lock(tmp_path / "a2a.lock.json", env={"T": TOKEN})


def request(text: str) -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    )


async def test_grpc_plan_sends_with_the_locked_version_and_credential(tmp_path: Path, peer: Peer) -> None:
    for streaming, method in ((False, "SendMessage"), (True, "SendStreamingMessage")):
        agent = locked(tmp_path / str(streaming), peer, streaming).agent("py", "market-size")
        assert agent.plan.protocol_binding == "GRPC"
        before = len(grpc_calls(peer))
        async with agent.create_client() as client:
            texts = [p.text async for e in client.send_message(request("over grpc")) for p in e.message.parts]
        assert texts == ["echo: over grpc"]
        assert [(r["path"], r["version"], r["authorization"]) for r in grpc_calls(peer)[before:]] == [
            (f"/lf.a2a.v1.A2AService/{method}", "1.0", True)
        ]


async def test_a_credentials_function_is_told_the_origin_the_grpc_channel_is_dialled_at(
    tmp_path: Path, peer: Peer
) -> None:
    # A loopback host:port is dialled in plaintext: http://host:port (conformance/vectors/credential-origin.json).
    locked(tmp_path, peer, streaming=False)
    asked: list[CredentialRequest] = []

    def provider(asked_for: CredentialRequest) -> str:
        asked.append(asked_for)
        return TOKEN

    agent = load_lock(tmp_path / "a2a.lock.json", credentials=provider).agent("py", "market-size")
    async with agent.create_client() as client:
        texts = [p.text async for e in client.send_message(request("told")) for p in e.message.parts]
    assert texts == ["echo: told"]
    assert asked
    target = agent.plan.url.split("://")[-1]
    assert {(a.agent, a.skill, a.scheme, a.scopes, a.origin) for a in asked} == {
        ("py", "market-size", "bearer", (), f"http://{target}")
    }


async def test_stream_interceptor_refuses_a_stream_on_a_poll_plan(tmp_path: Path, peer: Peer) -> None:
    lock = locked(tmp_path, peer, streaming=False)
    agent = lock.agent("py", "market-size")
    factory = locked_channel(agent.plan, agent="py", skill="market-size", on_refusal=lambda e: None)
    channel = factory(agent.plan.url)
    stub = a2a_pb2_grpc.A2AServiceStub(channel)
    before = len(grpc_calls(peer))
    with pytest.raises(PlanViolationError, match="streaming call"):
        call = stub.SendStreamingMessage(request("escape"))
        async for _ in call:
            pass
    with pytest.raises(PlanViolationError, match=r"a2a-version 0\.3"):
        await stub.SendMessage(request("old"), metadata=(("a2a-version", "0.3"),))
    await channel.close()
    assert grpc_calls(peer)[before:] == []


def test_channel_factory_refuses_another_target_and_plaintext_off_loopback() -> None:
    plan = Plan(url="127.0.0.1:50051", protocol_binding="GRPC", protocol_version="1.0", delivery="poll")
    refused: list[PlanViolationError] = []
    factory = locked_channel(plan, agent="py", skill="s", on_refusal=refused.append)
    with pytest.raises(PlanViolationError, match="not the locked interface"):
        factory("127.0.0.1:50052")
    assert [e.code for e in refused] == ["plan-violation"]
    off = Plan(url="grpc://agent.example:8443", protocol_binding="GRPC", protocol_version="1.0", delivery="poll")
    with pytest.raises(PlanViolationError, match="plaintext"):
        locked_channel(off, agent="py", skill="s")
    assert locked_channel(off, agent="py", skill="s", allow_insecure=True) is not None
    # Loopback as the JavaScript runtime reads it (a URL parser's spellings, IPv4-mapped ::1): plaintext is allowed.
    for url in ("grpc://0x7f.1:50051", "grpc://[::ffff:127.0.0.1]:50051", "grpc://127.9.9.9:50051"):
        loopback = Plan(url=url, protocol_binding="GRPC", protocol_version="1.0", delivery="poll")
        assert locked_channel(loopback, agent="py", skill="s") is not None


async def test_a_grpc_a2a_error_is_a_typed_agent_error(tmp_path: Path, peer: Peer) -> None:
    """As test/runtime/grpc-fallbacks.test.ts: TaskNotFound over gRPC leaves as AgentCallError agent-error with
    the gRPC status and the ErrorInfo reason."""
    from a2a.types.a2a_pb2 import GetTaskRequest

    from a2a_lock import AgentCallError

    agent = locked(tmp_path, peer, streaming=False).agent("py", "market-size")
    async with agent.create_client() as client:
        with pytest.raises(AgentCallError) as raised:
            await client.get_task(GetTaskRequest(id="no-such-task"))
    error = raised.value
    assert (error.code, error.grpc_status, error.a2a_reason) == ("agent-error", 5, "TASK_NOT_FOUND")
    assert error.__cause__ is not None
    assert TOKEN not in str(error)
