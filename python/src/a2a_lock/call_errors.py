"""The words of the agent errors ``create_client()`` answers (pure; no I/O): an interface as messages show it, a
lost ``A2A-Version`` header, the message of an agent error no locked fallback answers, and the facts of any other
failure (:func:`answer_facts`, :func:`call_error_code`) from which ``fallback.py`` builds an ``AgentCallError``. The
Python form of the JavaScript runtime's ``call-errors.ts`` and ``version-header.ts``; which error it is lives in
``classify.py``, the actions in ``fallback.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from .classify import AgentErrorKind
from .plan import Interface, Plan

__all__ = [
    "AnswerFacts",
    "answer_facts",
    "answered_text",
    "auth_refusal",
    "call_error_code",
    "dead_end",
    "describe",
    "header_lost",
    "shown_url",
    "version_header_lost",
]

_SEEN = re.compile(r"""version\s+['"]?v?(\d{1,4}(?:\.\d{1,4}){0,2})['"]?\s+is not supported""", re.IGNORECASE)
_MAJOR_MINOR = re.compile(r"^v?(\d+)(?:\.(\d+))?")


def shown_url(url: str) -> str:
    """Origin and path only (a query may carry a credential); ``host:port`` as it is."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
        host = parts.netloc.rsplit("@", 1)[-1]
    except ValueError:
        return "(an invalid URL)"
    return f"{parts.scheme}://{host}{parts.path}"


def describe(iface: Interface) -> str:
    """An interface for messages and fallback events: ``"<binding> <version> <url without query>"``."""
    return f"{iface.protocol_binding} {iface.protocol_version} {shown_url(iface.url)}"


def _major_minor(version: str) -> str:
    found = _MAJOR_MINOR.match(version.strip())
    return f"{int(found.group(1))}.{int(found.group(2) or 0)}" if found else version.strip()


def version_header_lost(sent: str, text: object) -> str | None:
    """The version a VersionNotSupported answer says the agent saw, when it is not the ``sent`` one (the
    ``A2A-Version`` header removed or rewritten on the way: a2a-sdk says "A2A version '0.3' is not supported …",
    @a2a-js/sdk "The requested A2A protocol version '0.3' is not supported."); ``None`` otherwise. Only the first
    2000 characters of ``text`` are read."""
    if not isinstance(text, str):
        return None
    found = _SEEN.search(text[:2000])
    if not found:
        return None
    seen = _major_minor(found.group(1))
    return seen if seen != _major_minor(sent) else None


def header_lost(plan: Plan, text: object) -> str | None:
    """The explanation of a VersionNotSupported whose words name another version than the plan's (no version
    fallback is taken for it: the header is lost on the way); ``None`` otherwise."""
    seen = version_header_lost(plan.protocol_version, text)
    if seen is None:
        return None
    absent = " (what an absent header means)" if seen == "0.3" else ""
    return (
        f"the request carried A2A-Version: {plan.protocol_version}, but the agent answered VersionNotSupported for "
        f"version {seen}{absent}: something between client and agent (a proxy or gateway) removed or rewrote the "
        "A2A-Version header; AWS AgentCore is known to strip it. Have it pass A2A-Version through (a2a-lock does "
        "not fall back to another version for this)"
    )


def dead_end(plan: Plan, kind: AgentErrorKind, call: str) -> str:
    """The message of an agent error no locked fallback answers: it names the locked fallbacks (if any) and why
    none applies to ``call`` (the A2A method name, ``SendMessage``, ``SendStreamingMessage``, …)."""
    fallbacks = plan.fallbacks
    locked = [
        *(describe(i) for i in (fallbacks.interfaces if fallbacks else ())),
        *(f"delivery {d}" for d in (fallbacks.delivery if fallbacks else ())),
    ]
    head = f"{kind} on {call} at {describe(plan)}"
    if not locked:
        return f"{head}; the plan has no locked fallback"
    return f"{head}; locked fallbacks: {', '.join(locked)}; {_why_no_fallback(kind, call)}"


def _why_no_fallback(kind: AgentErrorKind, call: str) -> str:
    if kind == "version-not-supported":
        return "none is of another protocol version"
    if kind == "push-notification-not-supported" and "PushNotificationConfig" in call:
        return "a push config call has no poll equivalent (send without a push config and poll GetTask)"
    if kind in ("push-notification-not-supported", "unsupported-operation"):
        if call in ("SendStreamingMessage", "SendMessage"):
            return "the locked poll fallback was not applicable to this request"
        return "a poll fallback applies only to sending"
    return "the locked fallbacks answer only VersionNotSupported (another version) and a refused stream or push (poll)"


# gRPC status codes: 4 DEADLINE_EXCEEDED, 7 PERMISSION_DENIED, 14 UNAVAILABLE, 16 UNAUTHENTICATED.
_GRPC_TIMEOUT = 4
_GRPC_DENIED = 7
_GRPC_UNAVAILABLE = 14
_GRPC_UNAUTHENTICATED = 16

_JSONRPC_CODE = re.compile(r"^JSON-RPC Error (-?\d{1,9}):")

CallErrorCode = Literal["auth-refused", "agent-error", "unreachable", "timeout"]


@dataclass(frozen=True)
class AnswerFacts:
    """What a failed call's error says of the agent's answer, each read from one field a2a-sdk (or httpx, grpc)
    puts it in: the HTTP ``status`` (≥ 400), the gRPC status code, the A2A error code (JSON-RPC ``error.code``),
    the ErrorInfo reason. ``network``: ``"timeout"`` / ``"unreachable"`` when the request got no answer."""

    status: int | None = None
    grpc_status: int | None = None
    a2a_code: int | None = None
    a2a_reason: str | None = None
    network: Literal["timeout", "unreachable"] | None = None


def _chain(error: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(out) < 8 and current not in out:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _body_code(response: object) -> int | None:
    """The ``error.code`` of a JSON-RPC error body an HTTP error answer carries (a2a-sdk does not read the body of a
    non-2xx answer); only the first 100 000 characters are read."""
    try:
        text = getattr(response, "text", None)
        if not isinstance(text, str) or len(text) > 100_000:
            return None
        value = json.loads(text)
    except Exception:
        return None
    error = value.get("error") if isinstance(value, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def answer_facts(error: BaseException, binding: str) -> AnswerFacts:
    """The :class:`AnswerFacts` of an error raised by an a2a-sdk transport on an interface of ``binding``."""
    import httpx

    status: int | None = None
    grpc_status: int | None = None
    a2a_code: int | None = None
    a2a_reason: str | None = None
    network: Literal["timeout", "unreachable"] | None = None
    for link in _chain(error):
        name = type(link).__name__
        if isinstance(link, httpx.HTTPStatusError) and status is None:
            status = link.response.status_code
            if binding == "JSONRPC" and a2a_code is None:
                a2a_code = _body_code(link.response)
        elif isinstance(link, httpx.TimeoutException) or name == "A2AClientTimeoutError":
            network = network or "timeout"
        elif isinstance(link, httpx.TransportError):
            network = network or "unreachable"
        code_of = getattr(link, "code", None)
        if grpc_status is None and callable(code_of) and hasattr(link, "details"):
            try:
                value = getattr(code_of(), "value", None)
            except Exception:
                value = None
            if isinstance(value, tuple) and value and isinstance(value[0], int):
                grpc_status = value[0]
    try:
        from a2a.utils.errors import A2A_ERROR_MAPPING, JSON_RPC_ERROR_CODE_MAP, A2AError
    except ImportError:  # pragma: no cover - the sdk extra is what raises these
        A2AError = None  # type: ignore[assignment,misc]
    if A2AError is not None and isinstance(error, A2AError):
        cls = type(error)
        mapping = A2A_ERROR_MAPPING.get(cls)
        if binding == "JSONRPC" and a2a_code is None:
            a2a_code = JSON_RPC_ERROR_CODE_MAP.get(cls)
        elif binding != "JSONRPC" and mapping is not None:
            a2a_reason = mapping.reason
        if a2a_code is None and binding == "JSONRPC":
            found = _JSONRPC_CODE.match(str(getattr(error, "message", "") or ""))
            a2a_code = int(found.group(1)) if found else None
    if status is not None and status < 400:
        status = None
    return AnswerFacts(status, grpc_status, a2a_code, a2a_reason, network)


def answered_text(facts: AnswerFacts) -> str:
    """The facts as a message's parenthesis (``HTTP 401, A2A error -32001``); empty for none."""
    parts = [
        f"HTTP {facts.status}" if facts.status is not None else "",
        f"gRPC status {facts.grpc_status}" if facts.grpc_status is not None else "",
        f"A2A error {facts.a2a_code}" if facts.a2a_code is not None else "",
        facts.a2a_reason or "",
    ]
    return ", ".join(p for p in parts if p)


