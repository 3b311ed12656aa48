"""The core (load_lock + the enforcing httpx client, no a2a-sdk client) against real agents locked by the built
CLI: a2a-sdk 1.3 servers (test/python/sdk_agent.py) and a JS SDK agent (scripts/agents.js)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2a_lock import PlanViolationError, load_lock
from sdk_peers import CLI, PROFILE, js_agent, lock_project, sdk_agent

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="needs the built CLI (npm run build)")

TOKEN = "peer-token-123"


def message(method: str, text: str = "hello") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}},
    }


async def test_a_cli_lockfile_of_an_a2a_sdk_agent_is_enforced(tmp_path: Path) -> None:
    with sdk_agent(token=TOKEN, streaming=False) as peer:
        manifest = {
            "profile": {**PROFILE, "versions": ["1.0"], "streaming": False},
            "agents": {"py": {"card": peer.origin, "credentials": {"bearer": {"env": "PEER_TOKEN"}}}},
        }
        path = lock_project(tmp_path, manifest, {"PEER_TOKEN": TOKEN})
        lock = load_lock(path, env={"PEER_TOKEN": TOKEN})
        agent = lock.agent("py")
        assert agent.plan.protocol_binding == "JSONRPC" and agent.plan.delivery == "poll"
        before = len(peer.seen())
        async with agent.httpx_client() as http:
            response = await http.post(agent.plan.url, content=json.dumps(message("SendMessage")))
            assert response.status_code == 200
            assert "echo: hello" in response.text
            with pytest.raises(PlanViolationError, match="locked delivery is poll"):
                await http.post(agent.plan.url, content=json.dumps(message("SendStreamingMessage")))
            with pytest.raises(PlanViolationError, match=r"conflicts with the locked 1\.0"):
                await http.post(
                    agent.plan.url, content=json.dumps(message("SendMessage")), headers={"A2A-Version": "0.3"}
                )
        seen = peer.seen()[before:]
        assert [(s["method"], s["version"], s["authorization"]) for s in seen] == [("POST", "1.0", True)]
        assert len(lock.refusals) == 2


async def test_a_cli_lockfile_of_a_js_sdk_agent_is_enforced(tmp_path: Path) -> None:
    with js_agent() as peer:
        manifest = {"profile": {**PROFILE, "versions": ["1.0"]}, "agents": {"js": {"card": peer.origin}}}
        lock = load_lock(lock_project(tmp_path, manifest), env={})
        agent = lock.agent("js")
        before = len(peer.seen())
        async with agent.httpx_client() as http:
            response = await http.post(agent.plan.url, content=json.dumps(message("SendMessage")))
            assert response.status_code == 200, response.text
            with pytest.raises(PlanViolationError, match="not the locked interface"):
                await http.post(agent.plan.url + "/other", content=json.dumps(message("SendMessage")))
        assert len(peer.seen()) - before == 1
