"""OAuth 2.0 client credentials from the locked tokenUrl, against loopback recorders (agent and token endpoint)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from a2a_lock import A2aLockError, FetchError, load_lock
from locks import send_message, write_lock
from loopback import Received, Recorder, json_answer

OAUTH = {"oauth": {"oauth": {"clientId": {"env": "CID"}, "clientSecret": {"env": "CSECRET"}}}}
ENV = {"CID": "client-1", "CSECRET": "very secret~*"}


def token_endpoint(tokens: list[str], status: int = 200) -> object:
    issued = iter(tokens)

    def answer(request: Received) -> tuple[int, dict[str, str], bytes]:
        if status != 200:
            return json_answer({"error": "invalid_client"}, status)
        return json_answer({"access_token": next(issued), "token_type": "Bearer", "expires_in": 3600})

    return answer


async def call(lock_path: Path, recorder: Recorder, env: dict[str, str], times: int = 1) -> None:
    lock = load_lock(lock_path, env=env)
    async with lock.agent("echo", "echo").httpx_client() as http:
        for _ in range(times):
            await http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))
    await lock.aclose()


async def test_a_token_from_the_locked_url_with_basic_auth_and_the_locked_scopes_cached(
    tmp_path: Path, recorder: Recorder, other: Recorder
) -> None:
    other.answer = token_endpoint(["tok-1"])  # type: ignore[assignment]
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    await call(path, recorder, ENV, times=2)
    [token_request] = other.requests
    assert token_request.target == "/oauth/token"
    assert parse_qs(token_request.body.decode()) == {"grant_type": ["client_credentials"], "scope": ["read"]}
    expected = base64.b64encode(b"client-1:very+secret%7E*").decode()
    assert token_request.header("Authorization") == f"Basic {expected}"
    assert [r.header("Authorization") for r in recorder.requests] == ["Bearer tok-1", "Bearer tok-1"]
    assert all("very" not in r.body.decode() for r in recorder.requests)


async def test_form_client_auth(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    other.answer = token_endpoint(["tok-1"])  # type: ignore[assignment]
    form = {"oauth": {"oauth": {**OAUTH["oauth"]["oauth"], "clientAuth": "form"}}}
    path = write_lock(tmp_path, recorder.url, credentials=form, token_url=f"{other.url}/oauth/token")
    await call(path, recorder, ENV)
    [token_request] = other.requests
    assert token_request.header("Authorization") is None
    body = parse_qs(token_request.body.decode())
    assert body["client_id"] == ["client-1"] and body["client_secret"] == ["very secret~*"]


async def test_one_retry_with_a_new_token_on_401(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    other.answer = token_endpoint(["tok-1", "tok-2"])  # type: ignore[assignment]
    answers = iter([json_answer({"error": "expired"}, 401), json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})])
    recorder.answer = lambda r: next(answers)
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    await call(path, recorder, ENV)
    assert [r.header("Authorization") for r in recorder.requests] == ["Bearer tok-1", "Bearer tok-2"]
    assert len(other.requests) == 2


async def test_a_refused_client_is_auth_refused_without_the_secret(
    tmp_path: Path, recorder: Recorder, other: Recorder
) -> None:
    other.answer = token_endpoint([], status=401)  # type: ignore[assignment]
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    with pytest.raises(FetchError) as caught:
        await call(path, recorder, ENV)
    assert caught.value.code == "auth-refused"
    assert "invalid_client" in str(caught.value) and "very" not in str(caught.value)
    assert recorder.bytes_received == 0


async def test_a_token_endpoint_redirect_is_never_followed(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    other.answer = lambda r: (307, {"location": f"{recorder.url}/steal"}, b"")
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    with pytest.raises(FetchError, match="never followed"):
        await call(path, recorder, ENV)
    assert recorder.bytes_received == 0


async def test_a_cleartext_token_url_off_loopback_is_refused(tmp_path: Path, recorder: Recorder) -> None:
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url="http://idp.invalid/token")
    with pytest.raises(A2aLockError) as caught:
        await call(path, recorder, ENV)
    assert caught.value.code == "insecure-url"
    assert recorder.bytes_received == 0


async def test_an_unset_client_secret(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    with pytest.raises(A2aLockError, match="CSECRET is not set") as caught:
        await call(path, recorder, {"CID": "client-1"})
    assert caught.value.code == "credential-unset"
    assert recorder.bytes_received == 0 and other.bytes_received == 0


def test_a_cached_token_outlives_its_event_loop(tmp_path: Path, recorder: Recorder, other: Recorder) -> None:
    import asyncio

    other.answer = token_endpoint(["tok-1", "tok-2"])  # type: ignore[assignment]
    path = write_lock(tmp_path, recorder.url, credentials=OAUTH, token_url=f"{other.url}/oauth/token")
    lock = load_lock(path, env=ENV)

    async def once() -> None:
        async with lock.agent("echo", "echo").httpx_client() as http:
            await http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))

    asyncio.run(once())
    asyncio.run(once())
    assert [r.header("Authorization") for r in recorder.requests] == ["Bearer tok-1", "Bearer tok-1"]
    assert len(other.requests) == 1
