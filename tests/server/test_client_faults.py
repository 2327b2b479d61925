"""Client garbage is not a server error: counted per kind, one warning line a minute
per kind, no traceback."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from tablehub.server.ops import faults
from tests.conftest import RunningHub
from tests.server.transport.test_bad_input import closed_with, raw

KIND = "sent invalid UTF-8"


def counted() -> float:
    value = REGISTRY.get_sample_value("tablehub_client_faults_total", {"kind": KIND})
    return value or 0.0


async def test_invalid_utf8_is_counted_and_logged_once_a_minute_without_a_traceback(
    hub: RunningHub, caplog: pytest.LogCaptureFixture
) -> None:
    faults._logged.pop(KIND, None)
    before = counted()
    with caplog.at_level(logging.INFO):
        for _ in range(3):
            ws = await raw(hub, "tablehub.v1.json")
            await ws.send(b"\xff\xfe not UTF-8", text=True)
            assert await closed_with(ws) == 1007
    assert counted() == before + 3
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in lines] == ["tablehub.clients"], [r.getMessage() for r in lines]
    assert KIND in lines[0].getMessage() and lines[0].exc_info is None
