"""A real a2a-sdk (Python, 1.3.0) agent for a2a-lock's tests (issue 23).

Usage: python sdk_agent.py '<json options>'

Listens on 127.0.0.1 with a random port (and a second random port for gRPC when asked) and prints
ONE line on stdout when ready: {"port": N, "grpcPort": M | null}. Options (all optional):

  bindings        ["JSONRPC", "HTTP+JSON", "GRPC"]   interfaces in the card, in this order (default JSONRPC)
  versionField    true: write protocol_version "1.0" on each interface; false (default): leave it
                  unset, as most agents built on a2a-sdk do (the card then serves no protocolVersion)
  compat          true: enable_v0_3_compat on the JSON-RPC and REST routes, and add 0.3 interfaces
  token           a bearer token: every A2A request and the extended card need `Authorization: Bearer <token>`
  extended        true: capabilities.extended_agent_card and an extended card with one more skill
  streaming       card capability (default true)
  signKey         a PEM private key (EC P-256) to sign the card with a2a-sdk's create_agent_card_signer
  signKid, signJku  the JWS protected header's kid and jku (jku defaults to <origin>/jwks.json)
  jwks            a JWK Set served at /jwks.json
  description     the card description (non-ASCII text makes the legacy signing form differ)
  origin          the origin the card advertises (default the server's own; a proxy in front of it)
  legacySign      true: sign with the a2a-python <= 1.1 canonical form (json.dumps sort_keys, \\uXXXX)
                  instead of the SDK's RFC 8785 form, as cards signed before the fix are

The agent answers every message with one agent Message "echo: <text>". GET /_seen lists the
requests it received (method, path, A2A-Version header, whether Authorization was sent).
"""

import asyncio
import json
import socket
import sys

import grpc
import uvicorn
from a2a.helpers.proto_helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_text_message(f'echo: {context.get_user_input()}', context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def build_card(options, origin, grpc_port, extended=False):
    with_version = options.get('versionField', False)
    interfaces = []
    for binding in options.get('bindings', ['JSONRPC']):
        url = {'JSONRPC': f'{origin}/a2a/jsonrpc', 'HTTP+JSON': f'{origin}/a2a/rest', 'GRPC': f'127.0.0.1:{grpc_port}'}[binding]
        iface = AgentInterface(protocol_binding=binding, url=url)
        if with_version:
            iface.protocol_version = '1.0'
        interfaces.append(iface)
    if options.get('compat'):
        for binding in options.get('bindings', ['JSONRPC']):
            if binding == 'GRPC':
                continue
            url = {'JSONRPC': f'{origin}/a2a/jsonrpc', 'HTTP+JSON': f'{origin}/a2a/rest'}[binding]
            interfaces.append(AgentInterface(protocol_binding=binding, url=url, protocol_version='0.3'))
    skills = [AgentSkill(id='market-size', name='Market sizing', description='Estimates a market', tags=['research'])]
    if extended:
        skills.append(AgentSkill(id='deep-dive', name='Deep dive', description='For signed-in callers', tags=['research']))
    card = AgentCard(
        name='Python Research',
        description=options.get('description', 'Sizes markets.'),
        version='1.3.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=options.get('streaming', True), extended_agent_card=bool(options.get('extended'))),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain', 'application/json'],
        skills=skills,
    )
    if options.get('token'):
        card.security_schemes['bearer'].CopyFrom(SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme='Bearer')))
        req = SecurityRequirement()
        req.schemes['bearer'].CopyFrom(StringList(list=[]))
        card.security_requirements.append(req)
    return card


