"""OAuth 2.0 client credentials (RFC 6749 §4.4): an access token from the LOCKED ``tokenUrl`` of a card's
``oauth2SecurityScheme`` client credentials flow, cached until shortly before it expires.

The client secret goes to the token URL only: never to the agent, never along a redirect (a 3xx is an error),
never over plain http to a host that is not loopback, never through a proxy in cleartext. The same behaviour as
the JavaScript runtime's ``http/oauth-token.ts``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote_plus, urlsplit

import httpx

from .errors import A2aLockError, FetchError
from .proxy import is_loopback_host
from .redact import holds_secret

__all__ = ["TOKEN_EARLY_EXPIRY_S", "ClientCredentialsGrant", "ClientCredentialsTokens"]

TOKEN_EARLY_EXPIRY_S = 30
"""Seconds before ``expires_in`` runs out at which a cached token is no longer used."""
_DEFAULT_LIFETIME_S = 300
_MAX_RESPONSE_BYTES = 64 * 1024

OAUTH_ERROR_CODES = frozenset(
    {
        # RFC 6749 §5.2 (the token endpoint's) and §4.1.2.1 (which token endpoints answer too)
        "invalid_request",
        "invalid_client",
        "invalid_grant",
        "unauthorized_client",
        "unsupported_grant_type",
        "invalid_scope",
        "access_denied",
        "unsupported_response_type",
        "server_error",
        "temporarily_unavailable",
        # RFC 6750 §3.1
        "invalid_token",
        "insufficient_scope",
        # RFC 8628 §3.5
        "authorization_pending",
        "slow_down",
        "expired_token",
    }
)
"""The OAuth ``error`` codes an error message quotes (the same list as ``http/oauth-token.ts``; both held to the words
of ``conformance/vectors/oauth-token-errors.json``). Any other value is the endpoint's own text (it may echo the client
secret) and is never quoted; nor are ``error_description`` and ``error_uri``."""

TOKEN_TYPES = {t.lower(): t for t in ("Bearer", "N_A", "PoP", "DPoP")}
"""The registered access token types (IANA "OAuth Access Token Types") by their lower-case spelling (RFC 6749 §5.1:
``token_type`` is case-insensitive): a type other than Bearer is named in its registered spelling, else unsupported."""


def _oauth_error_words(body: dict[str, object]) -> str:
    """The words for the answer's OAuth ``error`` after the status: a known code, else that it is not one (nothing
    when the answer has no ``error``); never the endpoint's own text."""
    if "error" not in body:
        return ""
    error = body["error"]
    return (
        f" {error}"
        if isinstance(error, str) and error in OAUTH_ERROR_CODES
        else " with an error code that is not one of RFC 6749's"
    )


@dataclass(frozen=True)
class ClientCredentialsGrant:
    """One token's inputs: the locked ``token_url``, ``client_id``, ``client_secret``, the locked ``scopes`` and
    ``client_auth`` (``basic``: HTTP Basic, the default; ``form``: in the body, RFC 6749 §2.3.1). ``repr()`` never
    shows the secret."""

    token_url: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]
    client_auth: Literal["basic", "form"] = "basic"

    def __repr__(self) -> str:
        return (
            f"ClientCredentialsGrant(token_url={self.token_url!r}, client_id={self.client_id!r}, "
            f"scopes={self.scopes!r})"
        )

    def cache_key(self) -> str:
        """Token URL, client id, a SHA-256 of the secret (a token got with one secret never serves another), scopes."""
        digest = base64.b64encode(hashlib.sha256(self.client_secret.encode()).digest()).decode()
        return json.dumps([self.token_url, self.client_id, digest, sorted(self.scopes)])


def _form(value: str) -> str:
    """``value`` form-urlencoded as URLSearchParams writes it (RFC 6749 §2.3.1 Basic credentials)."""
    return quote_plus(value, safe="*").replace("~", "%7E")


