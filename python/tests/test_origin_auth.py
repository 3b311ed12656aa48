"""originAuth: the platform header goes to its recorded origin only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_lock import A2aLockError, UsageError, load_lock
from a2a_lock.origin_auth import credential_origin_of
from locks import send_message, write_lock
from loopback import Recorder


async def post(lock_path: Path, recorder: Recorder, **options: object) -> None:
    lock = load_lock(lock_path, **options)  # type: ignore[arg-type]
    async with lock.agent("echo", "echo").httpx_client() as http:
        await http.post(f"{recorder.url}/a2a/jsonrpc", content=json.dumps(send_message()))


async def test_a_header_placement_with_a_prefix(tmp_path: Path, recorder: Recorder) -> None:
    auth = {recorder.url: {"header": {"name": "X-Serverless-Authorization", "env": "ID_TOKEN", "prefix": "Bearer "}}}
    path = write_lock(tmp_path, recorder.url, origin_auth=auth)
    await post(path, recorder, env={"ECHO_TOKEN": "agent", "ID_TOKEN": "platform"})
    [seen] = recorder.requests
    assert seen.header("X-Serverless-Authorization") == "Bearer platform"
    assert seen.header("Authorization") == "Bearer agent"


async def test_a_provider_wins_over_the_environment(tmp_path: Path, recorder: Recorder) -> None:
    auth = {recorder.url: {"header": {"name": "X-Platform", "env": "ID_TOKEN"}}}
    path = write_lock(tmp_path, recorder.url, origin_auth=auth)

    async def provider() -> str:
        return "from-provider"

    await post(path, recorder, env={"ECHO_TOKEN": "a", "ID_TOKEN": "env"}, origin_auth={recorder.url: provider})
    assert recorder.requests[0].header("X-Platform") == "from-provider"


async def test_a_bearer_placement_colliding_with_the_agents_credential_sends_nothing(
    tmp_path: Path, recorder: Recorder
) -> None:
    path = write_lock(tmp_path, recorder.url, origin_auth={recorder.url: {"bearer": {"env": "ID_TOKEN"}}})
    with pytest.raises(UsageError, match="would replace the request's own Authorization"):
        await post(path, recorder, env={"ECHO_TOKEN": "a", "ID_TOKEN": "p"})
    assert recorder.bytes_received == 0


async def test_an_unset_platform_credential(tmp_path: Path, recorder: Recorder) -> None:
    path = write_lock(
        tmp_path, recorder.url, credentials={}, origin_auth={recorder.url: {"bearer": {"env": "ID_TOKEN"}}}
    )
    with pytest.raises(A2aLockError, match="ID_TOKEN is not set") as caught:
        await post(path, recorder, env={})
    assert caught.value.code == "credential-unset"
    assert recorder.bytes_received == 0


async def test_awssigv4_without_the_signer_names_the_extra(
    tmp_path: Path, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from a2a_lock import origin_auth

    monkeypatch.setattr(origin_auth, "SIGNER_HOOK", "a2a_lock_missing_module:sign_v4")
    auth = {recorder.url: {"awsSigV4": {"region": "us-east-1", "service": "bedrock-agentcore"}}}
    path = write_lock(tmp_path, recorder.url, credentials={}, origin_auth=auth)
    with pytest.raises(UsageError, match=r"a2a-lock\[aws\]"):
        await post(path, recorder, env={"AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "x"})
    assert recorder.bytes_received == 0


_CREDENTIAL_ORIGIN = json.loads(
    (Path(__file__).resolve().parents[2] / "conformance/vectors/credential-origin.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", _CREDENTIAL_ORIGIN["cases"], ids=lambda case: case["url"])
def test_the_origin_a_credential_reaches_is_the_shared_vectors(case: dict[str, str]) -> None:
    # conformance/vectors/credential-origin.json: the same origin as the JavaScript runtime tells its providers.
    assert credential_origin_of(case["url"]) == case["origin"]
