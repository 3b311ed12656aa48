"""The enforcing httpx transport: the thin shell around the pure request check (``request_check``).

Each request is checked against the locked plan, completed from it (``A2A-Version``, the extensions header,
``acceptedOutputModes``), given the credential read now and the platform header of its origin, routed by the
proxy rule (``proxy``), and only then sent. A 307/308 redirect is followed only to the same locked interface and
path; any other redirect is refused. A 401 after OAuth tokens were sent renews them once.
"""

from __future__ import annotations

import functools
import re
import ssl
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Protocol, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx

from .canonical import js_stringify
from .card import CardShape, shape_for_version
from .credentials import Placement, apply_placements
from .errors import A2aLockError, FetchError, PlanViolationError, UsageError
from .origin_auth import OriginAuthenticator, origin_of
from .proxy import is_cleartext_off_loopback, proxy_route
from .request_check import CheckedRequest, RequestPlan, check_request, path_below, url_markers

__all__ = ["EnforcingTransport", "Router", "SyncEnforcingTransport", "run_now"]

MAX_REDIRECTS = 5
T = TypeVar("T")
_Pool = TypeVar("_Pool", httpx.AsyncHTTPTransport, httpx.HTTPTransport)
_HOP_HEADERS = frozenset({"host", "content-length", "transfer-encoding"})


@functools.cache
def _default_tls() -> ssl.SSLContext:
    """One verifying TLS context (certifi's roots, as httpx's default) shared by every pool: building one reads the
    CA bundle, which costs more than a loopback request."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


class Router:
    """Sends a checked request directly or through the environment's proxy (read when each request is routed),
    one connection pool per way. ``verify``: as httpx's (``True``, a path, an ``ssl.SSLContext``)."""

    def __init__(self, env: Mapping[str, str], verify: object = True) -> None:
        self._env = env
        self._verify = _default_tls() if verify is True else verify
        self._pools: dict[str | None, httpx.AsyncHTTPTransport] = {}
        self._sync_pools: dict[str | None, httpx.HTTPTransport] = {}

    def __repr__(self) -> str:
        return f"Router(pools={len(self._pools)})"

    def pool(self, proxy: str | None) -> httpx.AsyncHTTPTransport:
        """The connection pool for ``proxy`` (``None``: direct)."""
        return self._pool(self._pools, httpx.AsyncHTTPTransport, proxy)

    def sync_pool(self, proxy: str | None) -> httpx.HTTPTransport:
        """The blocking connection pool for ``proxy`` (``None``: direct)."""
        return self._pool(self._sync_pools, httpx.HTTPTransport, proxy)

    def _pool(self, pools: dict[str | None, _Pool], make: Callable[..., _Pool], proxy: str | None) -> _Pool:
        pool = pools.get(proxy)
        if pool is None:
            pool = pools[proxy] = make(
                verify=self._verify, proxy=None if proxy is None else httpx.Proxy(proxy), trust_env=False
            )
        return pool

    def proxy_for(self, url: str, *, credential: bool, violation: Callable[[str], PlanViolationError]) -> str | None:
        """The proxy a request to ``url`` goes through (``None``: direct).

        :raises UsageError: a proxy variable that is not an http(s) URL (named, its value never quoted)
        :raises PlanViolationError: a credential that would go through a proxy in cleartext
        """
        route = proxy_route(self._env, url, credential=credential)
        if route.kind == "refuse":
            if credential and route.reason and "cleartext" in route.reason:
                raise violation(route.reason)
            raise UsageError(route.reason or "proxy refused")
        return route.proxy

    def route(
        self, url: str, *, credential: bool, violation: Callable[[str], PlanViolationError]
    ) -> httpx.AsyncHTTPTransport:
        """The pool for a request to ``url`` (see :meth:`proxy_for`)."""
        return self.pool(self.proxy_for(url, credential=credential, violation=violation))

    async def aclose(self) -> None:
        for pool in self._pools.values():
            await pool.aclose()
        self._pools.clear()

    def close(self) -> None:
        for pool in self._sync_pools.values():
            pool.close()
        self._sync_pools.clear()


