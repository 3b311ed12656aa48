import re
from pathlib import Path

from a2a_lock import errors

ROOT = Path(__file__).resolve().parents[2]


def test_codes_are_the_javascript_codes() -> None:
    source = (ROOT / "src" / "errors.ts").read_text()
    table = source[source.index("export const ErrorCode = {") : source.index("} as const;")]
    js_codes = re.findall(r"^\s+\w+: '([a-z-]+)',", table, re.M)
    assert len(js_codes) > 10
    assert tuple(js_codes) == errors.ERROR_CODES


def test_message_names_the_code_and_repr_is_bounded() -> None:
    e = errors.PlanViolationError("research", "market-size", "A2A-Version 0.3 is not the locked 1.0")
    assert str(e).startswith("plan-violation: research (market-size)")
    assert isinstance(e, Exception)
    assert repr(e) == (
        "PlanViolationError(code='plan-violation', "
        "message='research (market-size): A2A-Version 0.3 is not the locked 1.0')"
    )
    assert e.retryable is False
    assert e.to_json()["agent"] == "research"


def test_errors_are_not_httpx_errors() -> None:
    import httpx

    for cls in (errors.PlanViolationError, errors.DigestMismatchError, errors.OutOfDateError):
        assert not issubclass(cls, httpx.HTTPError)
