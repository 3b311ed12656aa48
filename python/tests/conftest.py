from __future__ import annotations

from collections.abc import Iterator

import pytest

from loopback import Recorder


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    r = Recorder().start()
    yield r
    r.stop()


@pytest.fixture
def other() -> Iterator[Recorder]:
    """A second recorder: another origin, where nothing may go."""
    r = Recorder().start()
    yield r
    r.stop()
