"""The inbound gate: every frame gets its documented verdict, in the documented order."""

from __future__ import annotations

import json

import msgpack

from tablehub.protocol import SUBPROTOCOLS
from tablehub.server.config import Limits
from tablehub.server.sessions.gate import Close, Gate, Refusal

MSGPACK = SUBPROTOCOLS["tablehub.v1.msgpack"]
JSON = SUBPROTOCOLS["tablehub.v1.json"]


def test_a_frame_of_the_wrong_kind_or_size_or_not_decodable_closes() -> None:
    gate = Gate(MSGPACK, Limits(max_frame_bytes=100))
    assert gate.check("{}", True) == Close(
        1003, "text frame on the tablehub.v1.msgpack subprotocol"
    )
    verdict = gate.check(b"\x00" * 101, True)
    assert isinstance(verdict, Close) and verdict.code == 1009
    verdict = gate.check(b"\xc1", True)
    assert isinstance(verdict, Close) and verdict.code == 1007


def test_a_frame_too_deep_is_refused_as_bad_message_even_before_hello() -> None:
    deep: object = 1
    for _ in range(40):
        deep = [deep]
    verdict = Gate(JSON, Limits()).check(json.dumps(deep), hello_done=False)
    assert isinstance(verdict, Refusal) and verdict.code == "bad_message"


def test_a_lone_value_before_hello_is_answered_hello_required() -> None:
    for lone in (85, -20, 0, True, None, "x"):
        verdict = Gate(MSGPACK, Limits()).check(msgpack.packb(lone), False)
        assert isinstance(verdict, Refusal) and verdict.code == "hello_required", lone
    verdict = Gate(JSON, Limits()).check("0", False)
    assert isinstance(verdict, Refusal) and verdict.code == "hello_required"


def test_hello_comes_first() -> None:
    verdict = Gate(MSGPACK, Limits()).check(msgpack.packb({"t": "ping", "id": 7}), False)
    assert verdict == Refusal(7, "hello_required", "the first message must be hello")
    hello = {"t": "hello", "id": 1, "v": 1, "name": "ann"}
    assert Gate(MSGPACK, Limits()).check(msgpack.packb(hello), False) == hello


def test_a_message_that_breaks_its_schema_is_refused_with_its_id() -> None:
    verdict = Gate(JSON, Limits()).check(json.dumps({"t": "join", "id": 3}), True)
    assert isinstance(verdict, Refusal)
    assert (verdict.request_id, verdict.code) == (3, "bad_message")


def test_past_the_burst_messages_are_rate_limited() -> None:
    gate = Gate(JSON, Limits(messages_per_second=0.001, burst=2))
    frames = [json.dumps({"t": "ping", "id": i}) for i in range(3)]
    verdicts = [gate.check(frame, True) for frame in frames]
    assert verdicts[:2] == [{"t": "ping", "id": 0}, {"t": "ping", "id": 1}]
    assert verdicts[2] == Refusal(2, "rate_limited", "too many messages; slow down")
