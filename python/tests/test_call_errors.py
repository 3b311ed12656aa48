"""Agent errors that are neither a taken fallback nor a degradation leave ``create_client()`` as an
``AgentCallError`` with the JavaScript runtime's codes (``typedError`` in src/runtime/call-errors.ts): against a
real loopback server that answers 401, 500 with a JSON-RPC error body, slowly, or not at all (a closed port). The
``__cause__`` names the a2a-sdk error's type only (its text may quote the request or the agent's answer); the
message names agent, skill and interface, never the credential."""

from __future__ import annotations

import json
import socket
import time
import traceback
import uuid
from pathlib import Path

import pytest
from a2a.client import ClientCallContext
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

from a2a_lock import A2aLockError, AgentCallError, Lock, load_lock
from a2a_lock.call_errors import auth_refusal
from a2a_lock.canonical import integrity_of
from locks import write_lock
from loopback import Answer, Received, Recorder, json_answer

TOKEN = "call-err-S3cret-t0ken"
VECTORS = json.loads((Path(__file__).parents[2] / "conformance" / "vectors" / "auth-refused.json").read_text())


def message(text: str) -> SendMessageRequest:
    parts = [Part(text=text)]
    return SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=parts))


async def refused_call(lock: Lock) -> AgentCallError:
    """The AgentCallError a SendMessage through ``lock``'s echo agent raises."""
    async with lock.agent("echo", "echo").create_client() as client:
        with pytest.raises(AgentCallError) as raised:
            async for _ in client.send_message(message("hi")):
                pass
    return raised.value


async def failure(directory: Path, url: str, *, timeout: float | None = None) -> AgentCallError:
    lock = load_lock(write_lock(directory, url), env={"ECHO_TOKEN": TOKEN})
    agent = lock.agent("echo", "echo")
    context = ClientCallContext(timeout=timeout) if timeout is not None else None
    async with agent.create_client() as client:
        with pytest.raises(A2aLockError) as raised:
            async for _ in client.send_message(message("hi"), context=context):
                pass
    error = raised.value
    assert isinstance(error, AgentCallError), repr(error)
    assert error.__cause__ is not None
    assert TOKEN not in str(error) and TOKEN not in repr(error) and TOKEN not in str(error.to_json())
    # The whole traceback a log line would print, the cause chain with it: another library's text is withheld.
    assert TOKEN not in "".join(traceback.format_exception(error))
    assert error.data["agent"] == "echo" and error.data["skill"] == "echo"
    assert error.data["url"] == f"{url}/a2a/jsonrpc"
    return error


async def test_a_401_is_auth_refused(tmp_path: Path) -> None:
    server = Recorder(lambda _r: json_answer({"error": "unauthorized"}, 401)).start()
    try:
        error = await failure(tmp_path, server.url)
    finally:
        server.stop()
    assert error.code == "auth-refused"
    assert error.status == 401
    assert "the agent refused the credential (HTTP 401)" in error.message
    assert error.hint == (
        "check the credential given for echo (its variable in a2a.json, or your credentials provider); "
        "a2a verify says whether the card the agent serves has changed since the lock"
    )
    assert server.requests[0].header("authorization") == f"Bearer {TOKEN}"


@pytest.mark.parametrize(
    "case", VECTORS["cases"], ids=lambda c: f"{c['planSendsCredential']}-{c['cardDeclaresSchemes']}"
)
def test_auth_refused_vectors(case: dict[str, object]) -> None:
    reason, hint = auth_refusal(bool(case["planSendsCredential"]), bool(case["cardDeclaresSchemes"]), "research")
    assert (reason, hint) == (case["reason"], str(case["hint"]).replace("{agent}", "research"))


async def test_a_401_to_a_plan_that_sends_no_credential_says_so_and_points_to_a2a_verify(tmp_path: Path) -> None:
    # Locked when the card declared no securitySchemes (so the plan sends nothing); the agent has since added a
    # bearer scheme and answers 401: the words say why, the hint says what to run (as the JavaScript runtime).
    server = Recorder(lambda _r: json_answer({"error": "unauthorized"}, 401)).start()
    try:
        path = write_lock(tmp_path, server.url, credentials={})
        lock_doc = json.loads(path.read_text())
        entry = lock_doc["agents"]["echo"]
        del entry["snapshot"]["securitySchemes"]
        entry["integrity"] = integrity_of(entry["snapshot"])
        path.write_text(json.dumps(lock_doc, indent=2))
        lock = load_lock(path, env={})
        error = await refused_call(lock)
    finally:
        server.stop()
    assert error.code == "auth-refused"
    assert error.message.endswith(
        "the agent refused the request, and the locked plan sends no credential: the card declares no "
        "securitySchemes (the agent may authenticate outside A2A) (HTTP 401)"
    )
    expected = VECTORS["cases"][1]
    assert (expected["planSendsCredential"], expected["cardDeclaresSchemes"]) == (False, False)
    assert error.hint == expected["hint"].replace("{agent}", "echo")
    assert (error.hint or "").startswith("run a2a verify: ")
    assert error.to_json()["hint"] == error.hint
    assert server.requests[0].header("authorization") is None


async def test_a_500_with_an_a2a_error_body_is_agent_error(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": f"internal: token {TOKEN}"}}
    server = Recorder(lambda _r: json_answer(body, 500)).start()
    try:
        error = await failure(tmp_path, server.url)
    finally:
        server.stop()
    assert error.code == "agent-error"
    assert (error.status, error.a2a_code) == (500, -32603)
    assert "the agent answered an A2A error (HTTP 500, A2A error -32603)" in error.message


async def test_a_json_rpc_error_no_fallback_answers_is_agent_error(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "task not found"}}
    server = Recorder(lambda _r: json_answer(body)).start()
    try:
        error = await failure(tmp_path, server.url)
    finally:
        server.stop()
    assert error.code == "agent-error"
    assert (error.status, error.a2a_code) == (None, -32001)


async def test_a_closed_port_is_unreachable(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    error = await failure(tmp_path, f"http://127.0.0.1:{port}")
    assert error.code == "unreachable"
    assert "not reachable" in error.message


async def test_a_slow_answer_past_the_timeout_is_timeout(tmp_path: Path) -> None:
    def slow(_r: Received) -> Answer:
        time.sleep(1.5)
        return json_answer({"jsonrpc": "2.0", "id": 1, "result": {"message": {"role": "ROLE_AGENT", "parts": []}}})

    server = Recorder(slow).start()
    try:
        error = await failure(tmp_path, server.url, timeout=0.2)
    finally:
        server.stop()
    assert error.code == "timeout"
    assert "no answer in time" in error.message


async def test_the_cause_names_the_sdk_error_type_only_and_the_traceback_holds_no_query_key(tmp_path: Path) -> None:
    # Another library's error text may quote the request (a URL with its query): the cause shows its type only.
    server = Recorder(lambda _r: json_answer({"error": "unauthorized"}, 401)).start()
    try:
        lock = load_lock(write_lock(tmp_path, server.url, credentials={"key": {"env": "K"}}), env={"K": TOKEN})
        error = await refused_call(lock)
    finally:
        server.stop()
    assert TOKEN in server.requests[0].target  # the key went where the plan says: the query
    assert error.code == "auth-refused"
    printed = "".join(traceback.format_exception(error))
    assert TOKEN not in printed
    assert "withheld" in printed
