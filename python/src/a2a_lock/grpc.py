"""gRPC plans: a channel factory that dials the locked target only, with interceptors checking every call.

Needs the ``grpc`` extra (``grpcio``). a2a-sdk's ``GrpcTransport`` takes a ``grpc_channel_factory(url)``;
:func:`locked_channel` returns one that refuses any URL but the locked interface's, and builds a ``grpc.aio``
channel with TWO interceptors: a ``UnaryUnaryClientInterceptor`` and a ``UnaryStreamClientInterceptor``.
(One object implementing both is registered by grpc.aio as unary-unary only, and the streaming calls,
``SendStreamingMessage`` and ``SubscribeToTask``, would then pass unchecked.) Each call is checked before it starts:
its method is one the plan allows (no stream on a poll plan, no push config without push), ``a2a-version`` is the
locked version, ``a2a-extensions`` are locked ones; the credential metadata is added by ``metadata``.

Channel security, as the JavaScript runtime decides it: ``credentials`` given: those; ``grpcs://`` or
``https://``: TLS; a loopback host: plaintext; another host: TLS, or plaintext with ``allow_insecure`` (a
``grpc://`` / ``http://`` interface to such a host without it is refused before any connection).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from .errors import PlanViolationError, UsageError
from .plan import Plan
from .proxy import is_loopback_host

if TYPE_CHECKING:
    import grpc  # type: ignore[import-untyped]

__all__ = ["GRPC_METHOD_KINDS", "grpc_target", "locked_channel"]

GRPC_METHOD_KINDS = {
    "SendMessage": "send",
    "SendStreamingMessage": "stream",
    "SubscribeToTask": "subscribe",
    "TaskSubscription": "subscribe",
    "CreateTaskPushNotificationConfig": "push-set",
    "GetTaskPushNotificationConfig": "push",
    "ListTaskPushNotificationConfigs": "push",
    "ListTaskPushNotificationConfig": "push",
    "DeleteTaskPushNotificationConfig": "push",
    "GetTask": "other",
    "ListTasks": "other",
    "CancelTask": "other",
    "GetExtendedAgentCard": "other",
    "GetAgentCard": "other",
}
"""The A2A gRPC methods (1.0, and the 0.3 names) → the kind of call (as :data:`a2a_lock.sdk.METHOD_KINDS`)."""

MetadataProvider = Callable[[], Awaitable[Sequence[tuple[str, str]]]]
"""Returns the credential metadata (``[("authorization", "Bearer …")]``) for one call, asked per call."""


def grpc_target(url: str) -> str:
    """The ``host:port`` a gRPC interface URL names (``host:port``, ``grpc://``, ``grpcs://``, ``http(s)://``)."""
    match = re.match(r"^(?:grpcs?|https?)://([^/]+)", url, re.IGNORECASE)
    return match.group(1) if match else url.rstrip("/")


def _is_loopback(target: str) -> bool:
    """Whether a ``host:port`` target's host is loopback (:func:`a2a_lock.proxy.is_loopback_host`)."""
    host = target[: target.find("]") + 1] if target.startswith("[") else target.rsplit(":", 1)[0]
    return is_loopback_host(host)


def locked_channel(
    plan: Plan,
    *,
    agent: str,
    skill: str,
    credentials: grpc.ChannelCredentials | None = None,
    allow_insecure: bool = False,
    metadata: MetadataProvider | None = None,
    on_refusal: Callable[[PlanViolationError], None] | None = None,
) -> Callable[[str], grpc.aio.Channel]:
    """A ``grpc_channel_factory`` for a2a-sdk's ``ClientConfig`` bound to the plan's gRPC interface.

    The security is decided here, before anything is connected: a plaintext interface to a host that is not
    loopback is refused unless ``allow_insecure``. The factory refuses any URL but the plan's.

    :raises UsageError: grpcio is not installed (the ``grpc`` extra).
    :raises PlanViolationError: plaintext off loopback; later, from the factory, another URL, and from a call,
        a method, ``a2a-version`` or ``a2a-extensions`` outside the plan.
    """
    try:
        import grpc
    except ImportError as error:
        raise UsageError(f"gRPC plans need grpcio: {error}", hint="pip install 'a2a-lock[grpc]'") from error

    def refuse(message: str) -> PlanViolationError:
        error = PlanViolationError(agent, skill, message)
        if on_refusal is not None:
            on_refusal(error)
        return error

    url: str = plan.url
    version: str = plan.protocol_version
    delivery: str = plan.delivery
    extensions = set(plan.extensions or ())
    target = grpc_target(url)
    if credentials is None and not re.match(r"^(grpcs|https)://", url, re.IGNORECASE):
        plaintext = _is_loopback(target) or allow_insecure
        if not plaintext and re.match(r"^(grpc|http)://", url, re.IGNORECASE):
            raise refuse(
                f"the gRPC interface {target} is plaintext to a host that is not loopback: the credential and the "
                "messages would cross the network unencrypted; use TLS, or allow_insecure for a network that "
                "encrypts below gRPC"
            )
    else:
        plaintext = False

    async def checked(details: Any) -> Any:
        method = details.method
        name = (method.decode("ascii", "replace") if isinstance(method, bytes) else str(method)).rsplit("/", 1)[-1]
        kind = GRPC_METHOD_KINDS.get(name)
        if kind is None:
            raise refuse(f"a gRPC method the plan does not know ({name})")
        if kind in ("stream", "subscribe") and delivery != "stream":
            raise refuse(f"a streaming call ({name}), but the locked delivery is {delivery}")
        if kind in ("push-set", "push") and delivery != "push":
            raise refuse(f"a push notification config call ({name}), but the locked delivery is {delivery}")
        given = [(str(k).lower(), str(v)) for k, v in (details.metadata or ())]
        out: list[tuple[str, str]] = []
        for key, value in given:
            if key == "a2a-version" and value != version:
                raise refuse(f"a2a-version {value} is not the locked version {version}")
            if key == "a2a-extensions":
                asked = {u.strip() for u in value.split(",") if u.strip()}
                extra = sorted(asked - extensions)
                if extra:
                    raise refuse(f"a2a-extensions {', '.join(extra)} not locked")
            if key == "authorization":
                continue  # only the loader places credentials
            out.append((key, value))
        if not any(k == "a2a-version" for k, _ in out):
            out.append(("a2a-version", version))
        if extensions and not any(k == "a2a-extensions" for k, _ in out):
            out.append(("a2a-extensions", ", ".join(sorted(extensions))))
        if metadata is not None:
            out.extend((k.lower(), v) for k, v in await metadata())
        return details._replace(metadata=grpc.aio.Metadata(*out))

    class CheckUnary(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
        async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
            return await continuation(await checked(details), request)

    class CheckStream(grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc]
        async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
            return await continuation(await checked(details), request)

    def factory(chosen: str) -> grpc.aio.Channel:
        if chosen != url:
            raise refuse(f"a gRPC channel to {chosen}, not the locked interface {url}")
        interceptors = [CheckUnary(), CheckStream()]
        if plaintext:
            return grpc.aio.insecure_channel(target, interceptors=interceptors)
        return grpc.aio.secure_channel(target, credentials or grpc.ssl_channel_credentials(), interceptors=interceptors)

    return factory
