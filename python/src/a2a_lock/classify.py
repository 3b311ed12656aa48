"""Which A2A error an agent answered, in every binding (pure). A2A 1.0 §3.3.2, §5.4, §9.5, §10.6, §11.6; both
the 1.0.0 and 1.0.1 HTTP/gRPC status tables. The same table as the JavaScript runtime's ``classify.ts``: the
errors a locked fallback answers (interface fallback on ``version-not-supported`` / ``unsupported-operation``,
delivery fallback on ``push-notification-not-supported`` …).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["AgentErrorKind", "classify_agent_error", "kind_of_reason"]

AgentErrorKind = Literal[
    "version-not-supported",
    "content-type-not-supported",
    "extension-support-required",
    "unsupported-operation",
    "push-notification-not-supported",
]

# kind, JSON-RPC code, ErrorInfo reason, HTTP statuses, gRPC codes (3 INVALID_ARGUMENT, 9 FAILED_PRECONDITION,
# 12 UNIMPLEMENTED).
_TABLE: tuple[tuple[AgentErrorKind, int, str, tuple[int, ...], tuple[int, ...]], ...] = (
    ("version-not-supported", -32009, "VERSION_NOT_SUPPORTED", (400,), (9, 12)),
    ("content-type-not-supported", -32005, "CONTENT_TYPE_NOT_SUPPORTED", (400, 415), (3,)),
    ("extension-support-required", -32008, "EXTENSION_SUPPORT_REQUIRED", (400,), (9,)),
    ("unsupported-operation", -32004, "UNSUPPORTED_OPERATION", (400,), (9, 12)),
    ("push-notification-not-supported", -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", (400,), (9, 12)),
)


def classify_agent_error(
    binding: str, *, code: int | None = None, status: int | None = None, reason: str | None = None
) -> AgentErrorKind | None:
    """Classify an agent's error answer: JSON-RPC by ``code`` (``error.code``); HTTP+JSON by ``reason`` (the
    ``google.rpc.ErrorInfo`` reason) with an HTTP ``status`` of either table (a 415 without a reason is
    content-type-not-supported); gRPC (``GRPC``) by ``reason`` with the status ``code``. ``None``: not one of
    the five."""
    if binding == "JSONRPC":
        return next((row[0] for row in _TABLE if row[1] == code), None)
    if binding == "HTTP+JSON":
        if reason is None:
            return "content-type-not-supported" if status == 415 else None
        return next((row[0] for row in _TABLE if row[2] == reason and status in row[3]), None)
    return next((row[0] for row in _TABLE if row[2] == reason and code in row[4]), None)


def kind_of_reason(reason: str | None) -> AgentErrorKind | None:
    """The kind an ErrorInfo ``reason`` names, whatever the status: for errors that carry no status (the JavaScript
    runtime reads the 0.3 HTTP+JSON transport's errors this way). ``None``: not one of the five."""
    return next((row[0] for row in _TABLE if row[2] == reason), None)
