"""OAuth 2.0 client credentials from the locked tokenUrl, against loopback recorders (agent and token endpoint)."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, quote_plus

import httpx
import pytest

from a2a_lock import A2aLockError, FetchError, load_lock
from a2a_lock.oauth import ClientCredentialsGrant, ClientCredentialsTokens
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


VECTORS = json.loads((Path(__file__).resolve().parents[2] / "conformance/vectors/oauth-token-errors.json").read_text())


def _secret_in(text: str, secret: str) -> list[str]:
    """Every spelling of the client ``secret`` in ``text``, ignoring case: each run of 10 of its characters (a prefix,
    a middle slice, the whole), the same of it reversed, percent- and form-encoded, base64 and base64url at each byte
    alignment (the run that encodes only the secret's bytes)."""
    runs = [s[i : i + 10] for s in (secret, secret[::-1]) for i in range(len(s) - 9)]
    forms = [quote(secret, safe=""), quote_plus(secret)]
    raw = secret.encode()
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * shift + raw).decode()
            forms.append(encoded[(4 if shift else 0) : (shift + len(raw)) // 3 * 4])
    lower = text.lower()
    return [s for s in runs + forms if s.lower() in lower]


@pytest.mark.parametrize("vector", VECTORS["cases"], ids=[c["name"] for c in VECTORS["cases"]])
async def test_a_failing_token_endpoint_in_the_words_of_the_shared_vectors(
    vector: dict[str, Any], other: Recorder
) -> None:
    # conformance/vectors/oauth-token-errors.json: the same code and words as the JavaScript runtime
    # (test/http/oauth-token-errors.test.ts), and no spelling of the client secret the endpoint echoes.
    body = vector["bodyText"].encode() if "bodyText" in vector else json.dumps(vector["body"]).encode()
    other.answer = lambda r: (vector["status"], {"content-type": "application/json"}, body)  # type: ignore[assignment]
    token_url = f"{other.url}/oauth/token"
    tokens = ClientCredentialsTokens(lambda: httpx.AsyncClient(follow_redirects=False, trust_env=False))
    # A case may name its own client secret (one with characters percent-encoding changes).
    secret: str = vector.get("clientSecret", VECTORS["clientSecret"])
    grant = ClientCredentialsGrant(token_url, VECTORS["clientId"], secret, ("a2a.read",))
    with pytest.raises(FetchError) as caught:
        await tokens.token(grant)
    error = caught.value
    assert error.code == vector["code"]
    assert error.message == f"{token_url}: {vector['message']}"
    shown = "\n".join(
        [str(error), repr(error), json.dumps(error.to_json()), "".join(traceback.format_exception(error))]
    )
    assert _secret_in(shown, secret) == []


def _dripping_endpoint() -> tuple[str, Callable[[], None]]:
    """A token endpoint on 127.0.0.1 that answers 200 with its headers at once, then ``{"access_token":"`` and one more
    byte every 50 ms, never the end (each read well within httpx's per-read timeout). Returns its token URL and stop."""
    server = socket.create_server(("127.0.0.1", 0))
    stopped = threading.Event()

    def serve() -> None:
        while not stopped.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n"
                        b'{"access_token":"'
                    )
                    while not stopped.wait(0.05):
                        conn.sendall(b"a")
                except OSError:
                    continue

    threading.Thread(target=serve, daemon=True).start()

    def stop() -> None:
        stopped.set()
        server.close()

    return f"http://127.0.0.1:{server.getsockname()[1]}/oauth/token", stop


async def test_a_token_endpoint_that_drips_its_body_past_the_deadline_is_a_timeout() -> None:
    # The deadline is the whole exchange's, body included: httpx's read timeout alone is per read, and a drip meets it.
    token_url, stop = _dripping_endpoint()
    try:
        tokens = ClientCredentialsTokens(
            lambda: httpx.AsyncClient(follow_redirects=False, trust_env=False), timeout=0.4
        )
        grant = ClientCredentialsGrant(token_url, "client-1", "very secret~*", ())
        with pytest.raises(FetchError) as caught:
            await asyncio.wait_for(tokens.token(grant), 5)
        assert caught.value.code == "timeout"
        assert caught.value.message == f"{token_url}: the token endpoint did not answer in time"
    finally:
        stop()
