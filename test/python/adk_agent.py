"""A Google ADK (2.13.0) agent served by `to_a2a()` for a2a-lock's tests (issue 23, point 6).

Usage: python adk_agent.py '<json options>'

An `LlmAgent` whose model is a fake (`EchoLlm`, a BaseLlm subclass: no network, no API key) that
answers "echo: <last user text>". Two `to_a2a()` apps in one process, each on 127.0.0.1 with a
random port, as people deploy them:

- `port`: to_a2a(agent, host="127.0.0.1", port=<its port>): the card advertises the address it is
  served at (`http://127.0.0.1:<port>`);
- `bindPort`: to_a2a(agent, host="0.0.0.0", port=<its port>): the card advertises the bind address
  (`http://0.0.0.0:<port>`), what an agent bound to all interfaces writes; it is served on 127.0.0.1.

Prints ONE line when both are ready: {"port": N, "grpcPort": null, "bindPort": M}.
"""

import asyncio
import json
import socket
import sys
from typing import AsyncGenerator

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class EchoLlm(BaseLlm):
    """A model that answers with the last user text, prefixed "echo: "."""

    model: str = 'echo-model'

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        text = ''
        for content in reversed(llm_request.contents or []):
            if content.role == 'user':
                text = ''.join(part.text or '' for part in content.parts or [])
                break
        yield LlmResponse(content=types.Content(role='model', parts=[types.Part(text=f'echo: {text}')]))


def listen():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    return sock, sock.getsockname()[1]


async def main():
    agent = LlmAgent(name='research_agent', description='Sizes markets.', instruction='Answer briefly.', model=EchoLlm())
    servers = []
    ports = []
    for advertised in ['127.0.0.1', '0.0.0.0']:
        sock, port = listen()
        app = to_a2a(agent, host=advertised, port=port)
        server = uvicorn.Server(uvicorn.Config(app, log_level='warning'))
        servers.append((server, sock))
        ports.append(port)
    tasks = [asyncio.create_task(server.serve(sockets=[sock])) for server, sock in servers]
    while not all(server.started for server, _ in servers):
        for task in tasks:
            if task.done():
                task.result()
                return
        await asyncio.sleep(0.02)
    print(json.dumps({'port': ports[0], 'grpcPort': None, 'bindPort': ports[1]}), flush=True)
    await asyncio.gather(*tasks)


if __name__ == '__main__':
    asyncio.run(main())
