"""Typed errors with the JavaScript runtime's stable codes (``src/errors.ts``).

Every error a2a_lock raises on purpose is an :class:`A2aLockError`, a plain :class:`Exception` subclass (never an
httpx error: a2a-sdk wraps those and the type would be lost). ``code`` is stable public API, the same string as in
the JavaScript runtime. The message names the code and the subject (file, agent, URL) and never holds a secret;
``repr()`` shows the class, code and message only.
"""

from __future__ import annotations

from typing import Any, Final, Literal

__all__ = [
    "ERROR_CODES",
    "A2aLockError",
    "AgentCallError",
    "AgentDegradedError",
    "CredentialUnsetError",
    "DigestMismatchError",
    "ErrorCode",
    "FetchError",
    "InvalidInputError",
    "OutOfDateError",
    "PlanViolationError",
    "UsageError",
    "WithheldError",
]

ErrorCode = Literal[
    "usage",
    "manifest-invalid",
    "manifest-not-found",
    "manifest-unsafe",
    "profile-invalid",
    "lockfile-invalid",
    "card-invalid",
    "insecure-url",
    "unreachable",
    "auth-refused",
    "timeout",
    "refusal",
    "drift",
    "lockfile-out-of-date",
    "credential-unset",
    "signature-required",
    "digest-mismatch",
    "write-failed",
    "credential-destination-refused",
    "plan-violation",
    "agent-degraded",
    "agent-error",
    "interface-not-served",
    "internal",
]
"""The stable error codes, exactly those of the JavaScript ``ErrorCode`` table."""

ERROR_CODES: Final[tuple[str, ...]] = ErrorCode.__args__  # type: ignore[attr-defined]


