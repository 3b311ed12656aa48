"""The locked plan of one agent skill, read-only: the typed, frozen form of a lockfile's ``plans[skill]``.

Field names are the lockfile's in snake_case (A2A 1.0 terms). Built from an entry the lockfile schema accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["Delivery", "Fallbacks", "Interface", "Plan"]

Delivery = Literal["stream", "push", "poll"]


@dataclass(frozen=True)
class Interface:
    """An interface requests go to: ``url``, ``protocol_binding`` (``JSONRPC``, ``HTTP+JSON``, ``GRPC``),
    ``protocol_version`` (``Major.Minor``) and the optional ``tenant``."""

    url: str
    protocol_binding: str
    protocol_version: str
    tenant: str | None = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Interface:
        """From a lockfile interface object (``url``, ``protocolBinding``, ``protocolVersion``, ``tenant?``)."""
        return cls(
            url=value["url"],
            protocol_binding=value["protocolBinding"],
            protocol_version=value["protocolVersion"],
            tenant=value.get("tenant"),
        )


@dataclass(frozen=True)
class Fallbacks:
    """The locked alternatives: other ``interfaces`` (tried on a version or operation error) and ``delivery``
    fallbacks (only ``poll``)."""

    interfaces: tuple[Interface, ...]
    delivery: tuple[Literal["poll"], ...]


@dataclass(frozen=True)
class Plan(Interface):
    """A locked plan (A2A 1.0 terms): the interface (``url``, ``protocol_binding``, ``protocol_version``,
    ``tenant``), ``security`` (scheme name → scopes of the locked requirement; empty: no credential),
    ``accepted_output_modes``, ``delivery`` (``stream``, ``push`` or ``poll``), ``extensions`` (URIs) and
    ``fallbacks`` (``None``: none). Frozen; ``security`` is a read-only mapping."""

    security: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    accepted_output_modes: tuple[str, ...] = ()
    delivery: Delivery = "poll"
    extensions: tuple[str, ...] = ()
    fallbacks: Fallbacks | None = None

    @property
    def interface(self) -> Interface:
        """The plan's own interface."""
        return Interface(self.url, self.protocol_binding, self.protocol_version, self.tenant)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Plan:
        """From a lockfile plan object the schema accepted."""
        fallbacks = value.get("fallbacks")
        return cls(
            url=value["url"],
            protocol_binding=value["protocolBinding"],
            protocol_version=value["protocolVersion"],
            tenant=value.get("tenant"),
            security=MappingProxyType({k: tuple(v) for k, v in value["security"].items()}),
            accepted_output_modes=tuple(value["acceptedOutputModes"]),
            delivery=value["delivery"],
            extensions=tuple(value["extensions"]),
            fallbacks=None
            if fallbacks is None
            else Fallbacks(
                interfaces=tuple(Interface.from_json(i) for i in fallbacks["interfaces"]),
                delivery=tuple(fallbacks["delivery"]),
            ),
        )
