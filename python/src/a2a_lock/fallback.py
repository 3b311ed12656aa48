"""The locked fallbacks of ``create_client()``: an a2a-sdk ``ClientTransport`` that delegates to the locked
interface's transport and answers the classified agent errors with one bounded action each, as the JavaScript
runtime's ``createClient()`` does (``src/runtime/client.ts``):

- VersionNotSupported: retry once on the first locked fallback interface of another protocol version (unless the
  agent's words show the ``A2A-Version`` header was lost on the way: degraded at once);
- UnsupportedOperation / PushNotificationNotSupported on a stream, before any event: retry once as SendMessage
  (the locked ``poll`` fallback, stream → poll);
- PushNotificationNotSupported on a SendMessage carrying a push config (push plan): retry once without it (the
  locked ``poll`` fallback, push → poll);
- a stream that breaks after a task id was seen: poll GetTask with that id (locked ``poll``, ``stream-broken``);
- a failed retry, or a classified error no locked fallback answers (ContentTypeNotSupported,
  ExtensionSupportRequired, the rest): the agent is degraded and an :class:`AgentDegradedError` raised, its message
  naming the locked fallbacks and why none applies.

Each alternative taken is reported (``Lock.on("fallback")``, ``LockedAgent.fallbacks_taken``). Any other failure
leaves as an :class:`AgentCallError` (``auth-refused``, ``agent-error``, ``unreachable``, ``timeout``; the a2a-sdk
error its ``__cause__``), as the JavaScript runtime's ``typedError``; a2a_lock's own errors (a plan violation, a
missing credential) leave as they are. Needs the ``sdk`` extra; imported by ``sdk.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Protocol, TypeVar

import httpx
from a2a.client.client import ClientCallContext
from a2a.client.transports.base import ClientTransport
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    SendMessageRequest,
    SendMessageResponse,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import A2A_ERROR_MAPPING, JSON_RPC_ERROR_CODE_MAP, A2AError

from .call_errors import (
    answer_facts,
    answered_text,
    auth_refusal,
    call_error_code,
    dead_end,
    describe,
    header_lost,
    shown_url,
)
from .classify import AgentErrorKind, classify_agent_error, kind_of_reason
from .errors import A2aLockError, AgentCallError, AgentDegradedError, FetchError, withheld
from .events import FallbackReason
from .plan import Interface, Plan

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["FallbackRuntime", "PlanTransport", "classify_sdk_error", "typed_error"]

T = TypeVar("T")

_SETTLED = frozenset({3, 4, 5, 6, 7, 8})
"""TaskState values after which polling stops: completed, failed, canceled, input required, rejected, auth
required."""

_PLAN_HEADERS = frozenset({"a2a-version", "a2a-extensions", "x-a2a-extensions"})


class FallbackRuntime(Protocol):
    """What the fallbacks need of the loaded agent (``lock.py``'s runtime and a transport maker)."""

    plan: Plan

    @property
    def name(self) -> str: ...

    @property
    def skill(self) -> str: ...

    @property
    def schemes(self) -> Mapping[str, object]: ...

    def fallback(self, reason: FallbackReason, from_: str, to: str) -> None: ...

    def degrade(self, reason: FallbackReason, message: str) -> AgentDegradedError: ...


def classify_sdk_error(error: BaseException, iface: Interface) -> AgentErrorKind | None:
    """Which of the five agent errors an a2a-sdk error raised on ``iface`` is (:func:`classify_agent_error`), read
    from what the agent answered: JSON-RPC by the ``error.code`` a2a-sdk mapped to the error's class; HTTP+JSON by
    the ErrorInfo reason with the HTTP status of the answer (the ``httpx.HTTPStatusError`` it was raised from);
    gRPC by the reason with the status code. Without a status (an error event in a stream, a 0.3 HTTP+JSON body)
    the reason alone decides, as the JavaScript runtime reads the 0.3 REST transport's errors. Not an a2a-sdk A2A
    error: ``None``."""
    if not isinstance(error, A2AError):
        return None
    cls = type(error)
    binding = iface.protocol_binding
    if binding == "JSONRPC":
        code = JSON_RPC_ERROR_CODE_MAP.get(cls)
        return None if code is None else classify_agent_error("JSONRPC", code=code)
    mapping = A2A_ERROR_MAPPING.get(cls)
    if mapping is None:
        return None
    cause = error.__cause__
    legacy = iface.protocol_version.startswith("0.")
    if binding == "HTTP+JSON" and isinstance(cause, httpx.HTTPStatusError) and not legacy:
        return classify_agent_error("HTTP+JSON", status=cause.response.status_code, reason=mapping.reason)
    code_of = getattr(cause, "code", None)
    if binding == "GRPC" and callable(code_of) and not legacy:
        status = code_of()
        value = getattr(status, "value", None)
        if isinstance(value, tuple) and value and isinstance(value[0], int):
            return classify_agent_error("GRPC", code=value[0], reason=mapping.reason)
    return kind_of_reason(mapping.reason)


def typed_error(runtime: FallbackRuntime, iface: Interface, error: Exception) -> Exception:
    """Any failure of a call on ``iface`` as the error that leaves ``create_client()`` (the JavaScript runtime's
    ``typedError``): a2a_lock's own errors as they are, except a network :class:`FetchError` of the enforcing
    transport, which becomes an :class:`AgentCallError` naming agent and skill; every other error an
    :class:`AgentCallError`: ``auth-refused`` (HTTP 401/403, gRPC 16/7), ``unreachable`` (gRPC 14, no connection),
    ``timeout`` (gRPC 4, no answer in time), else ``agent-error`` with the HTTP status, the JSON-RPC error code or
    the ErrorInfo reason. The message is built from those facts only (never a2a-sdk's text, which may quote the
    agent's answer or the request); ``error`` is its ``__cause__``."""
    name, skill = runtime.name, runtime.skill
    url = shown_url(iface.url)
    where = describe(iface)
    if isinstance(error, FetchError) and error.code in ("unreachable", "timeout"):
        what = "no answer in time" if error.code == "timeout" else "not reachable"
        code: Literal["unreachable", "timeout"] = "timeout" if error.code == "timeout" else "unreachable"
        return _caused(AgentCallError(code, name, skill, f"{where}: {what} ({error.message})", url=url), error)
    if isinstance(error, A2aLockError):
        return error
    facts = answer_facts(error, iface.protocol_binding)
    kind = call_error_code(facts)
    answered = answered_text(facts)
    details: dict[str, Any] = {
        "url": url,
        "status": facts.status,
        "grpc_status": facts.grpc_status,
        "a2a_code": facts.a2a_code,
        "a2a_reason": facts.a2a_reason,
    }
    if kind == "auth-refused":
        why, hint = auth_refusal(bool(runtime.plan.security), bool(runtime.schemes), name)
        refused = AgentCallError(kind, name, skill, f"{where}: {why} ({answered})", hint=hint, **details)
        return _caused(refused, error)
    if kind == "unreachable":
        text = f" ({answered})" if answered else ""
        return _caused(AgentCallError(kind, name, skill, f"{where}: not reachable{text}", **details), error)
    if kind == "timeout":
        text = f" ({answered})" if answered else ""
        return _caused(AgentCallError(kind, name, skill, f"{where}: no answer in time{text}", **details), error)
    if facts.a2a_code is not None or facts.a2a_reason is not None:
        what = "the agent answered an A2A error"
    elif answered:
        what = "the agent answered an error that is not an A2A error"
    else:
        what = "the agent's answer could not be read as A2A"
    text = f" ({answered})" if answered else ""
    return _caused(AgentCallError(kind, name, skill, f"{where}: {what}{text}", **details), error)


def _caused(typed: AgentCallError, error: Exception) -> AgentCallError:
    typed.__cause__ = withheld(error)
    typed.__suppress_context__ = True
    return typed


def _without_plan_headers(context: ClientCallContext | None) -> ClientCallContext | None:
    """The call's context without the primary's ``A2A-Version`` and extensions headers: the fallback interface's
    enforcing client sets its own."""
    if context is None or not context.service_parameters:
        return context
    kept = {k: v for k, v in context.service_parameters.items() if k.lower() not in _PLAN_HEADERS}
    return context.model_copy(update={"service_parameters": kept})


def _as_stream(response: SendMessageResponse) -> StreamResponse:
    out = StreamResponse()
    if response.HasField("task"):
        out.task.CopyFrom(response.task)
    elif response.HasField("message"):
        out.message.CopyFrom(response.message)
    return out


def _task_id_of(event: StreamResponse) -> str | None:
    field = event.WhichOneof("payload")
    if field == "task":
        return event.task.id or None
    if field == "message":
        return event.message.task_id or None
    if field in ("status_update", "artifact_update"):
        return getattr(event, field).task_id or None
    return None


class PlanTransport(ClientTransport):
    """Delegates to the locked interface's transport; recovers only onto locked fallbacks, each taken once per
    call (see the module comment). ``make(iface)`` builds the transport of a locked fallback interface (closed with
    this one)."""

    def __init__(
        self,
        runtime: FallbackRuntime,
        primary: ClientTransport,
        make: Callable[[Interface], ClientTransport],
        *,
        poll_interval: float = 1.0,
        max_polls: int = 300,
    ) -> None:
        self._runtime = runtime
        self._primary = primary
        self._make = make
        self._made: dict[Interface, ClientTransport] = {}
        self._poll_interval = poll_interval
        self._max_polls = max_polls

    async def __aenter__(self) -> Self:
        return self

    def _on(self, iface: Interface) -> ClientTransport:
        transport = self._made.get(iface)
        if transport is None:
            transport = self._make(iface)
            self._made[iface] = transport
        return transport

    # The calls -------------------------------------------------------------------------------------------------

    async def send_message(
        self, request: SendMessageRequest, *, context: ClientCallContext | None = None
    ) -> SendMessageResponse:
        poll: Callable[[ClientTransport, ClientCallContext | None], Awaitable[SendMessageResponse]] | None = None
        if request.configuration.HasField("task_push_notification_config"):
            without = SendMessageRequest()
            without.CopyFrom(request)
            without.configuration.ClearField("task_push_notification_config")

            def poll(t: ClientTransport, c: ClientCallContext | None) -> Awaitable[SendMessageResponse]:
                return t.send_message(without, context=c)

        return await self._call("SendMessage", lambda t, c: t.send_message(request, context=c), context, poll)

    async def get_task(self, request: GetTaskRequest, *, context: ClientCallContext | None = None) -> Task:
        return await self._call("GetTask", lambda t, c: t.get_task(request, context=c), context)

    async def list_tasks(
        self, request: ListTasksRequest, *, context: ClientCallContext | None = None
    ) -> ListTasksResponse:
        return await self._call("ListTasks", lambda t, c: t.list_tasks(request, context=c), context)

    async def cancel_task(self, request: CancelTaskRequest, *, context: ClientCallContext | None = None) -> Task:
        return await self._call("CancelTask", lambda t, c: t.cancel_task(request, context=c), context)

    async def create_task_push_notification_config(
        self, request: TaskPushNotificationConfig, *, context: ClientCallContext | None = None
    ) -> TaskPushNotificationConfig:
        return await self._call(
            "CreateTaskPushNotificationConfig",
            lambda t, c: t.create_task_push_notification_config(request, context=c),
            context,
        )

    async def get_task_push_notification_config(
        self, request: GetTaskPushNotificationConfigRequest, *, context: ClientCallContext | None = None
    ) -> TaskPushNotificationConfig:
        return await self._call(
            "GetTaskPushNotificationConfig",
            lambda t, c: t.get_task_push_notification_config(request, context=c),
            context,
        )

    async def list_task_push_notification_configs(
        self, request: ListTaskPushNotificationConfigsRequest, *, context: ClientCallContext | None = None
    ) -> ListTaskPushNotificationConfigsResponse:
        return await self._call(
            "ListTaskPushNotificationConfigs",
            lambda t, c: t.list_task_push_notification_configs(request, context=c),
            context,
        )

    async def delete_task_push_notification_config(
        self, request: DeleteTaskPushNotificationConfigRequest, *, context: ClientCallContext | None = None
    ) -> None:
        await self._call(
            "DeleteTaskPushNotificationConfig",
            lambda t, c: t.delete_task_push_notification_config(request, context=c),
            context,
        )

    async def get_extended_agent_card(
        self, request: GetExtendedAgentCardRequest, *, context: ClientCallContext | None = None
    ) -> AgentCard:
        return await self._call(
            "GetExtendedAgentCard", lambda t, c: t.get_extended_agent_card(request, context=c), context
        )

    async def subscribe(
        self, request: SubscribeToTaskRequest, *, context: ClientCallContext | None = None
    ) -> AsyncGenerator[StreamResponse]:
        try:
            async for event in self._primary.subscribe(request, context=context):
                yield event
        except Exception as error:
            self._raise_typed(error)

    async def send_message_streaming(
        self, request: SendMessageRequest, *, context: ClientCallContext | None = None
    ) -> AsyncGenerator[StreamResponse]:
        plan = self._runtime.plan
        task_id: str | None = None
        seen = False
        try:
            async for event in self._primary.send_message_streaming(request, context=context):
                seen = True
                task_id = task_id or _task_id_of(event)
                yield event
            return
        except Exception as raw:
            error = raw
        kind = classify_sdk_error(error, plan)
        poll = plan.fallbacks is not None and "poll" in plan.fallbacks.delivery
        following = self._version_fallback_for(kind, "SendStreamingMessage", error) if kind else None
        if not seen and kind is not None and following is not None:
            failed = (
                f"{kind} on SendStreamingMessage at {describe(plan)}, then the locked fallback "
                f"{describe(following)} failed too"
            )
            retry_context = _without_plan_headers(context)
            on = self._on
            async for event in self._retry_stream(
                kind,
                describe(plan),
                describe(following),
                failed,
                lambda: on(following).send_message_streaming(request, context=retry_context),
            ):
                yield event
            return
        if not seen and poll and kind in ("unsupported-operation", "push-notification-not-supported"):
            assert kind is not None
            failed = f"{kind} on the stream, then the locked poll fallback failed too"
            primary = self._primary

            async def once() -> AsyncIterator[StreamResponse]:
                yield _as_stream(await primary.send_message(request, context=context))

            async for event in self._retry_stream(kind, plan.delivery, "poll", failed, once):
                yield event
            return
        if seen and kind is None and task_id is not None and poll and not isinstance(error, A2aLockError):
            self._runtime.fallback("stream-broken", plan.delivery, "poll")
            async for event in self._poll_task(task_id, context):
                yield event
            return
        if kind is not None:
            raise self._runtime.degrade(kind, dead_end(plan, kind, "SendStreamingMessage")) from withheld(error)
        self._raise_typed(error)

    async def close(self) -> None:
        made = list(self._made.values())
        self._made.clear()
        try:
            await self._primary.close()
        finally:
            for transport in made:
                await transport.close()

    # Recovery --------------------------------------------------------------------------------------------------

    def _raise_typed(self, error: Exception) -> NoReturn:
        """Raise ``error`` as it leaves the client (:func:`typed_error` on the locked interface)."""
        typed = typed_error(self._runtime, self._runtime.plan, error)
        if typed is error:
            raise error
        raise typed from withheld(error)

    async def _call(
        self,
        name: str,
        op: Callable[[ClientTransport, ClientCallContext | None], Awaitable[T]],
        context: ClientCallContext | None,
        poll: Callable[[ClientTransport, ClientCallContext | None], Awaitable[T]] | None = None,
    ) -> T:
        """Run ``op`` on the locked interface; a classified failure is answered by its locked fallback (once) or
        degrades the agent; any other failure leaves as it is."""
        try:
            return await op(self._primary, context)
        except Exception as raw:
            error = raw
        plan = self._runtime.plan
        kind = classify_sdk_error(error, plan)
        if kind is None:
            self._raise_typed(error)
        following = self._version_fallback_for(kind, name, error)
        if following is not None:
            failed = f"{kind} on {name} at {describe(plan)}, then the locked fallback {describe(following)} failed too"
            retry_context = _without_plan_headers(context)
            on = self._on
            # The fallback's transport is made inside the retry: failing to make it fails the retry (degraded).
            return await self._retry(
                kind, describe(plan), describe(following), failed, lambda: op(on(following), retry_context)
            )
        if (
            kind == "push-notification-not-supported"
            and poll is not None
            and plan.delivery == "push"
            and plan.fallbacks is not None
            and "poll" in plan.fallbacks.delivery
        ):
            failed = (
                f"{kind} on {name} with a push config, then the locked poll fallback (the same message without it) "
                "failed too"
            )
            primary = self._primary
            return await self._retry(kind, "push", "poll", failed, lambda: poll(primary, context))
        raise self._runtime.degrade(kind, dead_end(plan, kind, name)) from withheld(error)

    def _version_fallback_for(self, kind: AgentErrorKind, name: str, error: BaseException) -> Interface | None:
        """For VersionNotSupported: degraded at once when the agent's words show the header was lost on the way;
        else the first locked fallback interface of another protocol version, if any. ``None`` for other kinds."""
        if kind != "version-not-supported":
            return None
        plan = self._runtime.plan
        lost = header_lost(plan, getattr(error, "message", None) or str(error))
        if lost is not None:
            raise self._runtime.degrade(kind, f"{kind} on {name} at {describe(plan)}: {lost}") from withheld(error)
        interfaces = plan.fallbacks.interfaces if plan.fallbacks else ()
        return next((i for i in interfaces if i.protocol_version != plan.protocol_version), None)

    async def _retry(
        self, kind: AgentErrorKind, from_: str, to: str, failed: str, retry: Callable[[], Awaitable[T]]
    ) -> T:
        """The one fallback retry of a call: reported, run once; when it fails too the agent is degraded."""
        self._runtime.fallback(kind, from_, to)
        try:
            return await retry()
        except Exception as second:
            raise self._runtime.degrade(kind, failed) from withheld(second)

    async def _retry_stream(
        self,
        kind: AgentErrorKind,
        from_: str,
        to: str,
        failed: str,
        retry: Callable[[], AsyncIterator[StreamResponse]],
    ) -> AsyncIterator[StreamResponse]:
        """The one fallback retry of a stream (see :meth:`_retry`)."""
        self._runtime.fallback(kind, from_, to)
        try:
            async for event in retry():
                yield event
        except Exception as second:
            raise self._runtime.degrade(kind, failed) from withheld(second)

    async def _poll_task(self, task_id: str, context: ClientCallContext | None) -> AsyncIterator[StreamResponse]:
        """GetTask until the task settles (at most ``max_polls``, ``poll_interval`` seconds apart)."""
        for i in range(self._max_polls):
            if i > 0:
                await asyncio.sleep(self._poll_interval)
            try:
                task = await self._primary.get_task(GetTaskRequest(id=task_id), context=context)
            except Exception as error:
                self._raise_typed(error)
            event = StreamResponse()
            event.task.CopyFrom(task)
            yield event
            if int(task.status.state) in _SETTLED:
                return
        raise self._runtime.degrade(
            "stream-broken", f"the stream broke and task {task_id} did not settle within {self._max_polls} polls"
        )
