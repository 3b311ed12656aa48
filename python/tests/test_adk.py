"""Google ADK's ``RemoteA2aAgent`` calling a real a2a-sdk 1.3 agent through the loader (a2a_lock.adk): a root
``LlmAgent`` (an offline model that transfers to the remote agent) run by ``InMemoryRunner``. The locked card is
used (no card fetch), the request goes to the locked interface with the locked version; a request the plan
refuses reaches the agent not at all, arrives as an ADK event naming the code, and is in ``Lock.refusals``."""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

from a2a_lock import UsageError, load_lock
from a2a_lock.adk import remote_a2a_agent
from sdk_peers import PROFILE, Peer, lock_project, sdk_agent


class TransferLlm(BaseLlm):
    """An offline model that hands the conversation to the agent ``research``."""

    model: str = "transfer-model"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        call = types.FunctionCall(name="transfer_to_agent", args={"agent_name": "research"})
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))


@pytest.fixture(scope="module")
def peer() -> Iterator[Peer]:
    with sdk_agent(bindings=["JSONRPC", "HTTP+JSON"], versionField=True) as server:
        yield server


async def run(lock: Any, parts: list[types.Part]) -> list[Any]:
    remote = remote_a2a_agent(lock.agent("py", "market-size"), name="research")
    root = LlmAgent(name="root", model=TransferLlm(), sub_agents=[remote])
    runner = InMemoryRunner(agent=root, app_name="locked")
    session = await runner.session_service.create_session(app_name="locked", user_id="u")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            event
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=types.Content(role="user", parts=parts)
            )
        ]


def calls(peer: Peer) -> list[tuple[str, str, str | None]]:
    return [(r["method"], r["path"], r["version"]) for r in peer.seen() if not r["path"].startswith("/.well-known/")]


async def test_remote_a2a_agent_calls_through_the_plan(tmp_path: Path, peer: Peer) -> None:
    profile = {**PROFILE, "bindings": ["HTTP+JSON", "JSONRPC"], "streaming": False}
    lock_project(tmp_path, {"profile": profile, "agents": {"py": {"card": peer.origin, "skills": ["market-size"]}}})
    lock = load_lock(tmp_path / "a2a.lock.json", env={})
    before = len(peer.seen())
    events = await run(lock, [types.Part(text="size the market")])
    texts = [p.text for e in events if e.author == "research" and e.content for p in e.content.parts or [] if p.text]
    assert texts and texts[0].startswith("echo: size the market")
    # The locked interface (HTTP+JSON, listed second on the card), the locked version, and no card fetch.
    assert [(r["method"], r["path"], r["version"]) for r in peer.seen()[before:]] == [
        ("POST", "/a2a/rest/message:send", "1.0")
    ]
    assert lock.refusals == []


async def test_a_refusal_is_an_adk_event_naming_the_code_and_in_the_record(tmp_path: Path, peer: Peer) -> None:
    profile = {**PROFILE, "streaming": False}
    lock_project(tmp_path, {"profile": profile, "agents": {"py": {"card": peer.origin, "skills": ["market-size"]}}})
    lock = load_lock(tmp_path / "a2a.lock.json", env={})
    before = len(peer.seen())
    image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG\r\n"))
    events = await run(lock, [types.Part(text="what is in this picture?"), image])
    errors = [e.error_message for e in events if e.error_message]
    assert any("plan-violation" in message for message in errors), errors
    assert peer.seen()[before:] == []
    assert [e.code for e in lock.refusals] == ["plan-violation"]
    assert "image/png" in str(lock.refusals[0])


def test_the_loader_arguments_are_not_overridden(tmp_path: Path, peer: Peer) -> None:
    lock_project(tmp_path, {"profile": PROFILE, "agents": {"py": {"card": peer.origin, "skills": ["market-size"]}}})
    agent = load_lock(tmp_path / "a2a.lock.json", env={}).agent("py", "market-size")
    with pytest.raises(UsageError, match="httpx_client is the loader's"):
        remote_a2a_agent(agent, httpx_client=object())
