"""The words of the agent errors ``create_client()`` answers (pure; no I/O): an interface as messages show it, a
lost ``A2A-Version`` header, and the message of an agent error no locked fallback answers. The Python form of the
JavaScript runtime's ``call-errors.ts`` and ``version-header.ts``; which error it is lives in ``classify.py``, the
actions in ``fallback.py``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .classify import AgentErrorKind
from .plan import Interface, Plan

__all__ = ["dead_end", "describe", "header_lost", "version_header_lost"]

_SEEN = re.compile(r"""version\s+['"]?v?(\d{1,4}(?:\.\d{1,4}){0,2})['"]?\s+is not supported""", re.IGNORECASE)
_MAJOR_MINOR = re.compile(r"^v?(\d+)(?:\.(\d+))?")


def _shown_url(url: str) -> str:
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
    return f"{iface.protocol_binding} {iface.protocol_version} {_shown_url(iface.url)}"


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
