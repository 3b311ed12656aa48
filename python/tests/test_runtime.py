"""The enforcing httpx client against loopback recorders: what is sent, and that a refusal sends nothing."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lock import (
    CredentialRequest,
    CredentialUnsetError,
    FetchError,
    PlanViolationError,
    UsageError,
    load_lock,
)
from locks import EXT, send_message, write_lock
from loopback import Recorder

ENV = {"ECHO_TOKEN": "s3cret-token-value"}


def rpc(recorder: Recorder) -> str:
    return f"{recorder.url}/a2a/jsonrpc"


async def post(agent: Any, url: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    async with agent.httpx_client() as http:
        return await http.post(url, content=json.dumps(body), headers=headers or {})


async def test_an_allowed_call_is_completed_from_the_plan(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    agent = lock.agent("echo", "echo")
    response = await post(agent, rpc(recorder), send_message())
    assert response.status_code == 200
    [seen] = recorder.requests
    assert seen.method == "POST" and seen.target == "/a2a/jsonrpc"
    assert seen.header("A2A-Version") == "1.0"
    assert seen.header("A2A-Extensions") == EXT
    assert seen.header("Authorization") == "Bearer s3cret-token-value"
    assert seen.json()["params"]["configuration"]["acceptedOutputModes"] == ["application/json"]


async def test_a_request_with_its_own_locked_headers_and_modes_is_sent_as_given(
    tmp_path: Path, recorder: Recorder
) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    agent = lock.agent("echo", "echo")
    body = send_message(configuration={"acceptedOutputModes": ["Application/JSON"]})
    await post(agent, rpc(recorder), body, {"A2A-Version": "1.0.0", "A2A-Extensions": EXT})
    [seen] = recorder.requests
    assert seen.json() == body
    assert seen.header("A2A-Version") == "1.0"


REFUSED: list[tuple[str, dict[str, Any], Any, dict[str, str], str]] = [
    ("A2A-Version 0.3", {}, send_message(), {"A2A-Version": "0.3"}, "conflicts with the locked 1.0"),
    ("an extension not locked", {}, send_message(), {"A2A-Extensions": "https://evil.example/ext"}, "is not locked"),
    ("a legacy extension header not locked", {}, send_message(), {"X-A2A-Extensions": "urn:x"}, "is not locked"),
    ("streaming on a poll plan", {}, send_message(method="SendStreamingMessage"), {}, "locked delivery is poll"),
    (
        "subscribe on a poll plan",
        {},
        {"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": "t"}},
        {},
        "streaming",
    ),
    (
        "a push config where none is locked",
        {},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "CreateTaskPushNotificationConfig",
            "params": {"url": "http://127.0.0.1:1/p"},
        },
        {},
        "push notification config",
    ),
    (
        "a push config in a send on a poll plan",
        {},
        send_message(configuration={"taskPushNotificationConfig": {"url": "http://127.0.0.1:1/p"}}),
        {},
        "push notification config",
    ),
    (
        "an empty push config on a poll plan",
        {},
        send_message(configuration={"pushNotificationConfig": {}}),
        {},
        "push notification config",
    ),
    (
        "an empty push config on a push plan (no url)",
        {"delivery": "push"},
        send_message(configuration={"taskPushNotificationConfig": []}),
        {},
        "without a url",
    ),
    (
        "a push url that is not the locked endpoint",
        {"delivery": "push"},
        send_message(configuration={"taskPushNotificationConfig": {"url": "http://127.0.0.1:2/evil"}}),
        {},
        "not the locked pushEndpoint",
    ),
    (
        "a part type outside the input modes",
        {},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"message": {"parts": [{"raw": "AAAA", "mediaType": "image/png"}]}},
        },
        {},
        "not in the locked input modes",
    ),
    (
        "bytes without a media type",
        {},
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"parts": [{"raw": "AAAA"}]}}},
        {},
        "application/octet-stream",
    ),
    (
        "a part with no content",
        {},
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"parts": [{}]}}},
        {},
        "no recognisable content",
    ),
    (
        "an accepted output mode not locked",
        {},
        send_message(configuration={"acceptedOutputModes": ["application/json", "text/html"]}),
        {},
        "text/html",
    ),
    (
        "a 0.3 method on a 1.0 plan",
        {},
        send_message(method="message/send"),
        {},
        "not a JSON-RPC method of the locked version 1.0",
    ),
    ("a batch", {}, [send_message()], {}, "batch"),
    ("not JSON", {}, "not json", {}, "not JSON"),
    (
        "a message extension not locked",
        {},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"message": {"extensions": ["urn:x"], "parts": [{"text": "a"}]}},
        },
        {},
        "urn:x",
    ),
    ("a header named __proto__", {}, send_message(), {"__proto__": "x"}, '"__proto__" is refused'),
    (
        "a message on GetTask",
        {},
        {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t", "message": {}}},
        {},
        '"message"',
    ),
]


@pytest.mark.parametrize(("name", "plan", "body", "headers", "says"), REFUSED, ids=[r[0] for r in REFUSED])
async def test_off_plan_requests_are_refused_before_a_byte_is_sent(
    tmp_path: Path, recorder: Recorder, name: str, plan: dict[str, Any], body: Any, headers: dict[str, str], says: str
) -> None:
    push = "http://127.0.0.1:9/push" if plan.get("delivery") == "push" else None
    lock = load_lock(write_lock(tmp_path, recorder.url, plan=plan, push_endpoint=push), env=ENV)
    agent = lock.agent("echo", "echo")
    content = body if isinstance(body, str) else json.dumps(body)
    with pytest.raises(PlanViolationError) as caught:
        async with agent.httpx_client() as http:
            await http.post(rpc(recorder), content=content, headers=headers)
    assert says in str(caught.value)
    assert str(caught.value).startswith("plan-violation: echo (echo): ")
    assert recorder.bytes_received == 0 and recorder.connections == 0
    assert lock.refusals == [caught.value]


async def test_the_locked_push_endpoint_is_allowed(tmp_path: Path, recorder: Recorder) -> None:
    push = "https://hooks.example/a2a"
    lock = load_lock(write_lock(tmp_path, recorder.url, plan={"delivery": "push"}, push_endpoint=push), env=ENV)
    body = send_message(configuration={"taskPushNotificationConfig": {"url": push}})
    await post(lock.agent("echo", "echo"), rpc(recorder), body)
    assert recorder.requests[0].json()["params"]["configuration"]["taskPushNotificationConfig"] == {"url": push}


@pytest.mark.parametrize(
    "url",
    ["{other}/a2a/jsonrpc", "{own}/a2a/other", "{own}/a2a/jsonrpc?x=1", "http://user:pw@127.0.0.1:{port}/a2a/jsonrpc"],
)
async def test_only_the_locked_interface_url(tmp_path: Path, recorder: Recorder, other: Recorder, url: str) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    target = url.format(other=other.url, own=recorder.url, port=recorder.port)
    with pytest.raises(PlanViolationError, match="is not the locked interface"):
        await post(lock.agent("echo", "echo"), target, send_message())
    assert recorder.bytes_received == 0 and other.bytes_received == 0
    assert "pw" not in str(lock.refusals[0])


async def test_http_json_routes(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url, binding="HTTP+JSON"), env=ENV)
    agent = lock.agent("echo", "echo")
    async with agent.httpx_client() as http:
        await http.get(f"{recorder.url}/a2a/rest/tasks/t1")
        await http.post(f"{recorder.url}/a2a/rest/message:send", content=json.dumps(send_message()["params"]))
        assert len(recorder.requests) == 2
        for path in (
            "/a2a/rest/message:stream",
            "/a2a/rest/tasks/t1:subscribe",
            "/a2a/rest/tasks/t1/pushNotificationConfigs",
        ):
            with pytest.raises(PlanViolationError):
                await http.post(f"{recorder.url}{path}", content="{}")
        with pytest.raises(PlanViolationError, match="not an A2A route"):
            await http.post(f"{recorder.url}/a2a/rest/v1/message%3Astream2", content="{}")
        with pytest.raises(PlanViolationError, match="not the locked interface"):
            await http.get(f"{recorder.url}/a2a/restless")
    assert len(recorder.requests) == 2
    assert recorder.requests[1].header("Authorization") == "Bearer s3cret-token-value"


async def test_a_jsonrpc_request_without_a_body_is_refused(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with pytest.raises(PlanViolationError, match="without a body"):
        async with lock.agent("echo", "echo").httpx_client() as http:
            await http.get(rpc(recorder))
    assert recorder.bytes_received == 0


# --- redirects ---------------------------------------------------------------------------------------------------


async def test_a_redirect_to_another_origin_is_refused_and_carries_nothing(
    tmp_path: Path, recorder: Recorder, other: Recorder
) -> None:
    recorder.answer = lambda r: (307, {"location": f"{other.url}/a2a/jsonrpc"}, b"")
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with pytest.raises(PlanViolationError, match=r"redirect to .* refused: not the locked interface"):
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert other.bytes_received == 0


async def test_a_method_changing_redirect_is_refused(tmp_path: Path, recorder: Recorder) -> None:
    recorder.answer = lambda r: (302, {"location": "/a2a/jsonrpc"}, b"")
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with pytest.raises(PlanViolationError, match="answered 302"):
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert len(recorder.requests) == 1


async def test_a_same_interface_redirect_is_followed_and_bounded(tmp_path: Path, recorder: Recorder) -> None:
    recorder.answer = lambda r: (307, {"location": "/a2a/jsonrpc"}, b"")
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    with pytest.raises(PlanViolationError, match="more than 5 redirects"):
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert len(recorder.requests) == 5


# --- credentials -------------------------------------------------------------------------------------------------


async def test_an_unset_credential_sends_nothing_and_names_the_variable(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env={})
    with pytest.raises(CredentialUnsetError, match="ECHO_TOKEN is not set") as caught:
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert caught.value.code == "credential-unset"
    assert recorder.bytes_received == 0


async def test_the_environment_is_read_at_each_request(tmp_path: Path, recorder: Recorder) -> None:
    env = {"ECHO_TOKEN": "first"}
    lock = load_lock(write_lock(tmp_path, recorder.url), env=env)
    async with lock.agent("echo", "echo").httpx_client() as http:
        await http.post(rpc(recorder), content=json.dumps(send_message()))
        env["ECHO_TOKEN"] = "second"
        await http.post(rpc(recorder), content=json.dumps(send_message()))
    assert [r.header("Authorization") for r in recorder.requests] == ["Bearer first", "Bearer second"]


async def test_providers_per_agent_sync_and_async(tmp_path: Path, recorder: Recorder) -> None:
    asked: list[CredentialRequest] = []
    tokens = iter(["t1", "t2"])

    async def provider(request: CredentialRequest) -> str:
        asked.append(request)
        return next(tokens)

    path = write_lock(tmp_path, recorder.url)
    lock = load_lock(path, env={}, credentials={"echo": {"bearer": provider}})
    await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert [r.header("Authorization") for r in recorder.requests] == ["Bearer t1", "Bearer t2"]
    assert asked[0] == CredentialRequest("echo", "echo", "bearer", (), recorder.url)
    lock2 = load_lock(path, env={}, credentials=lambda request: f"fn-{request.scheme}")
    await post(lock2.agent("echo", "echo"), rpc(recorder), send_message())
    assert recorder.requests[-1].header("Authorization") == "Bearer fn-bearer"


async def test_a_provider_returning_nothing_is_credential_unset(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV, credentials={"echo": {"bearer": lambda r: None}})
    with pytest.raises(CredentialUnsetError, match="returned nothing"):
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert recorder.bytes_received == 0


def test_the_credentials_option_is_checked(tmp_path: Path, recorder: Recorder) -> None:
    path = write_lock(tmp_path, recorder.url)
    with pytest.raises(UsageError, match="scheme-only form"):
        load_lock(path, credentials={"bearer": lambda r: "x"})  # type: ignore[dict-item]
    with pytest.raises(UsageError, match="not an agent of"):
        load_lock(path, credentials={"nobody": {"bearer": lambda r: "x"}})
    with pytest.raises(UsageError, match=r"no agent of .* records a platform credential"):
        load_lock(path, origin_auth={"https://gatewy.example": lambda: "x"})


async def test_api_key_in_the_query(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url, credentials={"key": {"env": "K"}}), env={"K": "k v&1~*"})
    await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    assert recorder.requests[0].target == "/a2a/jsonrpc?api_key=k+v%261%7E*"


async def test_no_credential_on_plain_http_off_loopback(tmp_path: Path) -> None:
    url = "http://agent.invalid:8080"
    lock = load_lock(write_lock(tmp_path, url, allow_http=True), env=ENV)
    with pytest.raises(PlanViolationError, match="plain http to a host that is not loopback"):
        await post(lock.agent("echo", "echo"), f"{url}/a2a/jsonrpc", send_message())


async def test_secrets_never_appear_in_errors_or_repr(tmp_path: Path, recorder: Recorder) -> None:
    secret = ENV["ECHO_TOKEN"]
    lock = load_lock(write_lock(tmp_path, recorder.url), env=ENV)
    agent = lock.agent("echo", "echo")
    texts = [repr(lock), repr(agent), repr(agent.plan)]
    async with agent.httpx_client() as http:
        texts.append(repr(http._transport))
        for headers in ({"A2A-Version": "9.9"}, {"A2A-Extensions": "urn:x"}):
            with pytest.raises(PlanViolationError) as caught:
                await http.post(rpc(recorder), content=json.dumps(send_message(text=secret)), headers=headers)
            texts += [str(caught.value), repr(caught.value), json.dumps(caught.value.to_json())]
    assert all(secret not in t for t in texts)


async def test_reading_and_deleting_push_configs_is_allowed_on_a_poll_plan(tmp_path: Path, recorder: Recorder) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url, binding="HTTP+JSON"), env=ENV)
    base = f"{recorder.url}/a2a/rest/tasks/t1/pushNotificationConfigs"
    async with lock.agent("echo", "echo").httpx_client() as http:
        await http.get(base)
        await http.get(f"{base}/c1")
        await http.delete(f"{base}/c1")
        for method in ("POST", "PUT"):
            with pytest.raises(PlanViolationError, match="push notification config"):
                await http.request(method, base, content=json.dumps({"url": "https://x.example/p"}))
    assert [r.method for r in recorder.requests] == ["GET", "GET", "DELETE"]


async def test_a_network_failure_is_unreachable_and_quotes_no_credential(tmp_path: Path) -> None:
    closed = Recorder().start()
    closed.stop()
    lock = load_lock(write_lock(tmp_path, closed.url, credentials={"key": {"env": "K"}}), env={"K": "query-secret"})
    with pytest.raises(FetchError) as caught:
        await post(lock.agent("echo", "echo"), rpc(closed), send_message())
    error = caught.value
    assert error.code == "unreachable" and error.data["agent"] == "echo"
    assert error.__cause__ is None and error.__context__ is None
    assert "query-secret" not in str(error) and "api_key" not in str(error)


@pytest.mark.parametrize(
    ("secret", "sent"),
    [("space inside", "Bearer space inside"), ("line\nbreak", None), ("nul\x00", None), ("del\x7f", None)],
)
async def test_control_characters_in_a_credential(
    tmp_path: Path, recorder: Recorder, secret: str, sent: str | None
) -> None:
    lock = load_lock(write_lock(tmp_path, recorder.url), env={"ECHO_TOKEN": secret})
    if sent is None:
        with pytest.raises(UsageError, match="line break or control character") as caught:
            await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
        assert secret not in str(caught.value)
        assert recorder.bytes_received == 0
    else:
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
        assert recorder.requests[0].header("Authorization") == sent


@pytest.mark.parametrize(
    "secret",
    ["S3cret-t\u00f6k-Wq7xz", "Tk9w-\U0001f600-Qz7m", " Lq9wz-Rt8vk", "Lq9wz-Rt8vk ", "Tb4x\tQz7m"],
    ids=["non-ascii", "emoji", "leading-space", "trailing-space", "tab"],
)
async def test_a_credential_a_header_cannot_carry_is_refused_before_sending(
    tmp_path: Path, recorder: Recorder, secret: str
) -> None:
    # The rule both runtimes share (conformance credential-http/bearer-non-ascii, ...): printable ASCII without a
    # leading or trailing space, else usage, nothing sent; was an untyped UnicodeEncodeError whose repr held the whole
    # "Bearer <token>", or a LocalProtocolError said as unreachable.
    lock = load_lock(write_lock(tmp_path, recorder.url), env={"ECHO_TOKEN": secret})
    with pytest.raises(UsageError) as caught:
        await post(lock.agent("echo", "echo"), rpc(recorder), send_message())
    error = caught.value
    assert error.code == "usage"
    assert error.message.startswith('echo (echo): security scheme "bearer" (http): ')
    assert "not printable ASCII" in error.message
    assert recorder.bytes_received == 0
    shown = "\n".join(
        [str(error), repr(error), json.dumps(error.to_json()), "".join(traceback.format_exception(error))]
    )
    for part in {secret.strip(), *secret.replace("\t", "-").split("-")}:
        assert part.strip() not in shown, part
