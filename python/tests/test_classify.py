"""The agent error classification (the JavaScript runtime's classify.ts table)."""

from __future__ import annotations

import pytest

from a2a_lock import classify_agent_error


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
