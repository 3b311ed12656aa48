"""The agent error classification (the JavaScript runtime's classify.ts table)."""

from __future__ import annotations

import pytest

from a2a_lock import Fallbacks, Interface, Plan, classify_agent_error


@pytest.mark.parametrize(
    ("binding", "answer", "kind"),
    [
        ("JSONRPC", {"code": -32009}, "version-not-supported"),
        ("JSONRPC", {"code": -32005}, "content-type-not-supported"),
        ("JSONRPC", {"code": -32008}, "extension-support-required"),
        ("JSONRPC", {"code": -32004}, "unsupported-operation"),
        ("JSONRPC", {"code": -32003}, "push-notification-not-supported"),
        ("JSONRPC", {"code": -32001}, None),
        ("HTTP+JSON", {"status": 400, "reason": "VERSION_NOT_SUPPORTED"}, "version-not-supported"),
        ("HTTP+JSON", {"status": 415}, "content-type-not-supported"),
        ("HTTP+JSON", {"status": 415, "reason": "CONTENT_TYPE_NOT_SUPPORTED"}, "content-type-not-supported"),
        ("HTTP+JSON", {"status": 400}, None),
        ("HTTP+JSON", {"status": 404, "reason": "UNSUPPORTED_OPERATION"}, None),
        ("GRPC", {"code": 12, "reason": "UNSUPPORTED_OPERATION"}, "unsupported-operation"),
        ("GRPC", {"code": 9, "reason": "EXTENSION_SUPPORT_REQUIRED"}, "extension-support-required"),
        ("GRPC", {"code": 12, "reason": "EXTENSION_SUPPORT_REQUIRED"}, None),
        ("GRPC", {"code": 3, "reason": "CONTENT_TYPE_NOT_SUPPORTED"}, "content-type-not-supported"),
    ],
)
def test_classification(binding: str, answer: dict[str, object], kind: str | None) -> None:
    assert classify_agent_error(binding, **answer) == kind  # type: ignore[arg-type]


def test_kind_of_reason_reads_the_reason_alone() -> None:
    from a2a_lock.classify import kind_of_reason

    assert kind_of_reason("VERSION_NOT_SUPPORTED") == "version-not-supported"
    assert kind_of_reason("PUSH_NOTIFICATION_NOT_SUPPORTED") == "push-notification-not-supported"
    assert kind_of_reason("TASK_NOT_FOUND") is None
    assert kind_of_reason(None) is None


def test_a_lost_version_header_is_named_and_no_fallback_is_taken_for_it() -> None:
    from a2a_lock.call_errors import header_lost, version_header_lost

    plan = Plan(url="https://a.example/rpc?k=secret", protocol_binding="JSONRPC", protocol_version="1.0")
    # @a2a-js/sdk's and a2a-sdk's words for an agent that saw 0.3 (what an absent header means).
    assert version_header_lost("1.0", "The requested A2A protocol version '0.3' is not supported.") == "0.3"
    assert version_header_lost("1.0", "A2A version '0.3' is not supported by this handler. Expected '1.0'.") == "0.3"
    # The agent saw the version sent: it does not speak it (a version fallback may help).
    assert version_header_lost("1.0", "The requested A2A protocol version '1.0' is not supported.") is None
    assert version_header_lost("1.0", None) is None
    lost = header_lost(plan, "A2A version '0.3' is not supported")
    assert lost is not None and "A2A-Version: 1.0" in lost and "(what an absent header means)" in lost


def test_a_dead_end_names_the_locked_fallbacks_and_why_none_applies() -> None:
    from a2a_lock.call_errors import dead_end, describe

    bare = Plan(url="https://a.example/rpc?k=secret", protocol_binding="JSONRPC", protocol_version="0.3")
    assert describe(bare) == "JSONRPC 0.3 https://a.example/rpc"
    assert dead_end(bare, "version-not-supported", "SendMessage") == (
        "version-not-supported on SendMessage at JSONRPC 0.3 https://a.example/rpc; the plan has no locked fallback"
    )
    plan = Plan(
        url="https://a.example/rpc",
        protocol_binding="JSONRPC",
        protocol_version="1.0",
        delivery="push",
        fallbacks=Fallbacks(interfaces=(Interface("https://a.example/v1", "HTTP+JSON", "1.0"),), delivery=("poll",)),
    )
    message = dead_end(plan, "push-notification-not-supported", "CreateTaskPushNotificationConfig")
    assert (
        "locked fallbacks: HTTP+JSON 1.0 https://a.example/v1, delivery poll; a push config call has no poll" in message
    )
    assert dead_end(plan, "version-not-supported", "GetTask").endswith("; none is of another protocol version")
    assert dead_end(plan, "content-type-not-supported", "SendMessage").endswith(
        "the locked fallbacks answer only VersionNotSupported (another version) and a refused stream or push (poll)"
    )
