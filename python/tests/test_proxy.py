import json
from pathlib import Path
from typing import Any

import pytest

from a2a_lock.proxy import is_loopback_host, proxy_route

ROOT = Path(__file__).resolve().parents[2]
VECTORS: list[dict[str, Any]] = json.loads((ROOT / "conformance" / "vectors" / "proxy.json").read_text())["cases"]


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 40


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_proxy_vectors(case: dict[str, Any]) -> None:
    route = proxy_route(case["env"], case["url"], credential=case["credential"])
    expect = case["expect"]
    if expect == "direct":
        assert route.kind == "direct"
    elif "proxy" in expect:
        assert (route.kind, route.proxy, route.variable) == ("proxy", expect["proxy"], expect["variable"])
    else:
        assert (route.kind, route.variable) == ("refuse", expect["refuse"])
        assert route.reason is not None and expect["refuse"] in route.reason
        # The variable's value (it may hold a proxy password) is never quoted.
        value = case["env"][expect["refuse"]]
        assert value not in route.reason


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.255.0.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("::ffff:127.0.0.1", True),
        ("128.0.0.1", False),
        ("example.com", False),
        ("0.0.0.0", False),  # noqa: S104
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback
