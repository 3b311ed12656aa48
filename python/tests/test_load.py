"""load_lock: the lockfile and manifest checks, the digest, and the read-only plan and snapshot."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from a2a_lock import (
    A2aLockError,
    DigestMismatchError,
    InvalidInputError,
    OutOfDateError,
    UsageError,
    load_lock,
    lock_digest,
)
from a2a_lock.canonical import parse_json
from locks import write_lock

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "a2a.lock.json.example"
URL = "http://127.0.0.1:4999"


def edit(path: Path, change: Any) -> None:
    value = json.loads(path.read_text())
    change(value)
    path.write_text(json.dumps(value))


def test_expect_digest(tmp_path: Path) -> None:
    lockfile = tmp_path / "a2a.lock.json"
    shutil.copy(EXAMPLE, lockfile)
    vectors = json.loads((ROOT / "conformance" / "vectors" / "integrity.json").read_text())["cases"]
    digest = next(c["integrity"] for c in vectors if c["name"].startswith("a2a.lock.json.example whole file"))
    assert lock_digest(parse_json(lockfile.read_text())) == digest
    assert load_lock(lockfile, expect_digest=digest).agents == ["currency-agent", "research-agent"]
    # The same content reformatted has the same digest.
    lockfile.write_text(json.dumps(json.loads(lockfile.read_text())))
    load_lock(lockfile, expect_digest=digest)
    edit(lockfile, lambda v: v["agents"]["research-agent"].__setitem__("version", "9"))
    with pytest.raises(DigestMismatchError) as caught:
        load_lock(lockfile, expect_digest=digest)
    assert caught.value.code == "digest-mismatch" and digest in str(caught.value)
    with pytest.raises(UsageError, match="expect_digest must be a lockfile digest"):
        load_lock(lockfile, expect_digest="sha256-nope")


def test_a_missing_lockfile(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no lockfile here") as caught:
        load_lock(tmp_path / "a2a.lock.json")
    assert caught.value.code == "lockfile-invalid"


def test_a_newer_lockfile_version(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL)
    edit(path, lambda v: v.__setitem__("lockfileVersion", 2))
    with pytest.raises(InvalidInputError, match="needs a newer a2a-lock"):
        load_lock(path)


def test_an_agent_without_settings(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL, manifest=False)
    edit(path, lambda v: v["settings"].clear())
    with pytest.raises(InvalidInputError, match='agent "echo" has no settings'):
        load_lock(path)


def test_a_tampered_snapshot_is_refused_on_every_use(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL)
    edit(path, lambda v: v["agents"]["echo"]["snapshot"]["skills"][0].__setitem__("inputModes", ["image/png"]))
    lock = load_lock(path, env={})
    for _ in range(2):
        with pytest.raises(InvalidInputError, match="snapshot does not match its integrity") as caught:
            lock.agent("echo", "echo")
        assert caught.value.code == "lockfile-invalid"


def test_a_plan_moved_off_the_card_is_out_of_date(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL)
    edit(path, lambda v: v["agents"]["echo"]["plans"]["echo"].__setitem__("url", "https://evil.example/a2a"))
    with pytest.raises(OutOfDateError, match=r"no longer negotiates \(no-common-interface\)"):
        load_lock(path, env={}).agent("echo", "echo")


def test_an_invalid_entry_breaks_only_its_agent(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL, manifest=False)

    def two(value: dict[str, Any]) -> None:
        value["agents"]["broken"] = json.loads(json.dumps(value["agents"]["echo"]))
        value["settings"]["broken"] = value["settings"]["echo"]
        value["agents"]["broken"]["plans"]["echo"]["delivery"] = "webhook"

    edit(path, two)
    lock = load_lock(path, env={})
    lock.agent("echo", "echo")
    with pytest.raises(InvalidInputError) as caught:
        lock.agent("broken", "echo")
    assert caught.value.path == "$.agents.broken.plans.echo.delivery"


def test_a_manifest_that_does_not_match_is_out_of_date(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL)
    edit(tmp_path / "a2a.json", lambda v: v["agents"]["echo"].__setitem__("skills", ["echo", "other"]))
    with pytest.raises(OutOfDateError, match=r"skills changed \(echo → echo, other\)") as caught:
        load_lock(path, env={}).agent("echo", "echo")
    assert caught.value.code == "lockfile-out-of-date"
    edit(tmp_path / "a2a.json", lambda v: v["agents"]["echo"].__setitem__("skills", ["echo"]))
    edit(tmp_path / "a2a.json", lambda v: v["profile"].__setitem__("accepts", ["text/plain"]))
    with pytest.raises(OutOfDateError, match="profile, credentials, version range or trust changed"):
        load_lock(path, env={}).agent("echo", "echo")


def test_a_manifest_with_credential_destinations_loads(tmp_path: Path) -> None:
    """credentialDestinations (issue 36) is in the manifest schema: the agent loads; an entry with a path is refused."""
    path = write_lock(tmp_path, URL)
    edit(tmp_path / "a2a.json", lambda v: v.__setitem__("credentialDestinations", ["https://*.run.app", URL]))
    assert load_lock(path, env={}).agent("echo", "echo").plan.url.startswith(URL)
    edit(tmp_path / "a2a.json", lambda v: v.__setitem__("credentialDestinations", ["https://a.example.com/path"]))
    with pytest.raises(InvalidInputError) as caught:
        load_lock(path, env={}).agent("echo", "echo")
    assert caught.value.code == "manifest-invalid"
    assert caught.value.path == "$.credentialDestinations[0]"


def test_an_invalid_or_missing_manifest(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL)
    (tmp_path / "a2a.json").write_text('{"profile": {}}')
    with pytest.raises(InvalidInputError) as caught:
        load_lock(path).agent("echo", "echo")
    assert caught.value.code == "manifest-invalid"
    with pytest.raises(A2aLockError) as missing:
        load_lock(path, manifest=tmp_path / "nope.json")
    assert missing.value.code == "manifest-not-found"


def test_a_byte_order_mark_is_skipped_as_the_cli_does(tmp_path: Path) -> None:
    # Some editors save a UTF-8 byte-order mark: the CLI and the JavaScript runtime skip one (as npm does), so does
    # load_lock, for the lockfile and the manifest beside it; the digest is the parsed file's, mark or not.
    path = write_lock(tmp_path, URL)
    digest = lock_digest(parse_json(path.read_text()))
    for file in (path, tmp_path / "a2a.json"):
        file.write_text("\ufeff" + file.read_text(), encoding="utf-8")
    lock = load_lock(path, env={"ECHO_TOKEN": "t"}, expect_digest=digest)
    assert lock.agents == ["echo"] and lock.agent("echo", "echo").plan.url == f"{URL}/a2a/jsonrpc"
    # One mark, not two: a second one is not JSON.
    path.write_text("\ufeff" + path.read_text(), encoding="utf-8")
    with pytest.raises(InvalidInputError) as caught:
        load_lock(path)
    assert caught.value.code == "lockfile-invalid"


def test_unknown_agent_or_skill(tmp_path: Path) -> None:
    lock = load_lock(write_lock(tmp_path, URL), env={})
    with pytest.raises(UsageError, match='no locked agent "nobody"'):
        lock.agent("nobody")
    with pytest.raises(UsageError, match='no locked skill "\\*"'):
        lock.agent("echo")


def test_plan_and_snapshot_are_read_only(tmp_path: Path) -> None:
    agent = load_lock(write_lock(tmp_path, URL), env={}).agent("echo", "echo")
    with pytest.raises(dataclasses.FrozenInstanceError):
        agent.plan.url = "https://evil.example"  # type: ignore[misc]
    with pytest.raises(TypeError):
        agent.plan.security["x"] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        agent.snapshot["name"] = "x"  # type: ignore[index]
    copy = agent.snapshot_json()
    copy["name"] = "changed"
    assert agent.snapshot["name"] == "Echo"
    assert agent.plan.delivery == "poll" and agent.plan.extensions == ("https://example.com/ext/citations/v1",)
    assert agent.input_modes == ("text/plain", "application/json")


def test_the_example_lockfile_loads_every_agent() -> None:
    lock = load_lock(EXAMPLE, env={})
    assert lock.agent("research-agent", "market-size").plan.fallbacks is not None
    assert lock.agent("currency-agent", "convert").plan.protocol_version == "0.3"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda p: p.__setitem__("delivery", "stream"), "(delivery"),
        (lambda p: p["extensions"].append("https://example.com/ext/unlocked/v1"), "(extensions)"),
        (lambda p: p["acceptedOutputModes"].append("text/plain"), "(acceptedOutputModes)"),
        (lambda p: p.__setitem__("security", {}), "missing-credential"),
        (lambda p: p.__setitem__("protocolBinding", "GRPC"), "no-common-interface"),
    ],
)
def test_a_plan_edited_by_hand_is_out_of_date(tmp_path: Path, change: Any, says: str) -> None:
    path = write_lock(tmp_path, URL)
    edit(path, lambda v: change(v["agents"]["echo"]["plans"]["echo"]))
    with pytest.raises(OutOfDateError) as caught:
        load_lock(path, env={}).agent("echo", "echo")
    assert says in str(caught.value)


def test_the_cheap_nesting_test_agrees_with_the_walk() -> None:
    import random

    from a2a_lock.lock import _nesting_exceeds, _too_deep

    rng = random.Random(35)
    strings = ['"', "[", "]", "{", "}", "\\", '\\"', "[[", "]]", "x", "", "é", "\n"]

    def make(depth: int) -> Any:
        if depth == 0 or rng.random() < 0.2:
            return "".join(rng.choice(strings) for _ in range(rng.randint(0, 4)))
        if rng.random() < 0.5:
            return [make(depth - 1) for _ in range(rng.randint(0, 3))]
        return {make(0): make(depth - 1) for _ in range(rng.randint(0, 3))}

    for _ in range(150):
        value = make(rng.randint(0, 12))
        for limit in (1, 2, 3, 5, 8):
            for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
                assert _nesting_exceeds(text, limit) == (_too_deep(value, limit) is not None), (text, limit)


def test_a_proto_key_spelt_with_an_escape_is_refused(tmp_path: Path) -> None:
    path = write_lock(tmp_path, URL, manifest=False)
    path.write_text(path.read_text().replace('"name": "Echo"', '"\\u005f_proto__": {}, "name": "Echo"', 1))
    with pytest.raises(InvalidInputError, match='"__proto__" is not allowed') as caught:
        load_lock(path)
    assert caught.value.path == "$.agents.echo.snapshot.__proto__"


def test_the_core_needs_no_a2a_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for m in ('a2a', 'grpc', 'botocore', 'google'): sys.modules[m] = None\n"
        "import a2a_lock\n"
        f"lock = a2a_lock.load_lock({str(EXAMPLE)!r}, env={{}})\n"
        "lock.agent('research-agent', 'market-size').httpx_client()\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
    assert result.stdout.strip() == "ok", result.stderr
