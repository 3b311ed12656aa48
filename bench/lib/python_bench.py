"""The Python side of bench/python.js: one measurement per process, printed as one JSON line.

Usage: python python_bench.py <what> '<json args>'

  first-ours   load_lock, agent, create_client(), the first send_message (the whole process is timed by the parent)
  first-bare   a2a-sdk create_client(<origin>) with its card fetch, the first send_message
  latency      median send_message latency (ms) of two clients in one process, calls alternated:
               {"ours": …, "bare": …} (args.control: two bare clients instead, the control row)
  load         load_lock of a lockfile vs reading it + json.loads + SHA-256 (ms each, same process)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import statistics
import sys
import time
import uuid
from typing import Any


def request() -> Any:
    from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

    return SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text="size the EU heat-pump market")],
        )
    )


async def send(client: Any) -> None:
    async for _ in client.send_message(request()):
        pass


def ours(args: dict[str, Any]) -> Any:
    from a2a_lock import load_lock

    return (
        load_lock(args["lockfile"], env={})
        .agent("research", "market-size")
        .create_client()
    )


async def bare(args: dict[str, Any]) -> Any:
    from a2a.client import ClientConfig, create_client

    # The same output modes as the plan, so both send the same request.
    return await create_client(
        args["origin"], ClientConfig(accepted_output_modes=["application/json"])
    )


async def first(what: str, args: dict[str, Any]) -> None:
    client = ours(args) if what == "first-ours" else await bare(args)
    await send(client)
    await client.close()
    print(json.dumps({"ok": True}))


async def latency(args: dict[str, Any]) -> None:
    a = await bare(args) if args.get("control") else ours(args)
    b = await bare(args)
    for _ in range(args["warmup"]):
        await send(a)
        await send(b)
    times: dict[str, list[float]] = {"a": [], "b": []}
    for i in range(args["samples"]):
        order = (("a", a), ("b", b)) if i % 2 == 0 else (("b", b), ("a", a))
        for key, client in order:
            t = time.perf_counter()
            await send(client)
            times[key].append((time.perf_counter() - t) * 1000)
    await a.close()
    await b.close()
    print(
        json.dumps(
            {
                "ours": statistics.median(times["a"]),
                "bare": statistics.median(times["b"]),
            }
        )
    )


def load(args: dict[str, Any]) -> None:
    # Imported before timing, as the baseline's modules are.
    from a2a_lock import load_lock

    path = args["lockfile"]
    with open(path, encoding="utf-8") as f:
        f.read()  # both timed reads find the file in the page cache
    t = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    json.loads(text)
    hashlib.sha256(text.encode()).digest()
    parse = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    load_lock(path, env={})
    loaded = (time.perf_counter() - t) * 1000
    print(json.dumps({"ours": loaded, "parse": parse}))


def main() -> None:
    what, args = sys.argv[1], json.loads(sys.argv[2])
    if what in ("first-ours", "first-bare"):
        asyncio.run(first(what, args))
    elif what == "latency":
        asyncio.run(latency(args))
    elif what == "load":
        load(args)
    else:
        raise SystemExit(f"unknown measurement {what}")


if __name__ == "__main__":
    main()
