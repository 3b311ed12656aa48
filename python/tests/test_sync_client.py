"""The blocking httpx.Client variant: the same enforcement; a credential that would need to wait is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_lock import CredentialRequest, PlanViolationError, UsageError, load_lock
from locks import EXT, send_message, write_lock
from loopback import Recorder, json_answer

ENV = {"ECHO_TOKEN": "sync-secret"}


def test_an_allowed_call_is_completed_from_the_plan(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with lock.agent("echo", "echo").httpx_sync_client() as http:
        assert http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message())).status_code == 200
        card = http.get(f"{recorder.url}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"}).json()
    [seen] = recorder.requests
    assert (seen.header("A2A-Version"), seen.header("A2A-Extensions")) == ("1.0", EXT)
    assert seen.header("Authorization") == "Bearer sync-secret"
    assert card["supportedInterfaces"] == [
        {"url": f"{recorder.url}/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]


def test_refusals_send_nothing(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with lock.agent("echo", "echo").httpx_sync_client() as http:
        with pytest.raises(PlanViolationError, match="locked delivery is poll"):
            http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message(method="SendStreamingMessage")))
        with pytest.raises(PlanViolationError, match="not the locked interface"):
            http.post(f"{other.url}/a2a/jsonrpc", content=json.dumps(send_message()))
    assert recorder.bytes_received == 0 and other.bytes_received == 0
    assert len(lock.refusals) == 2


def test_a_redirect_elsewhere_is_refused(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    recorder.answer = lambda r: (307, {"location": f"{other.url}/a2a/jsonrpc"}, b"")
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with lock.agent("echo", "echo").httpx_sync_client() as http, pytest.raises(PlanViolationError, match="redirect"):
        http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))
    assert other.bytes_received == 0


def test_sync_and_ready_async_providers_work(tmp_path: Path, recorder: Recorder) -> None:
    async def ready(request: CredentialRequest) -> str:
        return f"async-{request.scheme}"

    path = write_lock(tmp_path, recorder.url)
    for provider, expected in ((lambda r: "sync-token", "Bearer sync-token"), (ready, "Bearer async-bearer")):
        lock = load_lock(path, credentials={"echo": {"bearer": provider}})
        with lock.agent("echo", "echo").httpx_sync_client() as http:
            http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))
        assert recorder.requests[-1].header("Authorization") == expected


def test_an_oauth_token_request_needs_the_async_client(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    other.answer = lambda r: json_answer({"access_token": "t", "token_type": "Bearer"})
    oauth = {"oauth": {"oauth": {"clientId": {"env": "CID"}, "clientSecret": {"env": "CSECRET"}}}}
    path = write_lock(tmp_path, recorder.url, credentials=oauth, token_url=f"{other.url}/token")
    lock = load_lock(path, env={"CID": "c", "CSECRET": "s"})
    with lock.agent("echo", "echo").httpx_sync_client() as http, pytest.raises(UsageError, match="use httpx_client"):
        http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))
    assert recorder.bytes_received == 0 and other.bytes_received == 0