def legacy_signer(pem, kid, jku):
    """The a2a-python <= 1.1.x signer: json.dumps(sort_keys=True) of the cleaned proto dict (ASCII escapes)."""
    import jwt
    from a2a.types.a2a_pb2 import AgentCardSignature
    from a2a.utils.signing import _clean_empty
    from google.protobuf.json_format import MessageToDict

    def sign(card):
        body = MessageToDict(card)
        body.pop('signatures', None)
        payload = json.dumps(_clean_empty(body), separators=(',', ':'), sort_keys=True)
        token = jwt.api_jws.encode(payload=payload.encode('utf-8'), key=pem, algorithm='ES256', headers={'kid': kid, 'jku': jku, 'typ': 'JOSE'})
        protected, _, signature = token.split('.')
        card.signatures.append(AgentCardSignature(protected=protected, signature=signature))
        return card

    return sign


class GrpcAuth(grpc.aio.ServerInterceptor):
    def __init__(self, token):
        self.token = token

    async def intercept_service(self, continuation, details):
        metadata = dict(details.invocation_metadata or ())
        SEEN.append({'method': 'GRPC', 'path': details.method, 'version': metadata.get('a2a-version'), 'authorization': 'authorization' in metadata})
        if self.token and metadata.get('authorization') != f'Bearer {self.token}':
            async def deny(request, context):
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, 'missing or wrong bearer token')
            return grpc.unary_unary_rpc_method_handler(deny)
        return await continuation(details)


SEEN = []


async def main():
    options = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    origin = options.get('origin', f'http://127.0.0.1:{port}')

    grpc_server = None
    grpc_port = None
    if 'GRPC' in options.get('bindings', []):
        grpc_server = grpc.aio.server(interceptors=[GrpcAuth(options.get('token'))])
        grpc_port = grpc_server.add_insecure_port('127.0.0.1:0')

    card = build_card(options, origin, grpc_port)
    extended_card = build_card(options, origin, grpc_port, extended=True) if options.get('extended') else None
    if options.get('signKey'):
        from a2a.utils.signing import create_agent_card_signer

        kid = options.get('signKid', 'py-key')
        jku = options.get('signJku', f'{origin}/jwks.json')
        if options.get('legacySign'):
            signer = legacy_signer(options['signKey'], kid, jku)
        else:
            signer = create_agent_card_signer(options['signKey'], {'alg': 'ES256', 'kid': kid, 'jku': jku, 'typ': 'JOSE'})
        card = signer(card)
        if extended_card is not None:
            extended_card = signer(extended_card)

    handler = DefaultRequestHandler(agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card, extended_agent_card=extended_card)
    compat = bool(options.get('compat'))
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, '/a2a/jsonrpc', enable_v0_3_compat=compat),
        *create_rest_routes(handler, enable_v0_3_compat=compat, path_prefix='/a2a/rest'),
        Route('/_seen', lambda request: JSONResponse(SEEN), methods=['GET']),
        Route('/jwks.json', lambda request: JSONResponse(options.get('jwks', {'keys': []})), methods=['GET']),
    ]
    app = Starlette(routes=routes)
    token = options.get('token')

    async def asgi(scope, receive, send):
        if scope['type'] == 'http' and scope['path'] not in ('/_seen', '/jwks.json'):
            headers = {k.decode('latin-1').lower(): v.decode('latin-1') for k, v in scope['headers']}
            SEEN.append({'method': scope['method'], 'path': scope['path'], 'version': headers.get('a2a-version'), 'authorization': 'authorization' in headers})
            needs_auth = token and not scope['path'].startswith('/.well-known/')
            if needs_auth and headers.get('authorization') != f'Bearer {token}':
                response = JSONResponse({'error': 'unauthenticated'}, status_code=401, headers={'WWW-Authenticate': 'Bearer'})
                await response(scope, receive, send)
                return
        await app(scope, receive, send)

    if grpc_server is not None:
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        await grpc_server.start()

    server = uvicorn.Server(uvicorn.Config(asgi, log_level='warning', lifespan='off'))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            serving.result()
            return
        await asyncio.sleep(0.02)
    print(json.dumps({'port': port, 'grpcPort': grpc_port}), flush=True)
    await serving


if __name__ == '__main__':
    asyncio.run(main())
