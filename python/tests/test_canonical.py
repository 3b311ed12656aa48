import json
from pathlib import Path

import pytest

from a2a_lock.canonical import DuplicateKeyError, canonical_json, integrity_of, js_number, parse_json

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "conformance" / "vectors" / "integrity.json").read_text(encoding="utf-8"))["cases"]


def test_there_are_vectors() -> None:
    assert len(VECTORS) > 15


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_integrity_vectors_match_the_javascript_implementation(case: dict[str, str]) -> None:
    value = parse_json(case["json"])
    assert canonical_json(value) == case["canonical"]
    assert integrity_of(value) == case["integrity"]


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(DuplicateKeyError):
        parse_json('{"a":1,"a":2}')
    with pytest.raises(ValueError):
        parse_json("[NaN]")


def test_js_number() -> None:
    assert [js_number(x) for x in (1e21, 1e20, 1.5e-7, 1e-6, -0.0, 2.0)] == [
        "1e+21",
        "100000000000000000000",
        "1.5e-7",
        "0.000001",
        "0",
        "2",
    ]