def call_error_code(facts: AnswerFacts) -> CallErrorCode:
    """The ``AgentCallError`` code of a failure: ``auth-refused`` (HTTP 401/403, gRPC 16/7), ``unreachable`` (no
    connection, gRPC 14), ``timeout`` (no answer in time, gRPC 4), else ``agent-error``; as ``typedError`` in the
    JavaScript runtime's ``call-errors.ts``."""
    if facts.status in (401, 403) or facts.grpc_status in (_GRPC_UNAUTHENTICATED, _GRPC_DENIED):
        return "auth-refused"
    if facts.grpc_status == _GRPC_UNAVAILABLE or (facts.network == "unreachable" and facts.status is None):
        return "unreachable"
    if facts.grpc_status == _GRPC_TIMEOUT or (facts.network == "timeout" and facts.status is None):
        return "timeout"
    return "agent-error"


def auth_refusal(plan_sends_credential: bool, card_declares_schemes: bool, agent: str) -> tuple[str, str]:
    """What a refused call (``auth-refused``) says: its reason and its hint, which points to ``a2a verify`` (the card
    the agent serves may have changed since the lock). A plan that sends no credential was refused for the lack of
    one, which is said, not "the credential". The one definition is ``conformance/vectors/auth-refused.json``, the
    JavaScript runtime's ``authRefusal`` (``call-errors.ts``) is tested against it too."""
    if plan_sends_credential:
        return (
            "the agent refused the credential",
            f"check the credential given for {agent} (its variable in a2a.json, or your credentials provider); "
            "a2a verify says whether the card the agent serves has changed since the lock",
        )
    hint = (
        "run a2a verify: the card the agent serves may have changed since the lock (a security scheme added); "
        f"then a2a update {agent} and review the lockfile diff"
    )
    if not card_declares_schemes:
        return (
            "the agent refused the request, and the locked plan sends no credential: the card declares no "
            "securitySchemes (the agent may authenticate outside A2A)",
            hint,
        )
    return (
        "the agent refused the request, and the locked plan sends no credential (its security requirement needs none)",
        hint,
    )