class A2aLockError(Exception):
    """Base class of every error a2a_lock raises on purpose.

    ``code``: one of :data:`ErrorCode`. ``hint``: how to fix it (a command to run), or ``None``.
    ``data``: structured details (never a secret). ``str(error)`` is ``"<code>: <message>"``.
    """

    code: ErrorCode
    hint: str | None
    data: dict[str, Any]

    def __init__(
        self, code: ErrorCode, message: str, *, hint: str | None = None, data: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.data = dict(data or {})

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"

    def to_json(self) -> dict[str, Any]:
        """The JSON form: ``{code, message, hint?, **data}`` (as the CLI's ``--json``)."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        out.update(self.data)
        return out


class UsageError(A2aLockError):
    """Bad arguments to an a2a_lock function (unknown agent name, an option of the wrong type)."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__("usage", message, hint=hint)


InvalidCode = Literal["manifest-invalid", "profile-invalid", "lockfile-invalid", "card-invalid", "insecure-url"]


class InvalidInputError(A2aLockError):
    """An invalid input document (manifest, lockfile, card). ``source`` is the file or URL, ``path`` the JSON path."""

    source: str
    path: str | None

    def __init__(
        self, code: InvalidCode, source: str, message: str, *, path: str | None = None, hint: str | None = None
    ) -> None:
        where = f"{source} {path}" if path else source
        data: dict[str, Any] = {"source": source}
        if path:
            data["path"] = path
        super().__init__(code, f"{where}: {message}", hint=hint, data=data)
        self.source = source
        self.path = path


class FetchError(A2aLockError):
    """A network failure: ``unreachable``, ``auth-refused`` or ``timeout``. ``url`` is origin and path only."""

    url: str
    status: int | None

    def __init__(
        self,
        code: Literal["unreachable", "auth-refused", "timeout"],
        url: str,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
    ) -> None:
        data: dict[str, Any] = {"url": url}
        if status:
            data["status"] = status
        super().__init__(code, f"{url}: {message}", hint=hint, data=data)
        self.url = url
        self.status = status


class OutOfDateError(A2aLockError):
    """The lockfile is missing or does not satisfy the manifest (``lockfile-out-of-date``): run ``a2a lock``."""

    def __init__(self, message: str, *, data: dict[str, Any] | None = None) -> None:
        super().__init__("lockfile-out-of-date", message, hint="run a2a lock", data=data)


class DigestMismatchError(A2aLockError):
    """The lockfile read is not the one whose digest was expected (``digest-mismatch``); nothing was sent."""

    def __init__(self, lockfile: str, expected: str, actual: str) -> None:
        super().__init__(
            "digest-mismatch",
            f"{lockfile}: digest {actual}, expected {expected}",
            hint="this is not the lockfile that was reviewed; a2a lock digest prints the digest of a lockfile",
            data={"lockfile": lockfile, "expected": expected, "actual": actual},
        )


class CredentialUnsetError(A2aLockError):
    """A credential the plan needs has no value (``credential-unset``). Names the variable or scheme, never a value."""

    def __init__(self, agent: str, skill: str, message: str) -> None:
        super().__init__("credential-unset", f"{agent} ({skill}): {message}", data={"agent": agent, "skill": skill})


class PlanViolationError(A2aLockError):
    """The runtime refused a request outside the locked plan (``plan-violation``); nothing was sent.

    ``retryable`` is always ``False``: the same request is refused again.
    """

    retryable: Final = False

    def __init__(self, agent: str, skill: str, message: str) -> None:
        super().__init__("plan-violation", f"{agent} ({skill}): {message}", data={"agent": agent, "skill": skill})
        self.agent = agent
        self.skill = skill


class AgentCallError(A2aLockError):
    """A call failed at the agent or on the way and no locked fallback answers it.

    ``code``: ``auth-refused`` (401/403), ``unreachable``, ``timeout`` or ``agent-error`` (any other error answer).
    ``hint``: what to do (``auth-refused``: check the credential, or run ``a2a verify``), or ``None``.
    """

    def __init__(
        self,
        code: Literal["auth-refused", "agent-error", "unreachable", "timeout"],
        agent: str,
        skill: str,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
        grpc_status: int | None = None,
        a2a_code: int | None = None,
        a2a_reason: str | None = None,
        hint: str | None = None,
    ) -> None:
        details = {
            "url": url,
            "status": status,
            "grpcStatus": grpc_status,
            "a2aCode": a2a_code,
            "a2aReason": a2a_reason,
        }
        data = {"agent": agent, "skill": skill, **{k: v for k, v in details.items() if v is not None}}
        super().__init__(code, f"{agent} ({skill}): {message}", hint=hint, data=data)
        self.agent = agent
        self.skill = skill
        self.status = status
        self.grpc_status = grpc_status
        self.a2a_code = a2a_code
        self.a2a_reason = a2a_reason


class AgentDegradedError(A2aLockError):
    """The agent failed its locked plan and its locked fallback, or went beyond the lock (``agent-degraded``)."""

    def __init__(self, agent: str, skill: str, reason: str, message: str) -> None:
        super().__init__(
            "agent-degraded", f"{agent} ({skill}): {message}", data={"agent": agent, "skill": skill, "reason": reason}
        )
        self.agent = agent
        self.skill = skill
        self.reason = reason


class WithheldError(Exception):
    """Stands in for another library's error as the ``__cause__`` of an a2a_lock error: its type, never its text
    (an httpx or a2a-sdk message may quote the request, its URL's query or a header among it). ``original_type``
    is the error's ``module.QualName``. The JavaScript runtime redacts the cause's text; this withholds it."""

    def __init__(self, error: BaseException) -> None:
        self.original_type = f"{type(error).__module__}.{type(error).__qualname__}"
        super().__init__(f"{self.original_type} (its text is withheld: it may quote the request)")


def withheld(error: BaseException) -> BaseException:
    """``error`` itself when it is a2a_lock's own (its message never holds a secret), else a :class:`WithheldError`."""
    return error if isinstance(error, A2aLockError) else WithheldError(error)
