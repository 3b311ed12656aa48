"""Google ADK: a ``RemoteA2aAgent`` that calls a locked agent through its plan.

``RemoteA2aAgent`` builds its a2a-sdk client with ``ClientFactory.create(card)``. Handed the locked card (so it
fetches no card) and a factory bound to the plan (whose config carries the enforcing httpx client, so ADK neither
makes its own client nor re-registers the default transports), every request it sends goes through the plan.

ADK turns every error into an event (``Event.error_message``, e.g. ``"A2A request failed: plan-violation: …"``) and
never raises it: read ``Lock.refusals`` (the loader's own record of what it refused) to act on a refusal.
Needs ``google-adk`` (not a dependency of a2a_lock) and the ``sdk`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.adk.agents.remote_a2a_agent import RemoteA2aAgent

    from .lock import LockedAgent

__all__ = ["remote_a2a_agent"]


def remote_a2a_agent(agent: LockedAgent, *, name: str | None = None, **kwargs: Any) -> RemoteA2aAgent:
    """A ``google.adk`` ``RemoteA2aAgent`` for the locked ``agent``: ``agent_card`` the locked card
    (``agent.card()``), ``a2a_client_factory`` bound to the plan (``agent.client_factory()``).

    ``name``: the ADK agent's name (an identifier; default the locked name with ``-`` as ``_``). ``kwargs`` go to
    ``RemoteA2aAgent`` (``description``, callbacks …); ``agent_card``, ``httpx_client`` and ``a2a_client_factory``
    are the loader's and refused here.

    :raises UsageError: google-adk or a2a-sdk is not installed, or a loader argument is given.
    """
    from .errors import UsageError

    taken = sorted({"agent_card", "httpx_client", "a2a_client_factory"} & set(kwargs))
    if taken:
        raise UsageError(f"remote_a2a_agent: {', '.join(taken)} is the loader's (it would route around the plan)")
    try:
        from google.adk.agents.remote_a2a_agent import RemoteA2aAgent
    except ImportError as error:
        raise UsageError(f"this needs google-adk: {error}", hint="pip install google-adk") from error
    card = agent.card()
    kwargs.setdefault("description", card.description)
    return RemoteA2aAgent(
        name=name or agent.name.replace("-", "_"),
        agent_card=card,
        a2a_client_factory=agent.client_factory(),
        **kwargs,
    )