class ClientCredentialsTokens:
    """A cache of client credentials access tokens. ``send``: makes the httpx client a token request goes through
    (one per request, closed after it: a cached token outlives any event loop; built by the loader: proxy rule
    applied, no redirects followed); ``now``: seconds (tests)."""

    def __init__(
        self,
        send: Callable[[], httpx.AsyncClient],
        *,
        timeout: float = 10.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self._timeout = timeout
        self._now = now
        self._cache: dict[str, tuple[str, float]] = {}
        self._pending: dict[str, asyncio.Future[tuple[str, float]]] = {}

    def __repr__(self) -> str:
        return f"ClientCredentialsTokens({len(self._cache)} cached)"

    async def token(self, grant: ClientCredentialsGrant) -> str:
        """The access token for ``grant``: the cached one while it has more than 30 s left, else a new one
        (concurrent callers share one request).

        :raises A2aLockError: ``insecure-url`` (a token URL not https, loopback aside; nothing sent)
        :raises FetchError: ``auth-refused`` (400/401/403), ``unreachable`` (network error, redirect, other status,
            no token), ``timeout``
        """
        key = grant.cache_key()
        cached = self._cache.get(key)
        if cached and cached[1] > self._now():
            return cached[0]
        pending = self._pending.get(key)
        if pending is None:
            loop = asyncio.get_running_loop()  # before the request coroutine exists: none, no request
            pending = loop.create_task(self._request(grant))
            self._pending[key] = pending

            def done(_: asyncio.Future[tuple[str, float]]) -> None:
                self._pending.pop(key, None)

            pending.add_done_callback(done)
        token, lifetime = await asyncio.shield(pending)
        self._cache[key] = (token, self._now() + max(0.0, lifetime - TOKEN_EARLY_EXPIRY_S))
        return token

    def forget(self, grant: ClientCredentialsGrant) -> None:
        """Drop the cached token of ``grant`` (the agent refused it: the next :meth:`token` asks anew)."""
        self._cache.pop(grant.cache_key(), None)

    async def _request(self, grant: ClientCredentialsGrant) -> tuple[str, float]:
        url = grant.token_url
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError:
            parts, host = None, ""
        if parts is None or not parts.scheme or not host:
            raise A2aLockError("insecure-url", "the token URL is not an absolute URL", data={"url": url[:200]})
        shown = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"
        scheme = parts.scheme.lower()
        if scheme != "https" and not (scheme == "http" and is_loopback_host(host)):
            raise A2aLockError(
                "insecure-url",
                f"{shown}: a client secret is sent only over https (or to a loopback host); nothing was sent",
                data={"url": shown},
            )
        form = {"grant_type": "client_credentials"}
        if grant.scopes:
            form["scope"] = " ".join(grant.scopes)
        headers = {"content-type": "application/x-www-form-urlencoded", "accept": "application/json"}
        basic = base64.b64encode(f"{_form(grant.client_id)}:{_form(grant.client_secret)}".encode()).decode()
        # Every spelling of the secret this request carries (the value, form-encoded, the Basic credentials), as the
        # JavaScript runtime's: an access_token that holds one, in any spelling or cut short, goes to no agent.
        secrets = [grant.client_secret, _form(grant.client_secret), basic]

        def echoes(text: str) -> bool:
            return holds_secret(text, secrets)

        if grant.client_auth == "form":
            form["client_id"] = grant.client_id
            form["client_secret"] = grant.client_secret
        else:
            headers["authorization"] = f"Basic {basic}"
        answered: list[int] = []

        async def exchange() -> tuple[int, bytes]:
            async with (
                self._send() as client,
                client.stream(
                    "POST",
                    url,
                    headers=headers,
                    content="&".join(f"{_form(k)}={_form(v)}" for k, v in form.items()),
                    timeout=self._timeout,
                ) as response,
            ):
                answered.append(response.status_code)
                raw = b""
                async for chunk in response.aiter_raw():
                    raw += chunk
                    if len(raw) > _MAX_RESPONSE_BYTES:
                        break
                return response.status_code, raw

        try:
            # One deadline for the whole exchange, the body included (httpx's read timeout is per read: an endpoint
            # that drips its body would never meet it).
            status, raw = await asyncio.wait_for(exchange(), self._timeout)
        except A2aLockError:
            raise
        except (httpx.TimeoutException, asyncio.TimeoutError):
            raise FetchError("timeout", shown, "the token endpoint did not answer in time") from None
        except httpx.HTTPError:
            if answered:
                raise FetchError(
                    "unreachable", shown, "the token endpoint's answer broke off", status=answered[0]
                ) from None
            raise FetchError("unreachable", shown, "the token endpoint could not be reached") from None
        try:
            body = json.loads(raw[:_MAX_RESPONSE_BYTES].decode("utf-8", "replace"))
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {}
        oauth_error = _oauth_error_words(body)
        if 300 <= status < 400:
            raise FetchError(
                "unreachable",
                shown,
                f"the token endpoint answered a redirect (HTTP {status}), which is never followed: "
                "the client secret goes only to the locked token URL",
                status=status,
            )
        if status in (400, 401, 403):
            raise FetchError(
                "auth-refused",
                shown,
                f"the token endpoint refused the client credentials (HTTP {status}{oauth_error})",
                status=status,
            )
        if not 200 <= status < 300:
            raise FetchError(
                "unreachable", shown, f"the token endpoint answered HTTP {status}{oauth_error}", status=status
            )
        token = body.get("access_token")
        if not isinstance(token, str) or token == "":
            raise FetchError("unreachable", shown, "the token endpoint answered without an access_token")
        if echoes(token):
            raise FetchError(
                "unreachable",
                shown,
                "the token endpoint answered an access_token that holds the client secret: refused (the client secret "
                "goes to the token URL only)",
            )
        token_type = body.get("token_type")
        if isinstance(token_type, str) and token_type.lower() != "bearer":
            known = TOKEN_TYPES.get(token_type.lower())
            what = f"a token of type {known}" if known else "an unsupported token_type"
            raise FetchError("unreachable", shown, f"the token endpoint answered {what}, not Bearer")
        expires = body.get("expires_in")
        try:
            lifetime = float(expires) if expires is not None and not isinstance(expires, bool) else 0.0
        except (TypeError, ValueError):
            lifetime = 0.0
        return token, lifetime if lifetime > 0 and lifetime != float("inf") else _DEFAULT_LIFETIME_S
