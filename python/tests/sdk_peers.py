"""Real peers for the a2a-sdk, gRPC and ADK tests: test/python/sdk_agent.py (a2a-sdk 1.3 servers), the JS SDK
agents of scripts/agents.js, node:http-free recorders, and lockfiles written by the built CLI (dist/a2a.js).

Servers listen on 127.0.0.1 with random ports and are stopped by the fixture that started them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "dist" / "a2a.js"
NODE = shutil.which("node") or "node"


class Peer:
    """A running server: its origin, its ports and ``seen()`` (what it received, for sdk_agent.py)."""

    def __init__(self, process: subprocess.Popen[str], ready: dict[str, Any]) -> None:
        self.process = process
        self.ready = ready
        self.port: int = ready["port"]
        self.grpc_port: int | None = ready.get("grpcPort")
        self.origin = f"http://127.0.0.1:{self.port}"

    def seen(self) -> list[dict[str, Any]]:
        """The requests sdk_agent.py received (method, path, A2A-Version, whether Authorization was sent)."""
        return list(httpx.get(f"{self.origin}/_seen").json())

    def set_card(self, **query: str) -> None:
        """A JS agent (:func:`js_agent`) redeployed with its first card changed: ``versions`` (comma-separated
        protocol versions kept), ``streaming`` and ``push`` (``"true"``/``"false"``); no argument restores it."""
        httpx.get(f"{self.origin}/_card", params=query).raise_for_status()

    def drop_connections(self) -> None:
        """A JS agent (:func:`js_agent`) destroys every open connection (this request's too)."""
        with suppress(httpx.TransportError):
            httpx.get(f"{self.origin}/_drop")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def _start(argv: list[str], cwd: Path = ROOT) -> Peer:
    process = subprocess.Popen(  # noqa: S603 (fixed test programs)
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        err = process.stderr.read() if process.stderr else ""
        process.wait(5)
        raise RuntimeError(f"{argv[1]} exited before it was ready: {err[-2000:]}")
    return Peer(process, json.loads(line))


@contextmanager
def sdk_agent(**options: Any) -> Iterator[Peer]:
    """test/python/sdk_agent.py with ``options`` (bindings, compat, token, extended, streaming, …)."""
    peer = _start([sys.executable, str(ROOT / "test" / "python" / "sdk_agent.py"), json.dumps(options)])
    try:
        yield peer
    finally:
        peer.stop()


_JS_AGENT = """
import { startAgent, sampleCard } from './scripts/agents.js';
const o = JSON.parse(process.argv[1]);
const make = (origin, grpcUrl) => {
  const overrides = { securitySchemes: {}, securityRequirements: [], ...(o.card ?? {}) };
  let card = sampleCard(origin, overrides, { legacy: !!o.legacy });
  // grpcCard: the card lists the gRPC 1.0 interface last.
  if (o.grpcCard && grpcUrl) {
    const grpc = { url: grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0' };
    card = { ...card, supportedInterfaces: [...card.supportedInterfaces, grpc] };
  }
  return o.push ? { ...card, capabilities: { ...card.capabilities, pushNotifications: true } } : card;
};
const agent = await startAgent({
  card: (origin, extra) => make(origin, extra?.grpcUrl),
  legacyCompat: !!o.legacy, bearerToken: o.token, grpc: !!o.grpc, strictPush: !!o.strictPush,
  ...(o.taskDelayMs ? { taskDelayMs: o.taskDelayMs } : {}),
});
// GET /_drop: every open connection destroyed (a stream broken on the way).
agent.serve('/_drop', () => agent.dropConnections());
const first = make(agent.origin, agent.grpcUrl);
// GET /_card?versions=0.3&streaming=false&push=false: the agent redeployed with this card (the locked one changed).
agent.serve('/_card', (req, res) => {
  const q = new URL(req.url, agent.origin).searchParams;
  const versions = q.get('versions');
  const caps = { ...first.capabilities };
  if (q.has('streaming')) caps.streaming = q.get('streaming') === 'true';
  if (q.has('push')) caps.pushNotifications = q.get('push') === 'true';
  agent.setCard({
    ...first,
    capabilities: caps,
    supportedInterfaces: versions
      ? first.supportedInterfaces.filter((i) => versions.split(',').includes(i.protocolVersion))
      : first.supportedInterfaces,
  });
  res.end('{}');
});
agent.serve('/_seen', (req, res) => {
  const seen = agent.requests.filter((r) => r.path !== '/_seen' && r.path !== '/_card').map((r) => ({
    method: r.method, path: r.path, version: r.headers['a2a-version'] ?? null,
    extensions: r.headers['a2a-extensions'] ?? null, authorization: 'authorization' in r.headers }));
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(seen));
});
console.log(JSON.stringify({ port: Number(new URL(agent.origin).port), grpcUrl: agent.grpcUrl ?? null }));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
"""


@contextmanager
def js_agent(**options: Any) -> Iterator[Peer]:
    """A JS SDK agent of scripts/agents.js (``startAgent`` with ``sampleCard``; options: card overrides, legacy,
    token, grpc, grpcCard (the card lists the gRPC 1.0 interface), push (the card pushes), strictPush,
    taskDelayMs). ``seen()`` lists what it received;
    ``Peer.set_card`` redeploys it with its first card changed, ``Peer.drop_connections`` breaks its streams."""
    process = subprocess.Popen(  # noqa: S603
        [NODE, "--input-type=module", "-e", _JS_AGENT, json.dumps(options)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        err = process.stderr.read() if process.stderr else ""
        raise RuntimeError(f"scripts/agents.js exited before it was ready: {err[-2000:]}")
    peer = Peer(process, json.loads(line))
    try:
        yield peer
    finally:
        peer.stop()


def lock_project(directory: Path, manifest: dict[str, Any], env: dict[str, str] | None = None) -> Path:
    """Write ``a2a.json`` in ``directory`` and lock it with the built CLI; returns the lockfile's path.

    Without the wire probe: these tests count the requests the runtime sends (the probe has its own tests).
    """
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "a2a.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = subprocess.run(  # noqa: S603
        [NODE, str(CLI), "lock", "--no-probe"],
        cwd=directory,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"a2a lock failed ({result.returncode}): {result.stdout}{result.stderr}")
    return directory / "a2a.lock.json"


PROFILE: dict[str, Any] = {
    "bindings": ["JSONRPC", "HTTP+JSON"],
    "versions": ["1.0", "0.3"],
    "accepts": ["text/plain"],
    "sends": ["text/plain"],
    "streaming": True,
}
