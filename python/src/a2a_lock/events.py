"""The events of a loaded lockfile (``Lock.on``): ``fallback`` each time ``create_client()`` takes a locked
alternative, ``degraded`` the first time an agent fails its plan and its locked fallback. The JavaScript runtime's
``FallbackEvent`` and ``DegradedEvent`` in snake_case.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .classify import AgentErrorKind
from .errors import AgentDegradedError

__all__ = ["DegradedEvent", "EventName", "FallbackEvent", "FallbackReason"]

FallbackReason = AgentErrorKind | Literal["stream-broken"]
"""Why a locked alternative was used: the classified agent error it answered (``version-not-supported``,
``unsupported-operation``, ``push-notification-not-supported``), or ``stream-broken`` (a stream that broke after a
task id was seen, continued by polling GetTask)."""

EventName = Literal["fallback", "degraded"]


@dataclass(frozen=True)
class FallbackEvent:
    """A locked alternative taken (emitted before the retry is sent). ``from_`` and ``to``: for an interface
    fallback ``"<binding> <version> <url>"`` (url without query), for a delivery fallback the delivery names
    (``"stream"`` → ``"poll"``, ``"push"`` → ``"poll"``)."""

    agent: str
    skill: str
    from_: str
    to: str
    reason: FallbackReason


@dataclass(frozen=True)
class DegradedEvent:
    """An agent failed its plan and its one locked fallback (emitted once per agent). ``skills``: ``[skill]``."""

    agent: str
    skill: str
    skills: tuple[str, ...]
    reason: AgentErrorKind | Literal["stream-broken"]
    error: AgentDegradedError
