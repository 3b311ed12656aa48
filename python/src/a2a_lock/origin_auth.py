"""Platform authentication (``originAuth``): the header a lock entry records for an origin (Cloud Run IAM, a
gateway, AgentCore), added to every request to exactly that origin, over https (or to loopback) only, its value
read when the request is made.

Placements: ``{"bearer": {"env": NAME}}`` → ``Authorization: Bearer <value>``; ``{"header": {"name", "env",
"prefix"?}}`` → ``<name>: <prefix><value>``; ``{"awsSigV4": {"region", "service"}}`` → an AWS Signature V4,
made by the signer of the ``aws`` extra (:data:`SIGNER_HOOK`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from .credentials import call_provider, is_header_safe
from .errors import A2aLockError, UsageError
from .proxy import is_loopback_host

__all__ = [
    "SIGNER_HOOK",
    "AwsCredentials",
    "OriginAuthProvider",
    "OriginAuthenticator",
    "OriginSigner",
    "credential_origin_of",
    "origin_of",
]

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class AwsCredentials:
    """AWS credentials for a SigV4 placement. ``repr()`` shows the access key id only."""

    access_key_id: str
    secret_access_key: str
    session_token: str | None = None

    def __repr__(self) -> str:
        return f"AwsCredentials(access_key_id={self.access_key_id!r})"


OriginAuthProvider = Callable[[], str | AwsCredentials | Awaitable[str | AwsCredentials]]
"""Returns an origin's platform credential when a request is made (sync or async): the token for ``bearer`` and
``header``, :class:`AwsCredentials` for ``awsSigV4``."""


class OriginSigner(Protocol):
    """The hook the ``aws`` extra implements (``a2a_lock.aws.sign_v4``): the SigV4 headers of one request.

    Called with the placement's ``region`` and ``service``, the credentials (from the origin's provider, else
    ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``), the method, URL, headers (those the
    request will carry, lower-case names) and body bytes; returns the headers to add (``authorization``,
    ``x-amz-date``, ``x-amz-security-token``, ``x-amz-content-sha256`` …).
    """

    def __call__(
        self,
        *,
        region: str,
        service: str,
        credentials: AwsCredentials,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Mapping[str, str] | Awaitable[Mapping[str, str]]: ...


SIGNER_HOOK = "a2a_lock.aws:sign_v4"
"""Where the SigV4 signer is looked up (module:attribute), on the first request to an ``awsSigV4`` origin."""


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL as a URL parser prints it (lower case, no default port)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + ("" if port in (None, _DEFAULT_PORTS[scheme]) else f":{port}")


def credential_origin_of(url: str) -> str:
    """The origin (``scheme://host[:port]``) a credential sent along locked interface ``url`` reaches, as
    ``credentialDestinations`` spell origins and as a ``CredentialRequest`` tells it (the shared vectors
    ``conformance/vectors/credential-origin.json``): an http(s) URL's :func:`origin_of`; a gRPC target's, the origin
    of the channel it is dialled on, ``https`` over TLS (``grpcs://``, or a scheme-less ``host:port`` on a host that
    is not loopback) and ``http`` in plaintext (``grpc://``, or a loopback ``host:port``). Anything else: ``url``."""
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", url)
    scheme = match.group(1).lower() if match else None
    if scheme in (None, "grpc", "grpcs"):
        # The target is host:port (a path is no part of it, nor a user).
        authority = re.split(r"[/?#]", url[match.end() :] if match else url, maxsplit=1)[0]
        try:
            host = urlsplit(f"//{authority}").hostname or ""
        except ValueError:
            host = ""
        tls = scheme == "grpcs" or (scheme is None and not is_loopback_host(host))
        dialled = None if "@" in authority else origin_of(f"{'https' if tls else 'http'}://{authority}/")
        if dialled is not None:
            return dialled
    return origin_of(url) or url


def _describe(auth: Mapping[str, Any]) -> str:
    if "bearer" in auth:
        return f"bearer from {auth['bearer']['env']}"
    if "header" in auth:
        return f"header {auth['header']['name']} from {auth['header']['env']}"
    return "AWS SigV4"


def _load_signer() -> OriginSigner:
    module_name, attr = SIGNER_HOOK.split(":")
    try:
        module = importlib.import_module(module_name)
        signer: OriginSigner = getattr(module, attr)
    except (ImportError, AttributeError):
        raise UsageError("an awsSigV4 originAuth needs the aws extra: pip install 'a2a-lock[aws]'") from None
    return signer


class OriginAuthenticator:
    """The platform headers of one agent's requests (its entry's ``originAuth`` record), with the caller's
    providers (origin → provider) winning over the environment. ``repr()`` names the origins only."""

    def __init__(
        self,
        config: Mapping[str, Mapping[str, Any]],
        env: Mapping[str, str],
        providers: Mapping[str, OriginAuthProvider],
    ) -> None:
        self._config = config
        self._env = env
        self._providers = providers

    def __repr__(self) -> str:
        return f"OriginAuthenticator(origins={sorted(self._config)})"

    def covers(self, url: str) -> bool:
        """Whether a request to ``url`` gets a platform header (its origin is recorded; https or loopback)."""
        origin = origin_of(url)
        if origin is None or origin not in self._config:
            return False
        parts = urlsplit(url)
        return parts.scheme.lower() == "https" or is_loopback_host(parts.hostname or "")

    async def headers_for(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> dict[str, str]:
        """The headers to add to a request to ``url`` (none for another origin, or plain http off loopback).

        :raises A2aLockError: ``credential-unset`` (no value); UsageError (a provider's wrong type, a control
            character, a collision with the request's own header, ``awsSigV4`` without the ``aws`` extra)
        """
        if not self.covers(url):
            return {}
        origin = origin_of(url)
        assert origin is not None
        auth = self._config[origin]
        provider = self._providers.get(origin)
        added: dict[str, str]
        if "awsSigV4" in auth:
            given = await call_provider(provider) if provider else None
            if given is not None and not isinstance(given, AwsCredentials):
                raise UsageError(f"the originAuth provider for {origin} (awsSigV4) returned no AwsCredentials")
            credentials = given or self._aws_from_env(origin)
            signer = _load_signer()
            signed = signer(
                region=auth["awsSigV4"]["region"],
                service=auth["awsSigV4"]["service"],
                credentials=credentials,
                method=method,
                url=url,
                headers={n.lower(): v for n, v in headers},
                body=body,
            )
            if not isinstance(signed, Mapping):
                signed = await signed
            added = dict(signed)
        else:
            variable = auth["bearer"]["env"] if "bearer" in auth else auth["header"]["env"]
            value = await call_provider(provider) if provider else self._env.get(variable)
            if value is not None and not isinstance(value, str):
                raise UsageError(f"the originAuth provider for {origin} returned {type(value).__name__}, not a string")
            if not value:
                where = "its provider returned nothing" if provider else f"{variable} is not set"
                data: dict[str, Any] = {"origin": origin} if provider else {"origin": origin, "variable": variable}
                raise A2aLockError(
                    "credential-unset", f"{origin} needs its originAuth ({_describe(auth)}): {where}", data=data
                )
            value = value.strip()
            if _CONTROL.search(value):
                raise UsageError(
                    f"the originAuth value for {origin} ({'its provider' if provider else variable}) "
                    "contains a line break or control character"
                )
            if not is_header_safe(value):
                raise UsageError(
                    f"the originAuth value for {origin} ({'its provider' if provider else variable}) "
                    "has a character that is not printable ASCII, which a header cannot carry as it is"
                )
            if "bearer" in auth:
                added = {"Authorization": f"Bearer {value}"}
            else:
                prefix = auth["header"].get("prefix", "")
                if _CONTROL.search(prefix):
                    raise UsageError(f"the originAuth prefix for {origin} contains a line break or control character")
                added = {auth["header"]["name"]: f"{prefix}{value}"}
        present = {n.lower() for n, _ in headers}
        taken = [n for n in added if n.lower() in present]
        if taken:
            raise UsageError(
                f"originAuth for {origin} would replace the request's own {', '.join(taken)} header "
                "(the agent's credential): nothing was sent",
                hint='place the platform credential in another header, e.g. {"header": {"name": '
                '"X-Serverless-Authorization", "env": "…", "prefix": "Bearer "}}',
            )
        return added

    def _aws_from_env(self, origin: str) -> AwsCredentials:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            if not self._env.get(name):
                raise A2aLockError(
                    "credential-unset",
                    f"{origin} needs its originAuth (AWS SigV4): {name} is not set",
                    data={"origin": origin, "variable": name},
                )
        return AwsCredentials(
            self._env["AWS_ACCESS_KEY_ID"],
            self._env["AWS_SECRET_ACCESS_KEY"],
            self._env.get("AWS_SESSION_TOKEN") or None,
        )
