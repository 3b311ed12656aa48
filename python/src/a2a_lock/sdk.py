"""The a2a-sdk side of a locked agent: its card as an ``AgentCard`` and an a2a-sdk ``Client`` on exactly the plan.

Needs the ``sdk`` extra (``a2a-sdk>=1.3,<2``); imported lazily by :meth:`LockedAgent.card` and
:meth:`LockedAgent.create_client`, so the core of a2a_lock runs with httpx alone.

Why the card is narrowed: a2a-sdk's ``ClientFactory`` picks an interface itself, and upgrades to any 1.0 interface
of the binding whatever the order of the card's interfaces or ``use_client_preference``. The card handed to it
therefore holds the locked interface only, and the binding's transport producer is replaced by one that builds
the transport of the locked interface (the 0.3 compat transports for a locked 0.3 interface) and refuses any other
URL. The httpx client is the loader's enforcing one (URL, binding, method, headers and body checked before a byte
is sent); gRPC plans dial through :func:`a2a_lock.grpc.locked_channel`.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import A2aLockError, PlanViolationError
from .plan import Interface, Plan

if TYPE_CHECKING:
    import grpc  # type: ignore[import-untyped]
    import httpx
    from a2a.client import Client, ClientCallContext, ClientCallInterceptor, ClientConfig, ClientFactory
    from a2a.client.base_client import BaseClient
    from a2a.client.interceptors import AfterArgs, BeforeArgs
    from a2a.client.transports.base import ClientTransport
    from a2a.types.a2a_pb2 import AgentCard, StreamResponse, SubscribeToTaskRequest

    from .fallback import FallbackRuntime
    from .lock import LockedAgent

__all__ = [
    "METHOD_KINDS",
    "card",
    "client_factory",
    "create_client",
    "locked_card",
    "locked_client",
    "locked_client_factory",
    "narrow_card",
]

METHOD_KINDS: Mapping[str, str] = {
    "send_message": "send",
    "send_message_streaming": "stream",
    "subscribe": "subscribe",
    "create_task_push_notification_config": "push-set",
    "get_task_push_notification_config": "push",
    "list_task_push_notification_configs": "push",
    "delete_task_push_notification_config": "push",
    "get_task": "other",
    "list_tasks": "other",
    "cancel_task": "other",
    "get_extended_agent_card": "other",
}
"""a2a-sdk ``Client`` method names (what a ``ClientCallInterceptor`` sees as ``BeforeArgs.method``) → the kind of
call, as the JavaScript runtime's request check names them: ``stream`` and ``subscribe`` need a ``stream`` plan,
``push-set`` and the other push config calls a ``push`` plan."""


class FallbackSetup:
    """How a client takes the locked fallbacks (``fallback.py``): the agent's ``runtime`` (events, degraded
    state), ``make(iface)`` building the transport of a locked fallback interface, and the polling bounds after a
    broken stream (``poll_interval`` seconds, ``max_polls``)."""

    def __init__(
        self,
        runtime: FallbackRuntime,
        make: Callable[[Interface], ClientTransport],
        *,
        poll_interval: float = 1.0,
        max_polls: int = 300,
    ) -> None:
        self.runtime = runtime
        self.make = make
        self.poll_interval = poll_interval
        self.max_polls = max_polls


Refusals = Callable[[PlanViolationError], None]
"""Called with every refusal the a2a-sdk client raises, before it is raised (the loader's record of refusals)."""


def _sdk_missing(error: ImportError) -> A2aLockError:
    from .errors import UsageError

    return UsageError(
        f"this needs the optional package a2a-sdk (>=1.3,<2): {error}",
        hint="pip install 'a2a-lock[sdk]'",
    )


def narrow_card(card: AgentCard, plan: Plan, skill: str | None = None) -> AgentCard:
    """Narrow an a2a-sdk ``AgentCard`` (in place, and returned) to the plan.

    Keeps: the locked interface only (URL, binding, version, tenant); ``capabilities.streaming`` and
    ``push_notifications`` as the locked delivery says; the locked extensions; the locked security requirement
    and its schemes; the locked skill (all skills for the agent-level plan ``"*"``); the accepted output modes.
    Its signatures are dropped (they covered the card as served): check signatures where the lock is made
    (``a2a verify``, ``requireSignature``).
    """
    from a2a.types.a2a_pb2 import AgentInterface, SecurityRequirement, StringList

    delivery = plan.delivery
    del card.supported_interfaces[:]
    card.supported_interfaces.append(
        AgentInterface(
            url=plan.url,
            protocol_binding=plan.protocol_binding,
            protocol_version=plan.protocol_version,
            tenant=plan.tenant or "",
        )
    )
    card.capabilities.streaming = delivery == "stream"
    card.capabilities.push_notifications = delivery == "push"
    extensions = set(plan.extensions or ())
    kept = [e for e in card.capabilities.extensions if e.uri in extensions]
    del card.capabilities.extensions[:]
    card.capabilities.extensions.extend(kept)
    security: Mapping[str, Sequence[str]] = plan.security or {}
    del card.security_requirements[:]
    if security:
        requirement = SecurityRequirement()
        for name, scopes in security.items():
            requirement.schemes[name].CopyFrom(StringList(list=list(scopes)))
        card.security_requirements.append(requirement)
    for name in list(card.security_schemes):
        if name not in security:
            del card.security_schemes[name]
    if skill is not None and skill != "*":
        skills = [s for s in card.skills if s.id == skill]
        del card.skills[:]
        card.skills.extend(skills)
    modes = list(plan.accepted_output_modes or ())
    del card.default_output_modes[:]
    card.default_output_modes.extend(modes)
    # The narrowed card is not the card the agent signed: a signature over it would not verify.
    del card.signatures[:]
    return card


def locked_card(plan: Plan, snapshot: Mapping[str, Any], skill: str | None = None) -> AgentCard:
    """The locked snapshot (the card as fetched, 1.0 or 0.3 JSON) as an a2a-sdk ``AgentCard``, narrowed to the plan.

    Nothing is fetched. The snapshot is copied (``parse_agent_card`` mutates its input).

    :raises UsageError: a2a-sdk is not installed.
    """
    try:
        from a2a.client.card_resolver import parse_agent_card
    except ImportError as error:
        raise _sdk_missing(error) from error
    return narrow_card(parse_agent_card(copy.deepcopy(dict(snapshot))), plan, skill)


def _is_legacy(version: str) -> bool:
    from a2a.compat.v0_3.versions import is_legacy_version

    return bool(is_legacy_version(version))


def locked_client_factory(
    plan: Plan,
    card: AgentCard,
    httpx_client: httpx.AsyncClient,
    *,
    agent: str,
    skill: str,
    push_endpoint: str | None = None,
    grpc_channel_factory: Callable[[str], Any] | None = None,
    interceptors: Sequence[ClientCallInterceptor] = (),
    on_refusal: Refusals | None = None,
    fallbacks: FallbackSetup | None = None,
) -> ClientFactory:
    """An a2a-sdk ``ClientFactory`` whose every client is on exactly the plan (see :func:`locked_client`).

    For frameworks that build the a2a-sdk client themselves from a factory (Google ADK's ``RemoteA2aAgent``
    ``a2a_client_factory=``): ``create(any_card, interceptors)`` always uses the narrowed locked ``card``, the
    locked interface's transport on the enforcing ``httpx_client``, and appends the plan's interceptor to the
    caller's. Its config carries ``httpx_client``, so ADK uses it as it is (a factory without one is rebuilt by
    ADK with its own client and default transports). With ``fallbacks`` the client takes the locked fallbacks as
    the JavaScript runtime does (``a2a_lock.fallback``); without, every agent error leaves as a2a-sdk raised it.

    :raises UsageError: a2a-sdk is not installed.
    """
    try:
        from a2a.client import ClientConfig, ClientFactory
        from a2a.client.base_client import BaseClient
        from a2a.types.a2a_pb2 import TaskPushNotificationConfig
    except ImportError as error:
        raise _sdk_missing(error) from error
    binding = plan.protocol_binding
    version = plan.protocol_version
    delivery = plan.delivery
    push = TaskPushNotificationConfig(url=push_endpoint) if delivery == "push" and push_endpoint is not None else None
    if binding != "GRPC":
        # ClientFactory only setdefaults 1.0: the locked version is the client's default header.
        httpx_client.headers["A2A-Version"] = version
    config = ClientConfig(
        streaming=delivery == "stream",
        polling=delivery == "poll",
        httpx_client=httpx_client,
        grpc_channel_factory=grpc_channel_factory,
        supported_protocol_bindings=[binding],
        use_client_preference=True,
        accepted_output_modes=list(plan.accepted_output_modes),
        push_notification_config=push,
    )
    refuse = _Refuser(agent, skill, on_refusal)
    plan_interceptor = _plan_interceptor(plan, refuse)
    own = list(interceptors)
    locked_client_class = _locked_client_class(delivery, refuse)

    class LockedClientFactory(ClientFactory):
        """A ``ClientFactory`` bound to one locked plan (a2a_lock)."""

        def create(self, card: AgentCard, interceptors: list[ClientCallInterceptor] | None = None) -> Client:
            del card  # whatever card the caller has, the client is built from the locked one
            try:
                client = super().create(locked, [*own, *(interceptors or []), plan_interceptor])
            except ValueError as error:
                from .errors import UsageError

                raise UsageError(f"{agent} ({skill}): a2a-sdk cannot build a client for the plan: {error}") from error
            if type(client) is BaseClient:
                client.__class__ = locked_client_class  # the same object, its subscribe checked first
            return client

    locked = card
    factory = LockedClientFactory(config)
    factory.register(binding, _producer(binding, version, plan.url, httpx_client, refuse, fallbacks))
    return factory


def locked_client(
    plan: Plan,
    card: AgentCard,
    httpx_client: httpx.AsyncClient,
    *,
    agent: str,
    skill: str,
    push_endpoint: str | None = None,
    grpc_channel_factory: Callable[[str], Any] | None = None,
    interceptors: Sequence[ClientCallInterceptor] = (),
    on_refusal: Refusals | None = None,
    fallbacks: FallbackSetup | None = None,
) -> Client:
    """An a2a-sdk ``Client`` on exactly the plan.

    ``card`` is the narrowed card (:func:`locked_card`); ``httpx_client`` the loader's enforcing client (never
    one with ``proxy=`` or ``mounts=``, which route around its transport). The config is the plan's: the locked
    binding only, ``streaming`` for a ``stream`` plan, ``polling`` for a ``poll`` plan, the accepted output modes,
    the locked push endpoint as the push config of a ``push`` plan. ``A2A-Version`` is the locked version (the
    0.3 compat transports for a 0.3 interface), ``A2A-Extensions`` the locked extensions. A call the plan does not
    allow (a stream or a ``subscribe`` on a poll or push plan, a push config call without push) raises
    :class:`PlanViolationError` before anything is sent; ``on_refusal`` is told first. gRPC plans need
    ``grpc_channel_factory`` (:func:`a2a_lock.grpc.locked_channel`).

    :raises UsageError: a2a-sdk is not installed, or the binding has no a2a-sdk transport.
    """
    factory = locked_client_factory(
        plan,
        card,
        httpx_client,
        agent=agent,
        skill=skill,
        push_endpoint=push_endpoint,
        grpc_channel_factory=grpc_channel_factory,
        interceptors=interceptors,
        on_refusal=on_refusal,
        fallbacks=fallbacks,
    )
    return factory.create(card)


class _Refuser:
    """Builds a :class:`PlanViolationError` of one agent and skill and records it before it is raised."""

    def __init__(self, agent: str, skill: str, on_refusal: Refusals | None) -> None:
        self.agent = agent
        self.skill = skill
        self.on_refusal = on_refusal

    def __call__(self, message: str) -> PlanViolationError:
        error = PlanViolationError(self.agent, self.skill, message)
        if self.on_refusal is not None:
            self.on_refusal(error)
        return error


def _http_transport(
    binding: str, version: str, url: str, http: httpx.AsyncClient, card: AgentCard, *, shared: bool
) -> ClientTransport | None:
    """The a2a-sdk transport of an HTTP binding for ``version`` (the 0.3 compat transports for 0.3) on ``http``;
    ``None`` for a binding not carried over HTTP. ``shared``: ``http`` outlives the transport."""
    legacy = _is_legacy(version)
    if binding == "JSONRPC":
        if legacy:
            from a2a.compat.v0_3.jsonrpc_transport import CompatJsonRpcTransport

            return CompatJsonRpcTransport(http, card, url, is_shared_httpx=shared)
        from a2a.client.transports.jsonrpc import JsonRpcTransport

        return JsonRpcTransport(http, card, url, is_shared_httpx=shared)
    if binding == "HTTP+JSON":
        if legacy:
            from a2a.compat.v0_3.rest_transport import CompatRestTransport

            return CompatRestTransport(http, card, url, is_shared_httpx=shared)
        from a2a.client.transports.rest import RestTransport

        return RestTransport(http, card, url, is_shared_httpx=shared)
    return None


def _producer(
    binding: str,
    version: str,
    url: str,
    http: httpx.AsyncClient,
    refuse: _Refuser,
    fallbacks: FallbackSetup | None = None,
) -> Callable[[AgentCard, str, ClientConfig], ClientTransport]:
    """The transport producer of the locked interface: its binding's transport for the locked version only (inside
    the fallbacks' :class:`~a2a_lock.fallback.PlanTransport` when given)."""

    def produce(card: AgentCard, chosen: str, config: ClientConfig) -> ClientTransport:
        transport = build(card, chosen, config)
        if fallbacks is None:
            return transport
        from .fallback import PlanTransport

        return PlanTransport(
            fallbacks.runtime,
            transport,
            fallbacks.make,
            poll_interval=fallbacks.poll_interval,
            max_polls=fallbacks.max_polls,
        )

    def build(card: AgentCard, chosen: str, config: ClientConfig) -> ClientTransport:
        if chosen != url:
            raise refuse(f"a2a-sdk chose {chosen}, not the locked interface {binding} {url}")
        legacy = _is_legacy(version)
        transport = _http_transport(binding, version, url, http, card, shared=True)
        if transport is not None:
            return transport
        if binding == "GRPC":
            if config.grpc_channel_factory is None:
                raise refuse("a gRPC plan needs the loader's channel factory (a2a_lock.grpc.locked_channel)")
            if legacy:
                from a2a.compat.v0_3.grpc_transport import CompatGrpcTransport

                return CompatGrpcTransport.create(card, url, config)
            from a2a.client.transports.grpc import GrpcTransport

            return GrpcTransport.create(card, url, config)
        raise refuse(f"the locked binding {binding} has no a2a-sdk transport")

    return produce


def _locked_client_class(delivery: str, refuse: _Refuser) -> type[BaseClient]:
    """a2a-sdk's ``BaseClient`` with ``subscribe`` refused on a plan whose delivery is not ``stream``, before a2a-sdk is
    asked: ``BaseClient.subscribe`` raises its own ``NotImplementedError`` (no ``code``) on a config without streaming
    before any interceptor runs. The same refusal as the plan interceptor's for a stream, and as the JavaScript
    runtime's ``resubscribeTask`` (``plan-violation``)."""
    from a2a.client.base_client import BaseClient

    class LockedClient(BaseClient):
        """An a2a-sdk ``BaseClient`` on one locked plan (a2a_lock)."""

        async def subscribe(
            self, request: SubscribeToTaskRequest, *, context: ClientCallContext | None = None
        ) -> AsyncIterator[StreamResponse]:
            if delivery != "stream":
                raise refuse(f"a streaming call (subscribe), but the locked delivery is {delivery}")
            async for event in super().subscribe(request, context=context):
                yield event

    return LockedClient


def _plan_interceptor(plan: Plan, refuse: _Refuser) -> ClientCallInterceptor:
    """The last interceptor: refuses calls outside the plan, adds ``A2A-Extensions``, keeps the adopted card narrow."""
    from a2a.client import ClientCallContext, ClientCallInterceptor
    from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions

    delivery: str = plan.delivery
    extensions = list(plan.extensions or ())

    class PlanInterceptor(ClientCallInterceptor):
        async def before(self, args: BeforeArgs) -> None:
            kind = METHOD_KINDS.get(args.method)
            if kind is None:
                raise refuse(f"an a2a-sdk call the plan does not know ({args.method})")
            if kind in ("stream", "subscribe") and delivery != "stream":
                raise refuse(f"a streaming call ({args.method}), but the locked delivery is {delivery}")
            if kind in ("push-set", "push") and delivery != "push":
                raise refuse(f"a push notification config call ({args.method}), but the locked delivery is {delivery}")
            if extensions:
                context = args.context or ClientCallContext()
                context.service_parameters = ServiceParametersFactory.create_from(
                    context.service_parameters, [with_a2a_extensions(extensions)]
                )
                args.context = context

        async def after(self, args: AfterArgs) -> None:
            # BaseClient adopts the extended card it receives: it stays on the plan as the locked card does.
            if args.method == "get_extended_agent_card":
                narrow_card(args.result, plan)

    return PlanInterceptor()


def card(agent: LockedAgent) -> AgentCard:
    """``LockedAgent.card()``: the agent's locked snapshot (the extended card's when one is locked) as an a2a-sdk
    ``AgentCard`` narrowed to the plan (:func:`narrow_card`). Nothing is fetched; a fresh object on each call.

    :raises UsageError: a2a-sdk is not installed (``pip install 'a2a-lock[sdk]'``).
    """
    return locked_card(agent.plan, agent.snapshot_json(), agent.skill)


def client_factory(
    agent: LockedAgent,
    *,
    interceptors: Sequence[ClientCallInterceptor] = (),
    grpc_credentials: grpc.ChannelCredentials | None = None,
    allow_insecure_grpc: bool = False,
    poll_interval: float = 1.0,
    max_polls: int = 300,
) -> ClientFactory:
    """An a2a-sdk ``ClientFactory`` bound to the agent's plan (:func:`locked_client_factory`) on a fresh enforcing
    ``agent.httpx_client()``: what Google ADK's ``RemoteA2aAgent(a2a_client_factory=…)`` takes. Refusals are
    recorded in ``Lock.refusals``. gRPC plans dial through :func:`a2a_lock.grpc.locked_channel` (TLS unless the
    target is loopback; ``grpc_credentials`` for a private CA or mutual TLS; ``allow_insecure_grpc`` for plaintext
    off loopback), with the credential as metadata.

    Its clients take the locked fallbacks as the JavaScript runtime's ``createClient()`` does (``a2a_lock.fallback``:
    VersionNotSupported → the locked interface of another version, a refused stream → SendMessage, a refused push
    config → the same message without it, a broken stream → GetTask every ``poll_interval`` seconds, at most
    ``max_polls`` times), each once and reported (``Lock.on("fallback")``, ``LockedAgent.fallbacks_taken``);
    otherwise a classified agent error degrades the agent (:class:`AgentDegradedError`, ``agent-degraded``).

    :raises UsageError: a2a-sdk (or, for gRPC, grpcio) is not installed.
    """
    runtime = agent._runtime
    narrowed = card(agent)

    def make(iface: Interface) -> ClientTransport:
        # A fresh enforcing client for the fallback interface: its own URL, version and credential placement.
        if iface.protocol_binding == "GRPC":
            return grpc_fallback(iface)
        http = agent.httpx_client(interface=iface)
        http.headers["A2A-Version"] = iface.protocol_version
        transport = _http_transport(
            iface.protocol_binding, iface.protocol_version, iface.url, http, narrowed, shared=False
        )
        if transport is None:
            raise refuse_binding(iface)
        return transport

    def refuse_binding(iface: Interface) -> PlanViolationError:
        error = PlanViolationError(
            agent.name, agent.skill, f"the locked fallback binding {iface.protocol_binding} has no a2a-sdk transport"
        )
        runtime.record(error)
        return error

    def grpc_channels(plan: Plan, iface: Interface | None) -> Callable[[str], Any]:
        """The locked channel factory of ``plan`` (the agent's, or a locked gRPC fallback interface's), the
        credential placed for ``iface`` (``None``: the plan's own interface)."""
        from .grpc import locked_channel

        async def metadata() -> list[tuple[str, str]]:
            out: list[tuple[str, str]] = []
            for placement in await runtime.placements(agent.request_plan(iface)):
                if placement.query or placement.cookies:
                    raise PlanViolationError(
                        agent.name, agent.skill, "a credential placed in a query or a cookie cannot travel over gRPC"
                    )
                out.extend(placement.headers.items())
            return out

        return locked_channel(
            plan,
            agent=agent.name,
            skill=agent.skill,
            credentials=grpc_credentials,
            allow_insecure=allow_insecure_grpc,
            metadata=metadata,
            on_refusal=runtime.record,
        )

    def grpc_fallback(iface: Interface) -> ClientTransport:
        """The a2a-sdk gRPC transport of a locked gRPC fallback interface: a locked channel to its target only,
        checked against the plan with that interface's URL and version (as the JavaScript runtime takes it)."""
        from dataclasses import replace

        from a2a.client import ClientConfig

        on = replace(
            agent.plan,
            url=iface.url,
            protocol_binding=iface.protocol_binding,
            protocol_version=iface.protocol_version,
            tenant=iface.tenant,
            fallbacks=None,
        )
        config = ClientConfig(grpc_channel_factory=grpc_channels(on, iface))
        if _is_legacy(iface.protocol_version):
            from a2a.compat.v0_3.grpc_transport import CompatGrpcTransport

            return CompatGrpcTransport.create(narrowed, iface.url, config)
        from a2a.client.transports.grpc import GrpcTransport

        return GrpcTransport.create(narrowed, iface.url, config)

    channels = grpc_channels(agent.plan, None) if agent.plan.protocol_binding == "GRPC" else None
    return locked_client_factory(
        agent.plan,
        narrowed,
        agent.httpx_client(),
        agent=agent.name,
        skill=agent.skill,
        push_endpoint=agent.push_endpoint,
        grpc_channel_factory=channels,
        interceptors=interceptors,
        on_refusal=runtime.record,
        fallbacks=FallbackSetup(runtime, make, poll_interval=poll_interval, max_polls=max_polls),
    )


def create_client(
    agent: LockedAgent,
    *,
    interceptors: Sequence[ClientCallInterceptor] = (),
    grpc_credentials: grpc.ChannelCredentials | None = None,
    allow_insecure_grpc: bool = False,
    poll_interval: float = 1.0,
    max_polls: int = 300,
) -> Client:
    """``LockedAgent.create_client()``: an a2a-sdk ``Client`` on exactly the agent's plan (:func:`locked_client`),
    sending through a fresh enforcing ``agent.httpx_client()`` (JSON-RPC, HTTP+JSON, the 0.3 compat transports)
    or the locked gRPC channel, taking the locked fallbacks as :func:`client_factory` says. ``interceptors`` run
    before the plan's own. Close it with ``await client.close()`` (or ``async with``).

    :raises UsageError: a2a-sdk (or, for gRPC, grpcio) is not installed.
    """
    factory = client_factory(
        agent,
        interceptors=interceptors,
        grpc_credentials=grpc_credentials,
        allow_insecure_grpc=allow_insecure_grpc,
        poll_interval=poll_interval,
        max_polls=max_polls,
    )
    return factory.create(card(agent))
