"""The locked card served from the lockfile (a GET of a locked card URL), against the JavaScript runtime's cards
(conformance/vectors/narrowed-card.json); nothing reaches the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2a_lock import load_lock

ROOT = Path(__file__).resolve().parents[2]
FIXTURES: list[dict[str, Any]] = json.loads((ROOT / "conformance" / "vectors" / "narrowed-card.json").read_text())[
    "fixtures"
]
CASES = [(f, c) for f in FIXTURES for c in f["cases"]]


def test_there_are_vectors() -> None:
    assert len(CASES) > 50


@pytest.mark.parametrize(
    ("fixture", "case"), CASES, ids=[f"{f['fixture']}-{c['agent']}-{c['skill']}-{c['version']}" for f, c in CASES]
)
async def test_the_card_is_the_javascript_runtimes(
    tmp_path: Path, fixture: dict[str, Any], case: dict[str, Any]
) -> None:
    path = tmp_path / "a2a.lock.json"
    path.write_text(json.dumps(fixture["lockfile"]))
    agent = load_lock(path, env={}).agent(case["agent"], case["skill"])
    async with agent.httpx_client() as http:
        response = await http.get(case["url"], headers={"A2A-Version": case["version"]})
    assert response.status_code == 200
    assert response.headers["vary"] == "A2A-Version"
    assert response.json() == case["card"]
