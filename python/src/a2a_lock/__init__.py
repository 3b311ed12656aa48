"""a2a_lock: the Python runtime loader for a2a-lock lockfiles.

Reads ``a2a.lock.json`` (never writes it: locking is the CLI's) and enforces the locked plan on every request,
before a byte is sent::

    lock = load_lock("a2a.lock.json", expect_digest="sha256-…")
    agent = lock.agent("research", "market-size")
    async with agent.httpx_client() as http:
        ...
"""

from __future__ import annotations

from .classify import AgentErrorKind, classify_agent_error
from .credentials import CredentialProvider, CredentialRequest, CredentialsOption
from .errors import (
    A2aLockError,
    AgentCallError,
    AgentDegradedError,
    CredentialUnsetError,
    DigestMismatchError,
    FetchError,
    InvalidInputError,
    OutOfDateError,
    PlanViolationError,
    UsageError,
)
from .events import DegradedEvent, FallbackEvent, FallbackReason
from .lock import Lock, LockedAgent, load_lock, lock_digest
from .origin_auth import AwsCredentials, OriginAuthProvider
from .plan import Fallbacks, Interface, Plan
from .request_check import CheckedRequest, RequestPlan, check_request

__all__ = [
    "A2aLockError",
    "AgentCallError",
    "AgentDegradedError",
    "AgentErrorKind",
    "AwsCredentials",
    "CheckedRequest",
    "CredentialProvider",
    "CredentialRequest",
    "CredentialUnsetError",
    "CredentialsOption",
    "DegradedEvent",
    "DigestMismatchError",
    "FallbackEvent",
    "FallbackReason",
    "Fallbacks",
    "FetchError",
    "Interface",
    "InvalidInputError",
    "Lock",
    "LockedAgent",
    "OriginAuthProvider",
    "OutOfDateError",
    "Plan",
    "PlanViolationError",
    "RequestPlan",
    "UsageError",
    "check_request",
    "classify_agent_error",
    "load_lock",
    "lock_digest",
]
