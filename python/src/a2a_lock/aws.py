"""AWS Signature V4 for an ``awsSigV4`` ``originAuth`` placement (the ``aws`` extra: botocore).

Loaded lazily by :mod:`a2a_lock.origin_auth` on the first request to such an origin (:data:`SIGNER_HOOK`), so
the core never imports botocore. The signature is AWS's own signer (``botocore.auth.SigV4Auth``), as the
JavaScript runtime uses ``@smithy/signature-v4``: computed over the request's final method, path, query, the
headers it will carry, and its body, whose SHA-256 is also sent as ``x-amz-content-sha256``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .errors import UsageError

if TYPE_CHECKING:
    from .origin_auth import AwsCredentials

__all__ = ["sign_v4"]


def sign_v4(
    *,
    region: str,
    service: str,
    credentials: AwsCredentials,
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
) -> dict[str, str]:
    """The SigV4 headers to add to one request (lower-case names): ``authorization``, ``x-amz-date``,
    ``x-amz-content-sha256`` and, with a session token, ``x-amz-security-token``.

    ``headers`` are the headers the request will carry (``host`` is taken from ``url`` when absent). No header
    value and no key ever appears in an error.

    :raises UsageError: botocore is not installed (``pip install 'a2a-lock[aws]'``).
    """
    try:
        from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
        from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
        from botocore.credentials import Credentials  # type: ignore[import-untyped]
    except ImportError as error:
        raise UsageError(
            f"an awsSigV4 originAuth signs with botocore, which is not installed ({type(error).__name__})",
            hint="pip install 'a2a-lock[aws]'",
        ) from None
    given = {name.lower(): value for name, value in headers.items()}
    given["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    request = AWSRequest(method=method.upper(), url=url, data=body, headers=given)
    signer = SigV4Auth(
        Credentials(credentials.access_key_id, credentials.secret_access_key, credentials.session_token),
        service,
        region,
    )
    signer.add_auth(request)
    out: dict[str, str] = {}
    for name, value in request.headers.items():
        key = name.lower()
        if key in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"):
            out[key] = value if isinstance(value, str) else value.decode("latin-1")
    return out