def _kept_markers(joined: str, location: str) -> str:
    """``joined`` with the empty query (``?``) or fragment (``#``) of ``location`` that ``urljoin`` dropped, as the
    WHATWG parser keeps them (``/a2a/jsonrpc?`` is not the locked ``/a2a/jsonrpc``)."""
    query, fragment = url_markers(location)
    has_query, has_fragment = url_markers(joined)
    if query and not has_query:
        head, mark, tail = joined.partition("#")
        joined = f"{head}?{mark}{tail}"
    if fragment and not has_fragment:
        joined += "#"
    return joined


def _joined_url(base: str, location: str) -> str | None:
    """``location`` resolved against ``base``, or None when the result is not a URL a request can go to (a host
    httpx refuses, a port out of range, an IPv6 literal without its bracket)."""
    try:
        joined = _kept_markers(urljoin(base, location), location)
        parts = urlsplit(joined)
        _ = parts.port
        # As a request's own URL reaches the check: httpx's form (dot segments removed, as the WHATWG parser does).
        joined = str(httpx.URL(joined))
    except (ValueError, httpx.InvalidURL):
        return None
    # A host code point the WHATWG URL parser forbids (the JavaScript runtime's reading): a space, <, >, ^, |, \.
    return None if re.search(r"[\s<>^|\\]", parts.hostname or "") else joined


def _redirect_target(
    ctx: RequestPlan, checked: CheckedRequest, target: str, status: int, location: str, hops: int
) -> str:
    """Where the ``hops``-th redirect of a request to ``target`` goes: a 307/308 to the same path of the locked
    interface, at most :data:`MAX_REDIRECTS` - 1 of them.

    :raises PlanViolationError: a redirect that changes the method, leaves the interface, is one too many, or whose
        ``Location`` is not a URL (``http://[::1``, a port above 65535, a space in the host; not quoted)
    """
    next_url = _joined_url(target, location)
    if next_url is None:
        raise ctx.violation("redirect to a Location that is not a URL refused: not the locked interface")
    if status not in (307, 308):
        raise ctx.violation(f"the agent answered {status} (a redirect that changes the method), refused")
    if path_below(ctx.iface, next_url) != checked.path:
        raise ctx.violation(f"redirect to {_shown(next_url)} refused: not the locked interface")
    if hops >= MAX_REDIRECTS:
        raise ctx.violation(f"more than {MAX_REDIRECTS} redirects")
    return next_url


class AgentRuntime(Protocol):
    """What the transport needs of the loaded agent (see ``lock.py``)."""

    card_urls: frozenset[str]

    def card(self, shape: CardShape) -> dict[str, Any]: ...

    def record(self, error: PlanViolationError) -> None: ...

    def placements(self, ctx: RequestPlan) -> Coroutine[Any, Any, list[Placement]]: ...

    def renew(self) -> bool: ...

    @property
    def origin_auth(self) -> OriginAuthenticator | None: ...


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"


def _card_key(url: str) -> str | None:
    """``origin + path`` of an http(s) URL (query and fragment ignored), as the card URLs are kept."""
    origin = origin_of(url)
    return None if origin is None else origin + (urlsplit(url).path or "/")


def card_urls(resolved: str, interfaces: list[str]) -> frozenset[str]:
    """The card URLs answered from the lock: the locked card URL, and both well-known card paths on each locked
    http(s) origin (the card's and the interfaces')."""
    out: set[str] = set()
    origins: set[str] = set()
    for url in [resolved, *interfaces]:
        origin = origin_of(url)
        if origin is None:
            continue
        origins.add(origin)
        if url == resolved:
            key = _card_key(url)
            if key:
                out.add(key)
    for origin in origins:
        out.update(f"{origin}{path}" for path in ("/.well-known/agent-card.json", "/.well-known/agent.json"))
    return frozenset(out)


