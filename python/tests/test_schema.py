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


MEDIA_TYPE = {"type": "string", "pattern": r"^[!#$%&'+.^_`|~0-9A-Za-z-]+\/[!#$%&'+.^_`|~0-9A-Za-z-]+(\s*;.*)?$"}


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("text/plain; charset=utf-8", True),
        ("text/plain\u00a0; charset=utf-8", True),  # ECMAScript's \s: the no-break space
        ("text/plain\ufeff; charset=utf-8", True),
        ("text/plain\u2003;q=1", True),
        ("text/plain; charset=utf-8\u2028", False),  # ECMAScript's `.`: no line terminator
        ("text/plain; a=\u2029b", False),
        ("text/plain;\r", False),
        ("text/plain;\n", False),
        ("text/plain\n", False),  # `$` is the end of input
        ("text/plain; a=\u0085", True),  # NEL is no ECMAScript line terminator
    ],
)
def test_a_pattern_means_what_it_means_in_ecmascript(value: str, valid: bool) -> None:
    assert (first_error(value, MEDIA_TYPE) is None) is valid


def test_a_pattern_the_translation_does_not_know_fails_closed() -> None:
    for pattern in ("^[]a$", "^[^]$", r"^[\S]$"):
        with pytest.raises(SchemaKeywordError):
            first_error("a", {"type": "string", "pattern": pattern})
