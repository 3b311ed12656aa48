"""a2a_lock: the Python runtime loader for a2a-lock lockfiles.

Reads ``a2a.lock.json`` (never writes it: locking is the CLI's) and enforces the locked plan on every request.
"""

from __future__ import annotations

from .errors import (
    A2aLockError,
    AgentCallError,
    AgentDegradedError,
    CredentialUnsetError,
    DigestMismatchError,
    InvalidInputError,
    OutOfDateError,
    PlanViolationError,
)

__all__ = [
    "A2aLockError",
    "AgentCallError",
    "AgentDegradedError",
    "CredentialUnsetError",
    "DigestMismatchError",
    "InvalidInputError",
    "OutOfDateError",
    "PlanViolationError",
]
