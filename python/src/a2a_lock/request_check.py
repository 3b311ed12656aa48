"""The request check: one outgoing request against a locked plan, without sending anything. Pure.

The Python form of the JavaScript runtime's ``checkRequest`` (``src/runtime/enforce.ts``): the URL is the locked
interface (HTTP+JSON: a path below it); ``A2A-Version`` is the locked version; the extensions header (either
spelling) lists only locked extensions; the call its body (JSON-RPC) or path (HTTP+JSON) names is one the plan
allows (no streaming on a poll plan, no push config where none is locked, a push URL only the locked endpoint);
message parts' media types are among the skill's locked input modes; ``acceptedOutputModes`` only locked modes (the
plan's filled in when the request lists none). Spec: A2A 1.0 §3.6, §4.6, §3.2.2, §3.1.2, §3.1.7, §9, §11.

Anything off-plan raises :class:`~a2a_lock.errors.PlanViolationError`; a request that passes comes back completed
(:class:`CheckedRequest`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import SplitResult, unquote, urlsplit

from .canonical import js_stringify
from .errors import PlanViolationError
from .plan import Interface, Plan

__all__ = [
    "CheckedRequest",
    "RequestPlan",
    "check_push_endpoint",
    "check_request",
    "media_type_key",
    "same_url",
    "url_markers",
]

CallKind = Literal["send", "stream", "subscribe", "push-set", "other"]

JSONRPC_METHODS: dict[str, dict[str, CallKind]] = {
    "1.0": {
        "SendMessage": "send",
        "SendStreamingMessage": "stream",
        "GetTask": "other",
        "ListTasks": "other",
        "CancelTask": "other",
        "SubscribeToTask": "subscribe",
        "CreateTaskPushNotificationConfig": "push-set",
        "GetTaskPushNotificationConfig": "other",
        "ListTaskPushNotificationConfigs": "other",
        "DeleteTaskPushNotificationConfig": "other",
        "GetExtendedAgentCard": "other",
    },
    "0.3": {
        "message/send": "send",
        "message/stream": "stream",
        "tasks/get": "other",
        "tasks/cancel": "other",
        "tasks/resubscribe": "subscribe",
        "tasks/pushNotificationConfig/set": "push-set",
        "tasks/pushNotificationConfig/get": "other",
        "tasks/pushNotificationConfig/list": "other",
        "tasks/pushNotificationConfig/delete": "other",
        "agent/getAuthenticatedExtendedCard": "other",
    },
}
"""The JSON-RPC methods of each protocol version (A2A 1.0 §9.4 and §5.3; 0.3 §7), each with its kind of call."""

PUSH_FIELDS = (
    "taskPushNotificationConfig",
    "task_push_notification_config",
    "pushNotificationConfig",
    "push_notification_config",
    "pushNotification",
    "push_notification",
)
PLAN_FIELDS = ("message", "request", "configuration", *PUSH_FIELDS)
PART_CONTENT = ("text", "raw", "url", "data", "file")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def media_type_key(media_type: str) -> str:
    """The comparison key of a media type: essence lower-cased (a bare ``text`` is ``text/plain``), parameters exact."""
    semi = media_type.find(";")
    essence = (media_type if semi == -1 else media_type[:semi]).strip().lower()
    if essence == "text":
        essence = "text/plain"
    params = "" if semi == -1 else media_type[semi + 1 :].strip()
    return essence if params == "" else f"{essence};{params}"


@dataclass(frozen=True)
class RequestPlan:
    """What the check reads: ``agent``, ``skill``, the locked ``plan``, the interface ``iface`` requests go to (the
    plan's own or a locked fallback), the skill's locked ``input_modes`` and the locked ``push_endpoint``."""

    agent: str
    skill: str
    plan: Plan
    iface: Interface
    input_modes: tuple[str, ...]
    push_endpoint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_input_keys", frozenset(media_type_key(m) for m in self.input_modes))
        object.__setattr__(self, "_output_keys", frozenset(media_type_key(m) for m in self.plan.accepted_output_modes))

    def violation(self, message: str) -> PlanViolationError:
        """A :class:`PlanViolationError` of this agent and skill."""
        return PlanViolationError(self.agent, self.skill, message)

    def has_input_mode(self, media_type: str) -> bool:
        keys: frozenset[str] = object.__getattribute__(self, "_input_keys")
        return media_type in keys or media_type_key(media_type) in keys

    def has_output_mode(self, media_type: str) -> bool:
        keys: frozenset[str] = object.__getattribute__(self, "_output_keys")
        return media_type in keys or media_type_key(media_type) in keys


@dataclass(frozen=True)
class CheckedRequest:
    """A request the plan allows, completed from it: ``path`` below the interface URL (HTTP+JSON; ``""`` for the
    exact URL; a redirect must keep it), the ``headers`` to send before a credential is placed (``a2a-version`` and
    the extensions header the plan's, then the request's others as given) and the ``body`` to send."""

    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None


def check_request(
    ctx: RequestPlan, *, url: str, method: str, headers: Iterable[tuple[str, str]], body: bytes | str | None
) -> CheckedRequest:
    """Check one request against the plan and complete it; nothing is sent.

    ``url``: the absolute request URL; ``method``: the HTTP method; ``headers``: (name, value) pairs, names in any
    case (a repeated protocol header counts once, its values joined with ", "); ``body``: JSON text or ``None``.

    :raises PlanViolationError: anything off-plan, and every request on a binding not carried over HTTP (gRPC)
    """
    binding = ctx.iface.protocol_binding
    if binding not in ("JSONRPC", "HTTP+JSON"):
        raise ctx.violation(f"the locked binding {binding} is not carried over HTTP (use create_client())")
    path = _check_url(ctx, url)
    text: str | None
    if body is None:
        text = None
    elif isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ctx.violation("the request body must be JSON text") from None
    else:
        text = body
    if text == "":
        text = None
    out_headers = _check_headers(ctx, headers)
    kind = _rest_kind(ctx, path, method.upper()) if binding == "HTTP+JSON" else None
    if text is not None:
        text = _check_body(ctx, kind, text)
    elif kind is not None:
        _check_kind(ctx, kind)
    else:
        raise ctx.violation(f"a JSON-RPC request without a body ({method.upper()}) is not a call this plan can check")
    return CheckedRequest(path=path, headers=out_headers, body=None if text is None else text.encode("utf-8"))


def _split(href: str) -> SplitResult | None:
    try:
        parts = urlsplit(href)
        _ = parts.port
    except ValueError:
        return None
    if parts.scheme == "" or parts.hostname is None:
        return None
    return parts


def _origin(parts: SplitResult) -> tuple[str, str, int | None]:
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    return scheme, host, parts.port or _DEFAULT_PORTS.get(scheme)


def _path(parts: SplitResult) -> str:
    return parts.path or "/"


def url_markers(href: str) -> tuple[bool, bool]:
    """Whether ``href`` has a query (``?``) and a fragment (``#``), empty ones included: ``urlsplit`` reads
    ``/a?`` as ``/a``, the WHATWG parser (and the wire) keeps the ``?``."""
    head, mark, _ = href.partition("#")
    return "?" in head, bool(mark)


def same_url(a: str, b: str) -> bool:
    """Whether two absolute URLs are the same (scheme and host case, default port and an empty path aside; an
    empty query or fragment is one, as the WHATWG parser reads it)."""
    pa, pb = _split(a), _split(b)
    if pa is None or pb is None:
        return a == b
    return (
        _origin(pa) == _origin(pb)
        and _path(pa) == _path(pb)
        and pa.query == pb.query
        and pa.fragment == pb.fragment
        and url_markers(a) == url_markers(b)
        and (pa.username, pa.password) == (pb.username, pb.password)
    )


def _shown(parts: SplitResult) -> str:
    scheme, host, port = _origin(parts)
    default = _DEFAULT_PORTS.get(scheme)
    shown_host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown_host}{'' if port in (None, default) else f':{port}'}{_path(parts)}"


def path_below(iface: Interface, href: str) -> str | None:
    """The path of ``href`` below the interface URL (HTTP+JSON), ``""`` for the exact URL; ``None`` when off-plan."""
    base = _split(iface.url)
    url = _split(href)
    if base is None or url is None:
        return None
    if iface.protocol_binding == "HTTP+JSON":
        base_path = base.path.rstrip("/")
        if _origin(url) != _origin(base) or url.username is not None or url.password is not None:
            return None
        path = _path(url)
        if path != base_path and not path.startswith(base_path + "/"):
            return None
        return path[len(base_path) :]
    return "" if same_url(href, iface.url) else None


def _check_url(ctx: RequestPlan, href: str) -> str:
    if href == ctx.iface.url:
        return ""
    url = _split(href)
    if url is None:
        raise ctx.violation("the request URL is not an absolute URL")
    path = path_below(ctx.iface, href)
    if path is None:
        base = _split(ctx.iface.url)
        locked = _shown(base) if base else "(not a URL)"
        why = ""
        if base is not None and _origin(url) == _origin(base):
            reasons = []
            if url.username is not None or url.password is not None:
                reasons.append("has userinfo (credentials in the URL)")
            if ctx.iface.protocol_binding != "HTTP+JSON" and _path(url) == _path(base):
                (query, fragment), (locked_query, locked_fragment) = url_markers(href), url_markers(ctx.iface.url)
                if url.query != base.query or query != locked_query:
                    reasons.append("has a query string" if query else "lacks the locked query string")
                if url.fragment != base.fragment or fragment != locked_fragment:
                    reasons.append("has a fragment" if fragment else "lacks the locked fragment")
            if reasons:
                why = f": it {' and '.join(reasons)}"
        raise ctx.violation(f"{_shown(url)} is not the locked interface {ctx.iface.protocol_binding} {locked}{why}")
    return path


def _check_headers(ctx: RequestPlan, headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    version = ctx.iface.protocol_version
    planned: list[tuple[str, str]] = [("a2a-version", version)]
    if ctx.plan.extensions:
        name = "x-a2a-extensions" if version.startswith("0.") else "a2a-extensions"
        planned.append((name, ", ".join(ctx.plan.extensions)))
    asked: str | None = None
    extensions: str | None = None
    legacy: str | None = None
    for name, value in headers:
        if name == "__proto__":
            # As the JavaScript runtime refuses it (there a header of that name would re-parent the headers sent).
            raise ctx.violation('a header named "__proto__" is refused')
        lower = name.lower()
        if lower == "a2a-version":
            asked = value if asked is None else f"{asked}, {value}"
        elif lower == "a2a-extensions":
            extensions = value if extensions is None else f"{extensions}, {value}"
        elif lower == "x-a2a-extensions":
            legacy = value if legacy is None else f"{legacy}, {value}"
        else:
            planned.append((name, value))
    if asked is not None:
        given = asked.strip()
        if given != version and not given.startswith(f"{version}."):
            raise ctx.violation(f"A2A-Version {json.dumps(asked[:20])} conflicts with the locked {version}")
    _check_extensions_header(ctx, extensions)
    _check_extensions_header(ctx, legacy)
    return tuple(planned)


def _check_extensions_header(ctx: RequestPlan, listed: str | None) -> None:
    if listed is None:
        return
    for uri in (s.strip() for s in listed.split(",")):
        if uri and uri not in ctx.plan.extensions:
            raise ctx.violation(f"extension {uri} is not locked (locked: {_list(ctx.plan.extensions)})")


_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SEND = re.compile(r"/message:send\Z")
_STREAM = re.compile(r"/message:stream\Z")
_SUBSCRIBE = re.compile(r"/tasks/[^/]+:subscribe\Z")
_PUSH = re.compile(r"/tasks/[^/]+/pushnotificationconfigs(/[^/]+)?\Z")
_UNKNOWN_A2A = re.compile(r"(^|/)message([:/]|\Z)|:(send|stream|subscribe|resubscribe)\b|pushnotification", re.ASCII)


def _rest_kind(ctx: RequestPlan, rel: str, method: str) -> CallKind:
    """The HTTP+JSON call a path names. On a push config route GET and DELETE read or remove configs (as the
    JSON-RPC Get/List/DeleteTaskPushNotificationConfig, allowed on any plan); any other method sets one."""
    if _BAD_PERCENT.search(rel):
        raise ctx.violation("the request path is not valid percent-encoding")
    try:
        decoded = unquote(rel, errors="strict")
    except UnicodeDecodeError:
        raise ctx.violation("the request path is not valid percent-encoding") from None
    path = re.sub(r"/+\Z", "", re.sub(r"/{2,}", "/", decoded.lower()))
    if _SEND.search(path):
        return "send"
    if _STREAM.search(path):
        return "stream"
    if _SUBSCRIBE.search(path):
        return "subscribe"
    if _PUSH.search(path):
        return "other" if method in ("GET", "DELETE") else "push-set"
    if _UNKNOWN_A2A.search(path):
        raise ctx.violation(f"the path {json.dumps(rel[:80])} is not an A2A route this plan can check")
    return "other"


def _check_kind(ctx: RequestPlan, kind: CallKind) -> None:
    if kind in ("stream", "subscribe") and ctx.plan.delivery != "stream":
        raise ctx.violation(f"a streaming call, but the locked delivery is {ctx.plan.delivery}")
    if kind == "push-set" and ctx.plan.delivery != "push":
        raise ctx.violation(f"a push notification config, but the locked delivery is {ctx.plan.delivery}")


def _is_set(value: Any) -> bool:
    return value is not None


MAX_JSON_DEPTH = 64
"""The nesting limit of every JSON document a2a-lock reads (the JavaScript ``MAX_JSON_DEPTH``)."""
_TOO_DEEP = f"the request body nests deeper than {MAX_JSON_DEPTH} levels"
_NOT_A_DOUBLE = "the request body holds a number beyond the range of a double (JSON would not carry it)"


def _unsendable_in(value: Any, depth: int) -> str | None:
    """:data:`_TOO_DEEP` when a container of ``value`` (at ``depth``) is :data:`MAX_JSON_DEPTH` levels down, else
    :data:`_NOT_A_DOUBLE` for a number JavaScript's ``JSON.parse`` reads as ±Infinity (a float that overflowed, an
    int too large for a double), else None. One walk, stopped at the depth limit."""
    if isinstance(value, float):
        return _NOT_A_DOUBLE if value in (_INF, -_INF) else None
    if isinstance(value, int) and not isinstance(value, bool):
        if -_MAX_EXACT <= value <= _MAX_EXACT:
            return None
        try:
            float(value)
        except OverflowError:
            return _NOT_A_DOUBLE
        return None
    if not isinstance(value, (dict, list)):
        return None
    if depth >= MAX_JSON_DEPTH:
        return _TOO_DEEP
    found = None
    for child in value.values() if isinstance(value, dict) else value:
        here = _unsendable_in(child, depth + 1)
        if here is _TOO_DEEP:
            return _TOO_DEEP
        found = found or here
    return found


_INF = float("inf")
_MAX_EXACT = 2**53


def _unsendable_json(value: Any) -> str | None:
    """Why a parsed request body cannot be checked and sent as written, or None: nested deeper than
    :data:`MAX_JSON_DEPTH` levels, else a number beyond the range of a double (``1e400``; the JavaScript runtime
    would send it as null). The same rule and words as the JavaScript runtime's."""
    return _unsendable_in(value, 0)


def _check_body(ctx: RequestPlan, rest_call: CallKind | None, body: str) -> str:
    try:
        value = json.loads(body, parse_constant=_no_constant)
    except ValueError:
        raise ctx.violation("the request body is not JSON") from None
    except RecursionError:
        raise ctx.violation(_TOO_DEEP) from None
    unsendable = _unsendable_json(value)
    if unsendable:
        raise ctx.violation(unsendable)
    params: dict[str, Any] | None
    if rest_call is not None:
        kind = rest_call
        params = value if isinstance(value, dict) else None
    else:
        kind, params = _jsonrpc_call(ctx, value)
    _check_kind(ctx, kind)
    if kind not in ("send", "stream"):
        field = next((k for k in PLAN_FIELDS if params is not None and params.get(k) is not None), None)
        if field is not None and kind != "push-set":
            what = "request on this route" if rest_call else "call of this method"
            raise ctx.violation(
                f'a {what} carrying "{field}" (a message or send configuration) is not one this plan can check'
            )
        if kind == "push-set":
            check_push_endpoint(ctx.push_endpoint, params if params is not None else value, ctx.violation)
        return body
    if params is None:
        if rest_call:
            raise ctx.violation("the send request body is not a JSON object")
        return body
    _check_message(ctx, params.get("message"))
    _check_message(ctx, params.get("request"))
    return js_stringify(value) if _complete_configuration(ctx, params) else body


def _jsonrpc_call(ctx: RequestPlan, value: Any) -> tuple[CallKind, dict[str, Any] | None]:
    if isinstance(value, list):
        raise ctx.violation(
            "a JSON-RPC batch (an array of calls) is refused: A2A does not use batches, "
            "and its calls would go unchecked"
        )
    if not isinstance(value, dict):
        raise ctx.violation("the JSON-RPC request body is not an object")
    method = value.get("method")
    if not isinstance(method, str):
        raise ctx.violation('the JSON-RPC request has no "method" string')
    methods = JSONRPC_METHODS.get(ctx.iface.protocol_version)
    if methods is None:
        raise ctx.violation(f"no JSON-RPC method table for the locked version {ctx.iface.protocol_version}")
    kind = methods.get(method)
    if kind is None:
        first = ", ".join(list(methods)[:3])
        raise ctx.violation(
            f"method {json.dumps(method[:60])} is not a JSON-RPC method of the locked version "
            f"{ctx.iface.protocol_version} ({first}, ...)"
        )
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        raise ctx.violation(f"the params of {method} are not an object")
    if "params" in value and params is None:
        raise ctx.violation(f"the params of {method} are not an object")
    return kind, params


def _check_message(ctx: RequestPlan, message: Any) -> None:
    if not isinstance(message, dict):
        return
    exts = message.get("extensions")
    if isinstance(exts, list):
        for uri in exts:
            if not isinstance(uri, str) or uri not in ctx.plan.extensions:
                raise ctx.violation(
                    f"message extension {js_stringify(uri)} is not locked (locked: {_list(ctx.plan.extensions)})"
                )
    for field in ("parts", "content"):
        parts = message.get(field)
        if isinstance(parts, list):
            for part in parts:
                _check_part(ctx, part)


def _check_part(ctx: RequestPlan, part: Any) -> None:
    if not isinstance(part, dict) or not any(_is_set(part.get(k)) for k in PART_CONTENT):
        raise ctx.violation(f"a message part has no recognisable content ({', '.join(PART_CONTENT)})")
    raw_file = part.get("file")
    file: dict[str, Any] = raw_file if isinstance(raw_file, dict) else {}
    declared = False
    for media in (part.get("mediaType"), part.get("media_type"), file.get("mimeType"), file.get("mime_type")):
        if isinstance(media, str) and media != "":
            _check_input_mode(ctx, media)
            declared = True
    if declared:
        return
    if _is_set(part.get("text")) or part.get("kind") == "text":
        _check_input_mode(ctx, "text/plain")
    if _is_set(part.get("data")) or part.get("kind") == "data":
        _check_input_mode(ctx, "application/json")
    if any(_is_set(part.get(k)) for k in ("raw", "url", "file")) or part.get("kind") == "file":
        _check_input_mode(ctx, "application/octet-stream")


def _check_input_mode(ctx: RequestPlan, media_type: str) -> None:
    if not ctx.has_input_mode(media_type):
        raise ctx.violation(
            f"a message part of type {media_type} is not in the locked input modes ({_list(ctx.input_modes)})"
        )


def _complete_configuration(ctx: RequestPlan, params: dict[str, Any]) -> bool:
    configuration = params.get("configuration")
    if not isinstance(configuration, dict):
        configuration = {}
    for key in PUSH_FIELDS:
        config = configuration.get(key)
        if not _js_truthy(config):
            continue
        if ctx.plan.delivery != "push":
            raise ctx.violation(f"a push notification config, but the locked delivery is {ctx.plan.delivery}")
        check_push_endpoint(ctx.push_endpoint, config, ctx.violation)
    camel = configuration.get("acceptedOutputModes")
    snake = configuration.get("accepted_output_modes")
    _check_output_modes(ctx, camel)
    _check_output_modes(ctx, snake)
    if (len(camel) > 0) if isinstance(camel, list) else (isinstance(snake, list) and len(snake) > 0):
        return False
    params["configuration"] = {**configuration, "acceptedOutputModes": list(ctx.plan.accepted_output_modes)}
    return True


def _check_output_modes(ctx: RequestPlan, modes: Any) -> None:
    if not isinstance(modes, list):
        return
    for mode in modes:
        if not isinstance(mode, str) or not ctx.has_output_mode(mode):
            raise ctx.violation(
                f"accepted output mode {js_stringify(mode)} is not locked "
                f"(locked: {_list(ctx.plan.accepted_output_modes)})"
            )


def check_push_endpoint(push_endpoint: str | None, config: Any, violation: Any) -> None:
    """Every ``url`` a push notification config carries (any depth up to 4) must be the locked ``push_endpoint``;
    a config without one is refused too (fail closed).

    :raises PlanViolationError: (made by ``violation(message)``) otherwise
    """
    urls: list[Any] = []

    def walk(value: Any, depth: int) -> None:
        if not isinstance(value, dict) or depth > 4:
            return
        for key, item in value.items():
            if key == "url":
                urls.append(item)
            else:
                walk(item, depth + 1)

    walk(config, 0)
    if not urls:
        raise violation(
            "a push notification config without a url: only the locked pushEndpoint may receive notifications"
        )
    locked = _split(push_endpoint) if push_endpoint is not None else None
    for url in urls:
        given = _split(url) if isinstance(url, str) else None
        if given is None or locked is None or push_endpoint is None or not same_url(url, push_endpoint):
            shown = _shown(given) if given else "a value that is not a URL"
            raise violation(
                f"the push notification config url {shown} is not the locked pushEndpoint "
                f"{_shown(locked) if locked else '(none)'}"
            )


def _list(values: Sequence[str]) -> str:
    return ", ".join(values) if values else "none"


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: ``{}`` and ``[]`` are true (a push config ``{}`` is one, refused)."""
    if value is None or value is False or value == "":
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == value and value != 0
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
