"""A loopback HTTP recorder for the runtime tests: a plain socket server on 127.0.0.1 (no httpx, no a2a-sdk) that
records every byte it receives and answers each request from a script. ``bytes_received == 0`` after a refusal
proves nothing was sent."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = [v for n, v in self.headers if n.lower() == name.lower()]
        return ", ".join(values) if values else None

    def json(self) -> Any:
        return json.loads(self.body)


Answer = tuple[int, dict[str, str], bytes]


def json_answer(value: Any, status: int = 200) -> Answer:
    return status, {"content-type": "application/json"}, json.dumps(value).encode()


DEFAULT = json_answer({"jsonrpc": "2.0", "id": 1, "result": {"message": {"role": "ROLE_AGENT", "parts": []}}})


@dataclass
class Recorder:
    """``url``: ``http://127.0.0.1:<port>``; ``requests``: what arrived; ``bytes_received``: every byte, parsed or
    not; ``answer``: the script (request → status, headers, body)."""

    answer: Callable[[Received], Answer] = lambda _r: DEFAULT
    requests: list[Received] = field(default_factory=list)
    bytes_received: int = 0
    connections: int = 0
    port: int = 0
    _server: socketserver.ThreadingTCPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Recorder:
        recorder = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                conn: socket.socket = self.request
                conn.settimeout(5)
                recorder.connections += 1
                buffer = b""
                try:
                    while True:
                        while b"\r\n\r\n" not in buffer:
                            chunk = conn.recv(65536)
                            if not chunk:
                                return
                            recorder.bytes_received += len(chunk)
                            buffer += chunk
                        head, _, buffer = buffer.partition(b"\r\n\r\n")
                        lines = head.decode("latin-1").split("\r\n")
                        method, target, _version = lines[0].split(" ", 2)
                        headers = [tuple(line.split(":", 1)) for line in lines[1:] if ":" in line]
                        pairs = [(n.strip(), v.strip()) for n, v in headers]
                        length = int(next((v for n, v in pairs if n.lower() == "content-length"), "0"))
                        while len(buffer) < length:
                            chunk = conn.recv(65536)
                            if not chunk:
                                return
                            recorder.bytes_received += len(chunk)
                            buffer += chunk
                        body, buffer = buffer[:length], buffer[length:]
                        received = Received(method, target, pairs, body)
                        recorder.requests.append(received)
                        status, out_headers, out_body = recorder.answer(received)
                        head_out = f"HTTP/1.1 {status} X\r\ncontent-length: {len(out_body)}\r\n"
                        head_out += "".join(f"{n}: {v}\r\n" for n, v in out_headers.items())
                        conn.sendall(head_out.encode() + b"\r\n" + out_body)
                        if method == "CONNECT":
                            return
                except (OSError, ValueError):
                    return

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
