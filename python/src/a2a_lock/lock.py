"""The loaded lockfile at run time: :func:`load_lock` reads and checks ``a2a.lock.json`` (and the manifest beside
it), and the :class:`Lock` it returns hands out one :class:`LockedAgent` per agent skill: its frozen plan, its
snapshot and an enforcing ``httpx.AsyncClient``. The Python form of the JavaScript runtime's ``loadLock``.

Reading order (as the CLI's): the lockfile's JSON (merge-conflict markers, syntax, duplicate keys, a newer
``lockfileVersion``, nesting depth, ``__proto__`` keys), then ``expect_digest``, then its top level (version,
``settings`` and ``agents`` records, agent names), the options against it, and every agent's settings present.
An agent's first :meth:`Lock.agent` call checks that agent: its entry and settings against the lockfile schema, its
match with the manifest, its snapshots' integrity and that its plans' interfaces are the snapshot's. A failed check
raises from :meth:`Lock.agent` on every call for that agent, before anything is sent. ``load_lock(eager=True)`` runs
every one of these checks at load instead (the whole file against the schema first, as the CLI reads it).
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import httpx

from .canonical import DuplicateKeyError, integrity_of, parse_json
from .card import CardShape, SecurityScheme, input_modes, narrowed_card, security_schemes
from .credentials import (
    CredentialProvider,
    CredentialRequest,
    CredentialsOption,
    Placement,
    call_provider,
    place_credential,
)
from .errors import (
    A2aLockError,
    AgentDegradedError,
    CredentialUnsetError,
    DigestMismatchError,
    InvalidInputError,
    OutOfDateError,
    PlanViolationError,
    UsageError,
)
from .events import DegradedEvent, EventName, FallbackEvent, FallbackReason
from .manifest import describe_mismatches, manifest_mismatches, parse_manifest
from .oauth import ClientCredentialsGrant, ClientCredentialsTokens
from .origin_auth import OriginAuthenticator, OriginAuthProvider, credential_origin_of
from .plan import Interface, Plan
from .plan_check import plan_issues
from .proxy import proxy_environment
from .request_check import RequestPlan
from .schema import first_error, format_path, json_kind, lockfile_schema
from .transport import EnforcingTransport, Router, SyncEnforcingTransport, card_urls

if TYPE_CHECKING:
    from a2a.client import Client, ClientFactory
    from a2a.types import AgentCard

__all__ = ["LOCKFILE_VERSION", "Lock", "LockedAgent", "load_lock", "lock_digest"]

LOCKFILE_VERSION = 1
MAX_JSON_DEPTH = 64
_AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_DIGEST = re.compile(r"^sha256-[A-Za-z0-9+/]{43}=\Z")
_MAX_REFUSALS = 1000
PER_AGENT_FORM = (
    "credentials={'research-agent': {'bearer': provider}} (per locked agent, then scheme), "
    "or credentials=lambda request: token (request.agent, .skill, .scheme, .scopes, .origin)"
)


def lock_digest(value: Any) -> str:
    """The digest of a parsed lockfile (``a2a lock digest``): ``sha256-<base64>`` of its canonical JSON."""
    return integrity_of(value)


def _deep_freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _deep_freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_deep_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _too_deep(value: Any, limit: int, depth: int = 0) -> list[str | int] | None:
    if not isinstance(value, (dict, list)):
        return None
    if depth >= limit:
        return []
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
    for key, child in reversed(items):
        path = _too_deep(child, limit, depth + 1)
        if path is not None:
            return [key, *path]
    return None


_ESCAPE = re.compile(rb"\\.", re.S)
_NOT_STRUCTURE = bytes(set(range(256)) - set(b'[]{}"'))
_STRING = re.compile(rb'"[^"]*"')
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _nesting_exceeds(text: str, limit: int) -> bool:
    """Whether JSON text nests containers more than ``limit`` deep (strings aside): the innermost pairs are peeled
    off ``limit`` times; anything left is deeper. Cheap (C regexes), so the exact walk runs only when it is."""
    structure = _ESCAPE.sub(b"", text.encode("utf-8", "surrogatepass")).translate(None, _NOT_STRUCTURE)
    # Strings without brackets in them (nearly all) go first, cheaply; then the rest.
    brackets = _STRING.sub(b"", structure.replace(b'""', b""))
    for _ in range(limit):
        if not brackets:
            return False
        brackets = _INNERMOST.sub(b"", brackets)
    return bool(brackets)


def _proto_path(value: Any, path: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    if isinstance(value, list):
        for i, child in enumerate(value):
            found = _proto_path(child, (*path, i))
            if found:
                return found
    elif isinstance(value, dict):
        if "__proto__" in value:
            return (*path, "__proto__")
        for key, child in value.items():
            found = _proto_path(child, (*path, key))
            if found:
                return found
    return None


def _kind(value: Any) -> str:
    """A value's JSON type in the words of the top-level check (``lock/top.ts``): as :func:`json_kind`, an array as
    "an array"."""
    kind = json_kind(value)
    return "an array" if kind == "array" else kind


def parse_lockfile_json(text: str, source: str) -> Any:
    """The JSON value of lockfile text, checked for all but its schema (as the CLI's ``parseLockfileJson``).

    :raises InvalidInputError: ``lockfile-invalid``
    """
    if "<<<<<<< " in text and re.search(r"^<{7} ", text, re.M) and re.search(r"^>{7} ", text, re.M):
        raise InvalidInputError("lockfile-invalid", source, "merge conflict, run a2a lock")
    try:
        value = parse_json(text)
    except DuplicateKeyError as e:
        raise InvalidInputError(
            "lockfile-invalid", source, f"duplicate key {e.key[:60]!r}: a key may appear once"
        ) from None
    except (ValueError, RecursionError):
        raise InvalidInputError(
            "lockfile-invalid", source, "empty file" if not text.strip() else "invalid JSON"
        ) from None
    version = value.get("lockfileVersion") if isinstance(value, dict) else None
    if isinstance(version, (int, float)) and not isinstance(version, bool) and version > LOCKFILE_VERSION:
        raise InvalidInputError(
            "lockfile-invalid",
            source,
            f"lockfileVersion {version} needs a newer a2a-lock (this one reads version {LOCKFILE_VERSION})",
            path="$.lockfileVersion",
            hint="upgrade a2a-lock to read it; keep the file",
        )
    deep = _too_deep(value, MAX_JSON_DEPTH + 4) if _nesting_exceeds(text, MAX_JSON_DEPTH + 4) else None
    if deep is not None:
        raise InvalidInputError(
            "lockfile-invalid", source, f"nested deeper than {MAX_JSON_DEPTH + 4} levels", path=format_path(deep)
        )
    # A key spelt `__proto__` in JSON text holds those letters or a `\u` escape: most lockfiles have neither.
    proto = _proto_path(value) if "__proto__" in text or "\\u" in text else None
    if proto:
        raise InvalidInputError(
            "lockfile-invalid",
            source,
            'the key "__proto__" is not allowed in a lockfile (it would be read otherwise than its digest covers)',
            path=format_path(proto),
        )
    return value


def check_lockfile_top(value: Any, source: str) -> dict[str, Any]:
    """The top level of a parsed lockfile, entries aside: an object with ``lockfileVersion`` 1, an optional string
    ``$schema``, ``settings`` and ``agents`` objects keyed by valid agent names.

    :raises InvalidInputError: ``lockfile-invalid`` naming the JSON path
    """
    if not isinstance(value, dict):
        raise InvalidInputError("lockfile-invalid", source, f"expected object, got {_kind(value)}", path="$")
    if "$schema" in value and not isinstance(value["$schema"], str):
        raise InvalidInputError("lockfile-invalid", source, "expected string", path="$.$schema")
    version = value.get("lockfileVersion")
    if isinstance(version, bool) or version != LOCKFILE_VERSION:
        raise InvalidInputError("lockfile-invalid", source, f"expected {LOCKFILE_VERSION}", path="$.lockfileVersion")
    for key in ("settings", "agents"):
        record = value.get(key)
        if not isinstance(record, dict):
            raise InvalidInputError(
                "lockfile-invalid",
                source,
                f"expected record, got {_kind(record) if key in value else 'nothing (missing)'}",
                path=f"$.{key}",
            )
        for name in record:
            if not _AGENT_NAME.match(name):
                raise InvalidInputError(
                    "lockfile-invalid",
                    source,
                    'invalid key: agent names use letters, digits, ".", "_" and "-"',
                    path=format_path([key, name]),
                )
    return value


def validate_lockfile(value: Any, source: str) -> dict[str, Any]:
    """A lockfile's JSON value against the whole lockfile schema (``schemas/a2a-lock.schema.json``).

    :raises InvalidInputError: ``lockfile-invalid`` naming the JSON path
    """
    top = check_lockfile_top(value, source)
    error = first_error(top, lockfile_schema())
    if error:
        raise InvalidInputError("lockfile-invalid", source, error.message, path=format_path(error.path))
    return top


def parse_lockfile(text: str, source: str) -> dict[str, Any]:
    """Lockfile text read as the CLI reads it (``parseLockfile``): the JSON checks, then the whole schema.

    :raises InvalidInputError: ``lockfile-invalid``
    """
    return validate_lockfile(parse_lockfile_json(text, source), source)


def _sub_schema(*path: str) -> dict[str, Any]:
    node: Any = lockfile_schema()
    for key in path:
        node = node[key]
    assert isinstance(node, dict)
    return node


class LockedAgent:
    """A locked agent skill: its read-only ``plan`` and ``snapshot``, and :meth:`httpx_client`, an
    ``httpx.AsyncClient`` that enforces the plan (the Python form of the JavaScript ``agent.fetch``)."""

    def __init__(self, runtime: _AgentRuntime) -> None:
        self._runtime = runtime

    def __repr__(self) -> str:
        return f"LockedAgent(name={self.name!r}, skill={self.skill!r})"

    @property
    def name(self) -> str:
        """The locked agent's name (the manifest's key)."""
        return self._runtime.name

    @property
    def skill(self) -> str:
        """The skill id (``"*"``: the agent-level plan)."""
        return self._runtime.skill

    @property
    def plan(self) -> Plan:
        """The locked plan (frozen)."""
        return self._runtime.plan

    @property
    def snapshot(self) -> Mapping[str, Any]:
        """The locked card snapshot (the extended card's when one is locked), read-only; :meth:`snapshot_json`
        gives a copy to hand to a parser that mutates its input (``a2a.client.parse_agent_card``)."""
        return self._runtime.snapshot

    def snapshot_json(self) -> dict[str, Any]:
        """A fresh copy of :attr:`snapshot` as plain JSON values."""
        value = _thaw(self._runtime.snapshot)
        assert isinstance(value, dict)
        return value

    @property
    def input_modes(self) -> tuple[str, ...]:
        """The skill's locked input modes: the media types a message part may have."""
        return self._runtime.input_modes

    @property
    def push_endpoint(self) -> str | None:
        """The locked push endpoint (the only URL a push notification config may name), or ``None``."""
        return self._runtime.push_endpoint

    @property
    def degraded(self) -> bool:
        """True once the agent is degraded (by any of its skills): it failed its plan and its locked fallback."""
        return self.name in self._runtime.lock._degraded

    @property
    def fallbacks_taken(self) -> dict[FallbackReason, int]:
        """How many times ``create_client()`` used a locked alternative for this agent (all its skills), per
        reason; reasons never seen are absent. A fresh dict on each read."""
        return dict(self._runtime.lock._fallbacks.get(self.name, {}))

    @property
    def interfaces(self) -> tuple[Interface, ...]:
        """The plan's interface, then its locked fallback interfaces."""
        fallbacks = self.plan.fallbacks.interfaces if self.plan.fallbacks else ()
        return (self.plan.interface, *fallbacks)

    def request_plan(self, interface: Interface | None = None) -> RequestPlan:
        """The pure check's input for requests to ``interface`` (default: the plan's own; else a locked fallback)."""
        iface = interface or self.plan.interface
        if iface not in self.interfaces:
            raise UsageError(f"{self.name} ({self.skill}): {iface.url} is not an interface of the locked plan")
        return RequestPlan(self.name, self.skill, self.plan, iface, self.input_modes, self.push_endpoint)

    def card(self) -> AgentCard:
        """The locked snapshot as an a2a-sdk ``AgentCard`` narrowed to the plan (``a2a_lock.sdk.card``); nothing is
        fetched. Needs the ``sdk`` extra."""
        from . import sdk

        return sdk.card(self)

    def client_factory(self, **options: Any) -> ClientFactory:
        """An a2a-sdk ``ClientFactory`` bound to the plan (``a2a_lock.sdk.client_factory``), for Google ADK's
        ``RemoteA2aAgent(a2a_client_factory=…)``. Needs the ``sdk`` extra."""
        from . import sdk

        return sdk.client_factory(self, **options)

    def create_client(self, **options: Any) -> Client:
        """An a2a-sdk ``Client`` on exactly the plan (``a2a_lock.sdk.create_client``). Needs the ``sdk`` extra."""
        from . import sdk

        return sdk.create_client(self, **options)

    def httpx_client(
        self,
        *,
        interface: Interface | None = None,
        timeout: httpx.Timeout | float | None = 30.0,
        verify: object = True,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` whose transport enforces the plan (see ``transport.py``), for requests to the
        plan's interface (or the locked fallback ``interface``). The loader builds it: no ``proxy=``, ``mounts=``
        or ``transport=`` can route around the check; environment proxies are applied by the loader's rule;
        redirects are followed by the transport itself (same interface and path only).

        ``verify``: TLS verification as httpx takes it (a private CA's path or an ``ssl.SSLContext``).

        :raises UsageError: ``interface`` is not one of the plan's
        """
        ctx = self.request_plan(interface)
        router = Router(self._runtime.proxies, verify)
        return httpx.AsyncClient(
            transport=EnforcingTransport(ctx, self._runtime, router),
            timeout=timeout,
            headers=headers,
            follow_redirects=False,
            trust_env=False,
        )

    def httpx_sync_client(
        self,
        *,
        interface: Interface | None = None,
        timeout: httpx.Timeout | float | None = 30.0,
        verify: object = True,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Client:
        """The blocking form of :meth:`httpx_client` (an ``httpx.Client``): the same enforcement. A credential that
        needs to wait (an OAuth token not yet cached, an async provider that awaits) is a UsageError, nothing sent.

        :raises UsageError: ``interface`` is not one of the plan's
        """
        ctx = self.request_plan(interface)
        router = Router(self._runtime.proxies, verify)
        return httpx.Client(
            transport=SyncEnforcingTransport(ctx, self._runtime, router),
            timeout=timeout,
            headers=headers,
            follow_redirects=False,
            trust_env=False,
        )


class _AgentRuntime:
    """Per agent skill: what the transport asks for at request time (credentials, platform headers, renewals)."""

    def __init__(
        self,
        lock: Lock,
        name: str,
        skill: str,
        entry: Mapping[str, Any],
        settings: Mapping[str, Any],
        plan: Plan,
    ) -> None:
        self.lock = lock
        self.name = name
        self.skill = skill
        self.plan = plan
        raw = entry["extended"]["snapshot"] if "extended" in entry else entry["snapshot"]
        self._raw = raw
        self.snapshot: Mapping[str, Any] = _deep_freeze(raw)
        self.schemes: dict[str, SecurityScheme] = security_schemes(raw)
        self.input_modes = input_modes(raw, skill)
        self.push_endpoint: str | None = settings["pushEndpoint"]
        self.env = lock._env
        self.proxies = lock._proxies
        record = entry.get("originAuth")
        self.origin_auth: OriginAuthenticator | None = (
            OriginAuthenticator(record, self.env, lock._origin_auth) if record else None
        )
        self._grants: list[ClientCredentialsGrant] = []
        interfaces = [plan.url, *(i.url for i in (plan.fallbacks.interfaces if plan.fallbacks else ()))]
        self.card_urls = card_urls(entry["resolved"], interfaces)
        self._cards: dict[CardShape, str] = {}

    def card(self, shape: CardShape) -> dict[str, Any]:
        """The locked card narrowed to the plan, in ``shape`` (a fresh object)."""
        text = self._cards.get(shape)
        if text is None:
            text = json.dumps(narrowed_card(self._raw, self.plan, self.skill, self.input_modes, shape))
            self._cards[shape] = text
        value: dict[str, Any] = json.loads(text)
        return value

    def __repr__(self) -> str:
        return f"_AgentRuntime({self.name!r}, {self.skill!r})"

    def record(self, error: PlanViolationError) -> None:
        self.lock._refusals.append(error)

    def fallback(self, reason: FallbackReason, from_: str, to: str) -> None:
        """Count a locked alternative taken (``fallbacks_taken``) and emit the ``fallback`` event."""
        counts = self.lock._fallbacks.setdefault(self.name, {})
        counts[reason] = counts.get(reason, 0) + 1
        self.lock._emit("fallback", FallbackEvent(self.name, self.skill, from_, to, reason))

    def degrade(self, reason: FallbackReason, message: str) -> AgentDegradedError:
        """Mark the agent degraded (once per agent: the first error is kept and the ``degraded`` event emitted once)
        and return the typed error to raise."""
        error = AgentDegradedError(self.name, self.skill, reason, message)
        if self.name not in self.lock._degraded:
            self.lock._degraded[self.name] = error
            self.lock._emit("degraded", DegradedEvent(self.name, self.skill, (self.skill,), reason, error))
        return error

    def renew(self) -> bool:
        if not self._grants:
            return False
        for grant in self._grants:
            self.lock._tokens().forget(grant)
        self._grants.clear()
        return True

    async def placements(self, ctx: RequestPlan) -> list[Placement]:
        """The credential placements of the locked security requirement, read now, for a request to ``ctx.iface``."""
        lock = self.lock
        out: list[Placement] = []
        option = lock._credentials
        providers: Mapping[str, CredentialProvider] = {}
        if option is not None and not callable(option):
            providers = option.get(self.name, {})
        sources: Mapping[str, Any] = lock._manifest_sources(self.name)
        for scheme, scopes in self.plan.security.items():
            definition = self.schemes.get(scheme)
            if definition is None:
                raise InvalidInputError(
                    "lockfile-invalid",
                    lock.source,
                    f'agent "{self.name}" locks scheme "{scheme}", which its card does not define',
                )
            provider: CredentialProvider | None = option if callable(option) else providers.get(scheme)
            source = sources.get(scheme) if provider is None else None
            if isinstance(source, dict) and "oauth" in source:
                out.append(
                    place_credential(
                        definition,
                        await self._client_credentials(scheme, definition, source["oauth"], scopes),
                        scheme,
                        f"{self.name} ({self.skill})",
                    )
                )
                continue
            variable = source.get("env") if isinstance(source, dict) else None
            if provider is not None:
                request = CredentialRequest(
                    self.name, self.skill, scheme, tuple(scopes), credential_origin_of(ctx.iface.url)
                )
                secret = await call_provider(provider, request)
            else:
                secret = self.env.get(variable) if variable is not None else None
            if secret is not None and not isinstance(secret, str):
                raise UsageError(
                    f'{self.name} ({self.skill}): the credentials provider for scheme "{scheme}" returned '
                    f"a {type(secret).__name__}, not a string"
                )
            if not secret:
                by = (
                    "the credentials function of load_lock"
                    if callable(option)
                    else f'load_lock\'s credentials["{self.name}"]["{scheme}"]'
                )
                where = (
                    f"{by} returned nothing"
                    if provider is not None
                    else f"{variable} is not set"
                    if variable is not None
                    else "no credentials option or manifest source names it"
                )
                error = CredentialUnsetError(self.name, self.skill, f'no credential for scheme "{scheme}" ({where})')
                error.data.update(
                    {"scheme": scheme, **({"variable": variable} if variable and provider is None else {})}
                )
                raise error
            out.append(place_credential(definition, secret, scheme, f"{self.name} ({self.skill})"))
        return out

    async def _client_credentials(
        self, scheme: str, definition: SecurityScheme, oauth: Mapping[str, Any], scopes: tuple[str, ...]
    ) -> str:
        if definition.type != "oauth2" or definition.token_url is None:
            kind = (
                "an oauth2 scheme without a clientCredentials flow (pass a credentials provider)"
                if definition.type == "oauth2"
                else f"of type {definition.type}"
            )
            raise UsageError(
                f'{self.name} ({self.skill}): a2a.json gives an OAuth client for scheme "{scheme}", '
                f"but the locked card's scheme is {kind}"
            )

        def read(variable: str) -> str:
            value = self.env.get(variable)
            if not value:
                error = CredentialUnsetError(
                    self.name, self.skill, f'no credential for scheme "{scheme}" ({variable} is not set)'
                )
                error.data.update({"scheme": scheme, "variable": variable})
                raise error
            return value

        grant = ClientCredentialsGrant(
            token_url=definition.token_url,
            client_id=read(oauth["clientId"]["env"]),
            client_secret=read(oauth["clientSecret"]["env"]),
            scopes=tuple(scopes),
            client_auth=oauth.get("clientAuth", "basic"),
        )
        token = await self.lock._tokens().token(grant)
        self._grants = [g for g in self._grants if (g.token_url, g.client_id) != (grant.token_url, grant.client_id)]
        self._grants.append(grant)
        return token


_Checked = tuple[dict[str, Any], dict[str, Any]] | A2aLockError


class Lock:
    """The loaded lockfile (see :func:`load_lock`): :attr:`agents`, :meth:`agent`, :attr:`refusals`."""

    def __init__(
        self,
        value: dict[str, Any],
        source: str,
        manifest: tuple[str, str] | None,
        env: Mapping[str, str],
        credentials: CredentialsOption | None,
        origin_auth: Mapping[str, OriginAuthProvider],
    ) -> None:
        self._lock = value
        self.source = source
        self._manifest_text = manifest
        self._manifest: dict[str, Any] | None = None
        self._manifest_error: A2aLockError | None = None
        self._mismatches: dict[str, list[str]] = {}
        self._env = env
        # The proxy variables of the process environment as they are now (the JavaScript loadLock's rule).
        self._proxies = proxy_environment(os.environ)
        self._credentials = credentials
        self._origin_auth = origin_auth
        self._checked: dict[str, _Checked] = {}
        self._agents: dict[tuple[str, str], LockedAgent] = {}
        self._refusals: deque[PlanViolationError] = deque(maxlen=_MAX_REFUSALS)
        self._token_cache: ClientCredentialsTokens | None = None
        self._listeners: dict[EventName, list[Callable[[Any], None]]] = {"fallback": [], "degraded": []}
        self._degraded: dict[str, AgentDegradedError] = {}
        self._fallbacks: dict[str, dict[FallbackReason, int]] = {}

    def __repr__(self) -> str:
        return f"Lock({self.source!r}, agents={self.agents!r})"

    def on(self, event: EventName, listener: Callable[[Any], None]) -> None:
        """Call ``listener`` on every ``event``: ``"fallback"`` with a :class:`~a2a_lock.events.FallbackEvent`
        each time ``create_client()`` takes a locked alternative (before the retry is sent), ``"degraded"`` with a
        :class:`~a2a_lock.events.DegradedEvent` the first time an agent fails its plan and its locked fallback.
        Listeners run synchronously, in the order added.

        :raises UsageError: another event name
        """
        listeners = self._listeners.get(event)
        if listeners is None:
            raise UsageError(f'Lock.on: unknown event "{event}" (events: fallback, degraded)')
        listeners.append(listener)

    def _emit(self, event: EventName, value: FallbackEvent | DegradedEvent) -> None:
        for listener in list(self._listeners[event]):
            listener(value)

    @property
    def agents(self) -> list[str]:
        """The locked agent names."""
        return list(self._lock["agents"])

    @property
    def refusals(self) -> list[PlanViolationError]:
        """The requests refused so far (latest last, at most 1000): wrappers such as ADK turn errors into events,
        so the loader keeps its own record."""
        return list(self._refusals)

    def agent(self, name: str, skill: str | None = None) -> LockedAgent:
        """The locked plan of ``skill`` on agent ``name`` (``None``: the agent-level plan ``"*"``).

        :raises UsageError: an agent or skill the lockfile does not hold
        :raises InvalidInputError: ``lockfile-invalid`` (invalid entry, tampered snapshot), ``manifest-invalid``
        :raises OutOfDateError: ``lockfile-out-of-date`` (the manifest or the snapshot does not match the plans)
        """
        skill = "*" if skill is None else skill
        cached = self._agents.get((name, skill))
        if cached is not None:
            return cached
        if name not in self._lock["agents"]:
            raise UsageError(f'{self.source}: no locked agent "{name}" (locked: {", ".join(self.agents) or "none"})')
        checked = self._check(name)
        if isinstance(checked, A2aLockError):
            raise checked
        entry, settings = checked
        plans: dict[str, Any] = entry["plans"]
        if skill not in plans:
            raise UsageError(
                f'{self.source}: agent "{name}" has no locked skill "{skill}" (locked: {", ".join(plans)})'
            )
        agent = LockedAgent(_AgentRuntime(self, name, skill, entry, settings, Plan.from_json(plans[skill])))
        self._agents[(name, skill)] = agent
        return agent

    def _check(self, name: str) -> _Checked:
        checked = self._checked.get(name)
        if checked is not None:
            return checked
        self._check_manifest()
        checked = self._check_agent(name)
        self._checked[name] = checked
        return checked

    def _check_manifest(self) -> None:
        """Parse the manifest (once) and compare the lockfile with it; a manifest that cannot be read is raised here
        on every call."""
        if self._manifest_text is not None and self._manifest is None and self._manifest_error is None:
            path, text = self._manifest_text
            try:
                self._manifest = parse_manifest(text, path)
                self._mismatches = manifest_mismatches(self._manifest, self._lock)
            except A2aLockError as error:
                self._manifest_error = error
        if self._manifest_error is not None:
            raise self._manifest_error

    def _check_all(self) -> None:
        """``load_lock(eager=True)``: the manifest (``manifest-invalid``; every mismatch at once,
        ``lockfile-out-of-date``), then every agent in the lockfile's order, each as its first :meth:`agent` call
        checks it; the first problem is raised (the order of the JavaScript ``loadLock({ eager: true })``)."""
        self._check_manifest()
        if self._mismatches:
            assert self._manifest_text is not None
            raise OutOfDateError(
                f"{self.source} does not match {self._manifest_text[0]}: {describe_mismatches(self._mismatches)}"
            )
        for name in self._lock["agents"]:
            checked = self._check(name)
            if isinstance(checked, A2aLockError):
                raise checked

    def _check_agent(self, name: str) -> _Checked:
        source = self.source
        settings = self._lock["settings"][name]
        entry = self._lock["agents"][name]
        for where, value, schema in (
            ("settings", settings, _sub_schema("properties", "settings", "additionalProperties")),
            ("agents", entry, _sub_schema("properties", "agents", "additionalProperties")),
        ):
            error = first_error(value, schema, (where, name))
            if error:
                return InvalidInputError("lockfile-invalid", source, error.message, path=format_path(error.path))
        mismatch = self._mismatches.get(name)
        if mismatch:
            assert self._manifest_text is not None
            return OutOfDateError(
                f"{source} does not match {self._manifest_text[0]}: {describe_mismatches({name: mismatch})}"
            )
        for what, locked in (("snapshot", entry), ("extended snapshot", entry.get("extended"))):
            if locked is not None and integrity_of(locked["snapshot"]) != locked["integrity"]:
                return InvalidInputError(
                    "lockfile-invalid",
                    source,
                    f"{what} does not match its integrity {locked['integrity']}",
                    path=format_path(["agents", name, "integrity" if what == "snapshot" else "extended"]),
                    hint=f"run a2a update {name}",
                )
        issues = plan_issues(entry, settings)
        if issues:
            return OutOfDateError(f'{source}: agent "{name}": {"; ".join(issues)}')
        return entry, settings

    def _manifest_sources(self, name: str) -> Mapping[str, Any]:
        if self._manifest is None:
            return {}
        entry = self._manifest["agents"].get(name)
        return entry["credentials"] if entry else {}

    def _tokens(self) -> ClientCredentialsTokens:
        if self._token_cache is None:
            proxies = self._proxies

            def client() -> httpx.AsyncClient:
                return httpx.AsyncClient(
                    transport=_TokenTransport(Router(proxies)), follow_redirects=False, trust_env=False
                )

            self._token_cache = ClientCredentialsTokens(client)
        return self._token_cache

    async def aclose(self) -> None:
        """Forget the cached OAuth tokens (no connection outlives a token request)."""
        self._token_cache = None


class _TokenTransport(httpx.AsyncBaseTransport):
    """Token requests: routed by the proxy rule as carrying a credential (never through a proxy in cleartext)."""

    def __init__(self, router: Router) -> None:
        self._router = router

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        def refuse(message: str) -> PlanViolationError:
            return PlanViolationError("oauth", "token", message)

        pool = self._router.route(str(request.url), credential=True, violation=refuse)
        return await pool.handle_async_request(request)

    async def aclose(self) -> None:
        await self._router.aclose()


def _check_credentials_option(credentials: Any, agents: Mapping[str, Any], source: str) -> None:
    if credentials is None or callable(credentials):
        return

    def refuse(message: str) -> UsageError:
        return UsageError(f"load_lock: {message}; use {PER_AGENT_FORM}")

    if not isinstance(credentials, Mapping):
        raise refuse("credentials is neither a mapping nor a function")
    for key, value in credentials.items():
        shown = repr(str(key)[:60])
        if callable(value):
            raise refuse(
                f"credentials[{shown}] is a function: the scheme-only form {{scheme: provider}} is not supported "
                "(it gave every agent the same secret)"
            )
        if key not in agents:
            raise refuse(
                f"credentials names {shown}, which is not an agent of {source} (locked: {', '.join(agents) or 'none'})"
            )
        if not isinstance(value, Mapping):
            raise refuse(f"credentials[{shown}] is not a mapping of scheme → provider")
        for scheme, provider in value.items():
            if not callable(provider):
                raise refuse(f"credentials[{shown}][{str(scheme)[:60]!r}] is not a function")


def _check_origin_auth_option(origin_auth: Any, agents: Mapping[str, Any], source: str) -> None:
    if origin_auth is None:
        return
    if not isinstance(origin_auth, Mapping):
        raise UsageError("load_lock: origin_auth is not a mapping of origin → provider")
    recorded = {
        origin
        for entry in agents.values()
        if isinstance(entry, dict) and isinstance(entry.get("originAuth"), dict)
        for origin in entry["originAuth"]
    }
    for origin, provider in origin_auth.items():
        shown = repr(str(origin)[:100])
        if origin not in recorded:
            raise UsageError(
                f"load_lock: origin_auth names {shown}, an origin no agent of {source} records a platform credential "
                f"for (recorded: {', '.join(sorted(recorded)) or 'none'})",
                hint="origin_auth's keys are origins as a2a.json's originAuth spells them: https://host[:port], no "
                "path or trailing /",
            )
        if not callable(provider):
            raise UsageError(f"load_lock: origin_auth[{shown}] is not a function")


def load_lock(
    lockfile: str | os.PathLike[str] = "a2a.lock.json",
    *,
    manifest: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    credentials: CredentialsOption | None = None,
    origin_auth: Mapping[str, OriginAuthProvider] | None = None,
    expect_digest: str | None = None,
    eager: bool = False,
) -> Lock:
    """Read and check ``a2a.lock.json`` for run-time use (see the module comment); nothing is sent.

    Lazy (the default): the lockfile's JSON, its top level and every agent's settings present are checked here;
    the manifest and each agent's entry (schema, match with the manifest, snapshot integrity, plans) on that agent's
    first :meth:`Lock.agent` call, which raises on every call for an agent that fails them. ``eager=True`` (at
    deploy time): all of it here, the whole file against the lockfile schema first (as the CLI reads it), then the
    manifest (every mismatch at once), then every agent in the lockfile's order; the first problem is raised, with
    the code the lazy path raises.

    ``manifest``: the manifest whose credential sources (``{"env": NAME}``, ``{"oauth": …}``) are read at request
    time; default ``a2a.json`` beside the lockfile (absent: no sources). When present it must match the lockfile
    (else ``lockfile-out-of-date``, from :meth:`Lock.agent`). ``env``: where credential variables are read
    (default ``os.environ``, read at each request). The proxy variables (``HTTPS_PROXY``, ``HTTP_PROXY``,
    ``NO_PROXY``, either case) are the process environment's as they are when ``load_lock`` runs, whatever ``env``
    holds (as the JavaScript ``loadLock`` reads them). ``credentials``: ``{agent: {scheme: provider}}`` or one
    function of a :class:`~a2a_lock.credentials.CredentialRequest`; providers (sync or async) win over the manifest.
    ``origin_auth``: origin → provider of its platform credential. ``expect_digest``: the lockfile's digest as
    ``a2a lock digest`` prints it; another lockfile is refused (``digest-mismatch``).

    :raises InvalidInputError: ``lockfile-invalid`` (missing, invalid JSON or top level, agent without settings;
        with ``eager``, any invalid entry or tampered snapshot), with ``eager`` ``manifest-invalid``
    :raises OutOfDateError: with ``eager``, ``lockfile-out-of-date`` (the manifest or a snapshot does not match the
        plans: run ``a2a lock``)
    :raises DigestMismatchError: ``digest-mismatch``
    :raises A2aLockError: ``manifest-not-found`` (an explicit ``manifest`` that does not exist)
    :raises UsageError: ``expect_digest`` not spelt as a digest; ``eager`` not a bool; a ``credentials`` /
        ``origin_auth`` option naming something the lockfile does not hold
    """
    if not isinstance(eager, bool):
        raise UsageError(f"load_lock: eager must be True or False (got {type(eager).__name__})")
    if expect_digest is not None and not (isinstance(expect_digest, str) and _DIGEST.match(expect_digest)):
        got = repr(expect_digest[:60]) if isinstance(expect_digest, str) else type(expect_digest).__name__
        raise UsageError(
            "load_lock: expect_digest must be a lockfile digest, sha256- and 44 base64 characters ending in ="
            f" (got {got})",
            hint="a2a lock digest prints the digest of a lockfile",
        )
    source = str(Path(lockfile).resolve())
    manifest_path = Path(manifest).resolve() if manifest is not None else Path(source).parent / "a2a.json"
    try:
        text = Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInputError("lockfile-invalid", source, "no lockfile here", hint="run a2a lock") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError("lockfile-invalid", source, f"cannot be read ({type(error).__name__})") from None
    value = parse_lockfile_json(text, source)
    if expect_digest is not None:
        actual = lock_digest(value)
        if actual != expect_digest:
            raise DigestMismatchError(source, expect_digest, actual)
    # Eager: the whole file against the lockfile schema, as the CLI reads it (the same first error).
    top = validate_lockfile(value, source) if eager else check_lockfile_top(value, source)
    _check_credentials_option(credentials, top["agents"], source)
    _check_origin_auth_option(origin_auth, top["agents"], source)
    for name in top["agents"]:
        if name not in top["settings"]:
            raise InvalidInputError(
                "lockfile-invalid", source, f'agent "{name}" has no settings', path=format_path(["settings", name])
            )
    manifest_text: tuple[str, str] | None = None
    if manifest is not None or manifest_path.exists():
        try:
            manifest_text = (str(manifest_path), manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise A2aLockError(
                "manifest-not-found",
                f"{manifest_path}: not found",
                hint="check the manifest path; a2a init writes a new manifest",
                data={"source": str(manifest_path)},
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise InvalidInputError(
                "manifest-invalid", str(manifest_path), f"cannot be read ({type(error).__name__})"
            ) from None
    lock = Lock(
        top,
        source,
        manifest_text,
        os.environ if env is None else env,
        credentials,
        dict(origin_auth or {}),
    )
    if eager:
        lock._check_all()
    return lock
