import json
from pathlib import Path
from typing import Any

import pytest

from a2a_lock.errors import InvalidInputError
from a2a_lock.lock import parse_lockfile
from a2a_lock.schema import SchemaKeywordError, first_error

ROOT = Path(__file__).resolve().parents[2]
VECTORS: list[dict[str, Any]] = json.loads((ROOT / "conformance" / "vectors" / "lockfile-schema.json").read_text())[
    "cases"
]


def test_the_package_ships_the_shared_schemas_unchanged() -> None:
    for name in ("a2a-lock.schema.json", "a2a.schema.json"):
        shipped = ROOT / "python" / "src" / "a2a_lock" / "schemas" / name
        assert shipped.read_bytes() == (ROOT / "schemas" / name).read_bytes(), f"copy schemas/{name} into the package"


def test_there_are_vectors_both_ways() -> None:
    assert sum(c["valid"] for c in VECTORS) >= 10
    assert sum(not c["valid"] for c in VECTORS) >= 40


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_lockfile_vectors_same_verdict_as_the_cli(case: dict[str, Any]) -> None:
    if case["valid"]:
        parse_lockfile(case["json"], "a2a.lock.json")
        return
    with pytest.raises(InvalidInputError) as caught:
        parse_lockfile(case["json"], "a2a.lock.json")
    assert caught.value.code == "lockfile-invalid"
    if "path" in case and case["name"] != "a duplicate key":  # the Python JSON reader does not know where
        assert caught.value.path == case["path"]


def test_an_unknown_keyword_fails_closed() -> None:
    with pytest.raises(SchemaKeywordError):
        first_error({}, {"type": "object", "minProperties": 1})