def _checked(ctx: RequestPlan, request: httpx.Request, body: bytes) -> CheckedRequest:
    """The request check on ``request`` (its body already read), then, for a plan that carries a credential, the
    refusal of a plain-http interface off loopback: a credential never crosses the network in cleartext,
    whatever the lockfile says. Shared by the async and the sync transport."""
    checked = check_request(
        ctx,
        url=str(request.url),
        method=request.method,
        headers=[(n, v) for n, v in request.headers.multi_items() if n.lower() not in _HOP_HEADERS],
        body=body or None,
    )
    if ctx.plan.security and is_cleartext_off_loopback(ctx.iface.url):
        raise ctx.violation(
            f"the plan's interface {_shown(ctx.iface.url)} is plain http to a host that is not loopback: "
            "a credential is never sent over it (use an https interface)"
        )
    return checked


def _served_card(runtime: AgentRuntime, request: httpx.Request) -> httpx.Response | None:
    """A GET or HEAD of a locked card URL, answered from the lockfile with the card narrowed to the plan (in the
    shape the request's ``A2A-Version`` asks for) without the network; ``None`` for any other request."""
    if request.method not in ("GET", "HEAD") or _card_key(str(request.url)) not in runtime.card_urls:
        return None
    shape = shape_for_version(request.headers.get("a2a-version"))
    body = b"" if request.method == "HEAD" else js_stringify(runtime.card(shape)).encode()
    return httpx.Response(
        200, headers={"content-type": "application/json", "vary": "A2A-Version"}, content=body, request=request
    )


def run_now(awaitable: Coroutine[Any, Any, T], what: str) -> T:
    """Run a coroutine that completes without waiting (environment variables, sync providers, a cached token) to
    its value, from blocking code; one that would wait (an OAuth token request, an async provider that awaits)
    is a UsageError naming ``what``: use the async client."""
    try:
        awaitable.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    except RuntimeError as error:
        if "event loop" not in str(error):
            raise
    awaitable.close()
    raise UsageError(f"{what} needs to wait (an OAuth token request or an async provider): use httpx_client()")


_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _outgoing(request: httpx.Request, url: str, headers: list[tuple[str, str]], body: bytes | None) -> httpx.Request:
    """The request finally sent: ``request``'s method and extensions, ``url``, exactly ``headers`` (then ``Host``
    and ``Content-Length``, as httpx adds them) and ``body``. The caller's request is never changed (its response
    carries it back). Built without re-parsing: the caller's parsed URL is reused when ``url`` is its URL (a
    credential placed in the query makes another), and the body is handed over as it is."""
    target = request.url if url == str(request.url) else httpx.URL(url)
    sent = [("host", target.netloc.decode("ascii")), *headers]
    if body:
        sent.append(("content-length", str(len(body))))
    elif request.method in _BODY_METHODS:
        sent.append(("content-length", "0"))
    return httpx.Request(
        request.method, target, headers=sent, stream=httpx.ByteStream(body or b""), extensions=request.extensions
    )


class EnforcingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that enforces one locked plan on one interface (the plan's own or a locked fallback).
    Built by :meth:`a2a_lock.LockedAgent.httpx_client`; refusals raise
    :class:`~a2a_lock.errors.PlanViolationError` before a byte is sent, and are recorded on the ``Lock``."""

    def __init__(self, ctx: RequestPlan, runtime: AgentRuntime, router: Router) -> None:
        self._ctx = ctx
        self._runtime = runtime
        self._router = router

    def __repr__(self) -> str:
        ctx = self._ctx
        return f"EnforcingTransport(agent={ctx.agent!r}, skill={ctx.skill!r}, url={_shown(ctx.iface.url)!r})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._handle(request)
        except PlanViolationError as error:
            self._runtime.record(error)
            raise

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        ctx = self._ctx
        served = _served_card(self._runtime, request)
        if served is not None:
            return served
        checked = _checked(ctx, request, await request.aread())
        placements: list[Placement] = []
        if ctx.plan.security:
            placements = await self._runtime.placements(ctx)
        target = str(request.url)
        renewed = False
        hops = 0
        while True:
            response = await self._send(request, checked, target, placements)
            if response.status_code == 401 and not renewed and self._runtime.renew():
                renewed = True
                await response.aclose()
                placements = await self._runtime.placements(ctx)
                continue
            location = response.headers.get("location")
            if not 300 <= response.status_code < 400 or location is None:
                return response
            await response.aclose()
            hops += 1
            target = _redirect_target(ctx, checked, target, response.status_code, location, hops)

    async def _send(
        self, request: httpx.Request, checked: CheckedRequest, target: str, placements: list[Placement]
    ) -> httpx.Response:
        ctx = self._ctx
        url, headers = (
            apply_placements(target, list(checked.headers), placements)
            if placements
            else (target, list(checked.headers))
        )
        auth = self._runtime.origin_auth
        platform: dict[str, str] = {}
        if auth is not None and auth.covers(url):
            platform = await auth.headers_for(request.method, url, headers, checked.body or b"")
            headers.extend(platform.items())
        pool = self._router.route(url, credential=bool(placements or platform), violation=ctx.violation)
        outgoing = _outgoing(request, url, headers, checked.body)
        try:
            return await pool.handle_async_request(outgoing)
        except A2aLockError:
            raise
        except httpx.TimeoutException:
            failure = FetchError("timeout", _shown(url), "no answer in time")
        except httpx.TransportError as error:
            failure = FetchError("unreachable", _shown(url), f"network error ({type(error).__name__})")
        # The network error's own text is not kept: it may quote the request (a credential in its query).
        failure.data.update({"agent": ctx.agent, "skill": ctx.skill})
        raise failure


class SyncEnforcingTransport(httpx.BaseTransport):
    """The blocking form of :class:`EnforcingTransport` (for ``httpx.Client``): the same check, credentials,
    platform headers, proxy rule and redirects. A credential that needs to wait (an OAuth token not yet cached, an
    async provider that awaits) is a UsageError, nothing sent: use the async client."""

    def __init__(self, ctx: RequestPlan, runtime: AgentRuntime, router: Router) -> None:
        self._ctx = ctx
        self._runtime = runtime
        self._router = router

    def __repr__(self) -> str:
        ctx = self._ctx
        return f"SyncEnforcingTransport(agent={ctx.agent!r}, skill={ctx.skill!r}, url={_shown(ctx.iface.url)!r})"

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return self._handle(request)
        except PlanViolationError as error:
            self._runtime.record(error)
            raise

    def _handle(self, request: httpx.Request) -> httpx.Response:
        ctx = self._ctx
        served = _served_card(self._runtime, request)
        if served is not None:
            return served
        checked = _checked(ctx, request, request.read())
        placements: list[Placement] = []
        if ctx.plan.security:
            placements = run_now(self._runtime.placements(ctx), "the credential")
        target = str(request.url)
        renewed = False
        hops = 0
        while True:
            response = self._send(request, checked, target, placements)
            if response.status_code == 401 and not renewed and self._runtime.renew():
                renewed = True
                response.close()
                placements = run_now(self._runtime.placements(ctx), "the credential")
                continue
            location = response.headers.get("location")
            if not 300 <= response.status_code < 400 or location is None:
                return response
            response.close()
            hops += 1
            target = _redirect_target(ctx, checked, target, response.status_code, location, hops)

    def _send(
        self, request: httpx.Request, checked: CheckedRequest, target: str, placements: list[Placement]
    ) -> httpx.Response:
        ctx = self._ctx
        url, headers = (
            apply_placements(target, list(checked.headers), placements)
            if placements
            else (target, list(checked.headers))
        )
        auth = self._runtime.origin_auth
        platform: dict[str, str] = {}
        if auth is not None and auth.covers(url):
            platform = run_now(auth.headers_for(request.method, url, headers, checked.body or b""), "originAuth")
            headers.extend(platform.items())
        proxy = self._router.proxy_for(url, credential=bool(placements or platform), violation=ctx.violation)
        outgoing = _outgoing(request, url, headers, checked.body)
        try:
            return self._router.sync_pool(proxy).handle_request(outgoing)
        except A2aLockError:
            raise
        except httpx.TimeoutException:
            failure = FetchError("timeout", _shown(url), "no answer in time")
        except httpx.TransportError as error:
            failure = FetchError("unreachable", _shown(url), f"network error ({type(error).__name__})")
        failure.data.update({"agent": ctx.agent, "skill": ctx.skill})
        raise failure

    def close(self) -> None:
        self._router.close()
