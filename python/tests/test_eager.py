"""``load_lock(eager=True)``: every check the lazy path runs on an agent's first ``lock.agent()`` runs at load, for
every agent, and the load raises the first problem with the error the lazy path raises; the order is the JavaScript
``loadLock({ eager: true })``'s (test/runtime/lazy-checks.test.ts): the whole file against the lockfile schema, the
manifest (every mismatch at once), then each agent in the lockfile's order."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lock import A2aLockError, InvalidInputError, OutOfDateError, UsageError, load_lock
from a2a_lock.canonical import integrity_of
from locks import write_lock

URL = "http://127.0.0.1:4999"


def edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    value = json.loads(path.read_text())
    change(value)
    path.write_text(json.dumps(value))


def two_agents(directory: Path) -> Path:
    """A lockfile and its manifest with agents ``a`` and ``b`` (the same locked agent twice), in that order."""
    path = write_lock(directory, URL, name="a")

    def add_b(value: dict[str, Any]) -> None:
        value["agents"]["b"] = copy.deepcopy(value["agents"]["a"])
        value["settings"]["b"] = copy.deepcopy(value["settings"]["a"])

    edit(path, add_b)
    edit(directory / "a2a.json", lambda m: m["agents"].__setitem__("b", copy.deepcopy(m["agents"]["a"])))
    return path


def lazy_error(path: Path, name: str) -> A2aLockError:
    lock = load_lock(path, env={})
    with pytest.raises(A2aLockError) as caught:
        lock.agent(name, "echo")
    return caught.value


def eager_error(path: Path) -> A2aLockError:
    with pytest.raises(A2aLockError) as caught:
        load_lock(path, env={}, eager=True)
    return caught.value


def test_a_sound_lockfile_loads_eagerly_and_every_agent_is_usable(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    lock = load_lock(path, env={}, eager=True)
    assert [lock.agent(name, "echo").plan.url for name in ("a", "b")] == [f"{URL}/a2a/jsonrpc"] * 2


def test_a_tampered_snapshot_of_one_agent_fails_the_load_with_the_lazy_error(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    edit(path, lambda v: v["agents"]["b"]["snapshot"]["skills"][0].__setitem__("inputModes", ["image/png"]))
    # Lazy: only b is refused, on its first use; a works.
    load_lock(path, env={}).agent("a", "echo")
    lazy = lazy_error(path, "b")
    eager = eager_error(path)
    assert isinstance(eager, InvalidInputError)
    assert eager.code == "lockfile-invalid"
    assert "snapshot does not match its integrity" in eager.message
    assert (str(eager), eager.hint, eager.to_json()) == (str(lazy), lazy.hint, lazy.to_json())


def test_a_plan_moved_off_its_card_fails_the_load(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    edit(path, lambda v: v["agents"]["b"]["plans"]["echo"].__setitem__("url", "https://evil.example/a2a"))
    eager = eager_error(path)
    assert isinstance(eager, OutOfDateError)
    assert 'agent "b"' in eager.message and "no longer negotiates (no-common-interface)" in eager.message
    assert str(eager) == str(lazy_error(path, "b"))


def test_a_snapshot_edited_with_its_integrity_recomputed_fails_the_load_on_its_plans(tmp_path: Path) -> None:
    path = two_agents(tmp_path)

    def move(value: dict[str, Any]) -> None:
        b = value["agents"]["b"]
        b["snapshot"]["supportedInterfaces"][0]["url"] = "https://evil.example/a2a/jsonrpc"
        b["integrity"] = integrity_of(b["snapshot"])

    edit(path, move)
    assert eager_error(path).code == "lockfile-out-of-date"


def test_an_invalid_entry_fails_the_load_with_the_error_the_cli_reads_the_file_with(tmp_path: Path) -> None:
    path = two_agents(tmp_path)

    def invalid(value: dict[str, Any]) -> None:
        value["agents"]["b"]["plans"]["echo"]["delivery"] = "carrier-pigeon"
        value["settings"]["b"]["streaming"] = "yes"
        del value["agents"]["b"]["version"]

    edit(path, invalid)
    # Lazy: b alone is broken, a works.
    load_lock(path, env={}).agent("a", "echo")
    assert lazy_error(path, "b").code == "lockfile-invalid"
    eager = eager_error(path)
    assert isinstance(eager, InvalidInputError)
    assert (eager.code, eager.path) == ("lockfile-invalid", "$.settings.b.streaming")


def test_a_malformed_top_level_fails_the_load_either_way(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    edit(path, lambda v: v.__setitem__("agents", []))
    for eager in (False, True):
        with pytest.raises(InvalidInputError) as caught:
            load_lock(path, env={}, eager=eager)
        assert (caught.value.code, caught.value.path) == ("lockfile-invalid", "$.agents")


def test_a_manifest_out_of_step_for_every_agent_fails_the_load_naming_each(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    edit(tmp_path / "a2a.json", lambda m: m["profile"].__setitem__("accepts", ["text/plain"]))
    for name in ("a", "b"):
        assert lazy_error(path, name).code == "lockfile-out-of-date"
    eager = eager_error(path)
    assert isinstance(eager, OutOfDateError)
    assert f"does not match {tmp_path / 'a2a.json'}: a: " in eager.message
    assert " | b: " in eager.message


def test_a_manifest_out_of_step_for_one_agent_fails_the_load_naming_it(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    edit(tmp_path / "a2a.json", lambda m: m["agents"]["b"].__setitem__("skills", ["echo", "other"]))
    load_lock(path, env={}).agent("a", "echo")
    eager = eager_error(path)
    assert eager.code == "lockfile-out-of-date"
    assert eager.message.endswith(r"b: skills changed (echo → echo, other)")
    assert str(eager) == str(lazy_error(path, "b"))


def test_an_invalid_manifest_fails_the_load(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    (tmp_path / "a2a.json").write_text('{"agents": 3}')
    load_lock(path, env={})  # lazy: raised on the first lock.agent()
    eager = eager_error(path)
    assert eager.code == "manifest-invalid"
    assert str(eager) == str(lazy_error(path, "a"))


def test_the_order_schema_then_manifest_then_agents(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    sound_manifest = (tmp_path / "a2a.json").read_text()
    # A tampered snapshot (agent a) and an invalid manifest: the manifest's error comes first.
    edit(path, lambda v: v["agents"]["a"]["snapshot"].__setitem__("description", "edited"))
    (tmp_path / "a2a.json").write_text('{"agents": 3}')
    assert eager_error(path).code == "manifest-invalid"
    # An entry the schema refuses (agent b) comes before both.
    edit(path, lambda v: v["settings"]["b"].__setitem__("streaming", "yes"))
    first = eager_error(path)
    assert isinstance(first, InvalidInputError)
    assert (first.code, first.path) == ("lockfile-invalid", "$.settings.b.streaming")
    # With a sound manifest, the first agent in the lockfile's order that fails is named: a (tampered), not b.
    edit(path, lambda v: v["settings"]["b"].__setitem__("streaming", False))
    edit(path, lambda v: v["agents"]["b"]["plans"]["echo"].__setitem__("url", "https://evil.example/a2a"))
    (tmp_path / "a2a.json").write_text(sound_manifest)
    error = eager_error(path)
    assert error.code == "lockfile-invalid" and error.data.get("path") == "$.agents.a.integrity"


def test_eager_must_be_a_bool(tmp_path: Path) -> None:
    path = two_agents(tmp_path)
    with pytest.raises(UsageError, match="eager must be True or False"):
        load_lock(path, env={}, eager="yes")  # type: ignore[arg-type]
