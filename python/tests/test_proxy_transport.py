"""The proxy rule applied by the enforcing transport: a loopback recorder plays the proxy. The proxy variables are
the process environment's as they are when ``load_lock`` runs (the JavaScript ``loadLock``'s rule); the ``env``
option is where credential variables are read, never proxies."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from a2a_lock import FetchError, UsageError, load_lock
from a2a_lock.proxy import PROXY_VARIABLES
from locks import send_message, write_lock
from loopback import Recorder, json_answer

AGENT = "http://agent.invalid:8080"


@pytest.fixture
def proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The process environment without any proxy variable; set them with ``proxies.setenv``."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


async def post(path: Path, url: str, proxy_env: Mapping[str, str], env: dict[str, str] | None = None) -> None:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in proxy_env.items():
            patch.setenv(name, value)
        lock = load_lock(path, env=env or {})
    async with lock.agent("echo", "echo").httpx_client() as http:
        await http.post(f"{url}/a2a/jsonrpc", content=json.dumps(send_message()))


async def test_http_goes_through_http_proxy(tmp_path: Path, recorder: Recorder, proxies: pytest.MonkeyPatch) -> None:
    recorder.answer = lambda r: json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    path = write_lock(tmp_path, AGENT, credentials={}, allow_http=True)
    await post(path, AGENT, {"HTTP_PROXY": recorder.url})
    [seen] = recorder.requests
    assert seen.method == "POST" and seen.target == f"{AGENT}/a2a/jsonrpc"
    assert seen.header("A2A-Version") == "1.0"


async def test_loopback_is_never_proxied(
    tmp_path: Path, recorder: Recorder, other: Recorder, proxies: pytest.MonkeyPatch
) -> None:
    path = write_lock(tmp_path, recorder.url)
    await post(path, recorder.url, {"HTTP_PROXY": other.url, "HTTPS_PROXY": other.url}, {"ECHO_TOKEN": "t"})
    assert len(recorder.requests) == 1 and other.bytes_received == 0


async def test_no_proxy_sends_directly(tmp_path: Path, recorder: Recorder, proxies: pytest.MonkeyPatch) -> None:
    path = write_lock(tmp_path, AGENT, credentials={}, allow_http=True)
    with pytest.raises(FetchError) as caught:
        await post(path, AGENT, {"HTTP_PROXY": recorder.url, "NO_PROXY": ".invalid"})
    assert caught.value.code == "unreachable"
    assert recorder.bytes_received == 0


async def test_https_tunnels_and_the_proxy_never_sees_the_credential(
    tmp_path: Path, recorder: Recorder, proxies: pytest.MonkeyPatch
) -> None:
    agent = "https://agent.invalid"
    path = write_lock(tmp_path, agent)
    with pytest.raises(FetchError):
        await post(path, agent, {"HTTPS_PROXY": recorder.url}, {"ECHO_TOKEN": "tunnelled-secret"})
    [seen] = recorder.requests
    assert seen.method == "CONNECT" and seen.target == "agent.invalid:443"
    assert all("tunnelled-secret" not in v for _, v in seen.headers)


async def test_a_proxy_variable_that_is_not_a_url_is_refused_by_name(
    tmp_path: Path, proxies: pytest.MonkeyPatch
) -> None:
    path = write_lock(tmp_path, AGENT, credentials={}, allow_http=True)
    with pytest.raises(UsageError, match="HTTP_PROXY is set but is not an http:// or https:// proxy URL") as caught:
        await post(path, AGENT, {"HTTP_PROXY": "socks5://user:pw@proxy:1080"})
    assert "pw" not in str(caught.value)


async def test_proxies_are_the_process_environment_when_the_lock_was_loaded_never_the_env_option(
    tmp_path: Path, recorder: Recorder, other: Recorder, proxies: pytest.MonkeyPatch
) -> None:
    recorder.answer = lambda r: json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    path = write_lock(tmp_path, AGENT, credentials={}, allow_http=True)
    # A proxy variable in the env option (where credential variables are read) is not a proxy setting.
    with pytest.raises(FetchError) as caught:
        await post(path, AGENT, {}, {"HTTP_PROXY": other.url})
    assert caught.value.code == "unreachable" and other.bytes_received == 0
    # Loaded with the recorder as the proxy; the process environment changes before the request: not rerouted.
    proxies.setenv("HTTP_PROXY", recorder.url)
    lock = load_lock(path, env={"HTTP_PROXY": other.url})
    proxies.setenv("HTTP_PROXY", other.url)
    async with lock.agent("echo", "echo").httpx_client() as http:
        await http.post(f"{AGENT}/a2a/jsonrpc", content=json.dumps(send_message()))
    assert [r.target for r in recorder.requests] == [f"{AGENT}/a2a/jsonrpc"]
    assert other.bytes_received == 0
