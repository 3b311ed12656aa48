"""The aws extra's SigV4 signer (a2a_lock.aws.sign_v4) gives the headers the JavaScript runtime's signer
(@smithy/signature-v4, with the options src/http/origin-auth.ts uses) gives for the same request: one signature,
every runtime. The JS side is run live from node_modules; the first vector is also spelled out."""

from __future__ import annotations

import datetime
import json
import subprocess
from typing import Any

import botocore.auth
import pytest

from a2a_lock.aws import sign_v4
from a2a_lock.origin_auth import AwsCredentials
from sdk_peers import NODE, ROOT

KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

_JS_SIGN = """
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
class Sha256 {
  constructor(secret) { this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', secret); }
  update(data) { this.h.update(data); }
  async digest() { return new Uint8Array(this.h.digest()); }
}
const c = JSON.parse(process.argv[1]);
const url = new URL(c.url);
const signer = new SignatureV4({ credentials: c.credentials, region: c.region, service: c.service, sha256: Sha256,
  applyChecksum: true, uriEscapePath: true });
const query = Object.fromEntries(url.searchParams);
const headers = { host: url.host, ...c.headers };
const signed = await signer.sign({ method: c.method, protocol: url.protocol, hostname: url.hostname, path: url.pathname,
  query, headers, body: c.body }, { signingDate: new Date(c.date) });
const out = {};
for (const [k, v] of Object.entries(signed.headers)) if (k !== 'host' && !(k in headers)) out[k] = v;
console.log(JSON.stringify(out));
"""

CASES: list[dict[str, Any]] = [
    {
        "region": "us-east-1",
        "service": "service",
        "credentials": {"accessKeyId": "AKIDEXAMPLE", "secretAccessKey": KEY},
        "method": "GET",
        "url": "https://example.amazonaws.com/",
        "headers": {},
        "body": "",
        "date": "2015-08-30T12:36:00Z",
    },
    {
        "region": "us-west-2",
        "service": "bedrock-agentcore",
        "credentials": {"accessKeyId": "AKIDEXAMPLE", "secretAccessKey": KEY, "sessionToken": "session-T0ken"},
        "method": "POST",
        "url": "https://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-west-2"
        "%3A123456789012%3Aruntime%2Fagent-1/invocations/?qualifier=DEFAULT",
        "headers": {"content-type": "application/json", "a2a-version": "1.0"},
        "body": '{"jsonrpc":"2.0","id":1,"method":"SendMessage"}',
        "date": "2026-12-07T16:00:00Z",
    },
]


def _python_sign(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    when = datetime.datetime.strptime(case["date"], "%Y-%m-%dT%H:%M:%SZ")
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: when)
    creds = case["credentials"]
    return sign_v4(
        region=case["region"],
        service=case["service"],
        credentials=AwsCredentials(creds["accessKeyId"], creds["secretAccessKey"], creds.get("sessionToken")),
        method=case["method"],
        url=case["url"],
        headers=case["headers"],
        body=case["body"].encode(),
    )


def test_sigv4_vanilla_get_spelled_out(monkeypatch: pytest.MonkeyPatch) -> None:
    headers = _python_sign(CASES[0], monkeypatch)
    assert headers == {
        "x-amz-date": "20150830T123600Z",
        "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
        "Signature=726c5c4879a6b4ccbbd3b24edbd6b8826d34f87450fbbf4e85546fc7ba9c1642",
    }


@pytest.mark.parametrize("case", CASES, ids=["get-vanilla", "agentcore-post-session-token"])
def test_sigv4_same_headers_as_the_javascript_signer(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    js = subprocess.run(  # noqa: S603
        [NODE, "--input-type=module", "-e", _JS_SIGN, json.dumps(case)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert _python_sign(case, monkeypatch) == json.loads(js.stdout)
