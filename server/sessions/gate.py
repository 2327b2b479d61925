"""The inbound gate: one frame in, one verdict out -- a valid message for the dispatch
table, a refusal to answer with ``error``, or a close (protocol/README.md "What the
server accepts", "Close codes", "Limits").

Plain code, no I/O: the session asks :meth:`Gate.check` about each frame.  The order is
the documented one: the frame's kind (text or binary for the subprotocol) and size, then
decoding -- a frame nested too deep for the decoder is refused before anything else is
looked at -- then ``hello`` first, the message's schema, and the rate limit.  Errors
become values here, never exceptions kept past this function: an exception held by a
caller would tie the frame's bytes into a reference cycle (docs/design.md "A heap the
collector leaves alone").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablehub.protocol import Codec, DecodeError, ProtocolError, validate_inbound
from tablehub.protocol.codec import Message, request_id_of, value_problem
from tablehub.server.config import Limits
from tablehub.server.sessions.limits import TokenBucket


@dataclass(frozen=True, slots=True)
class Refusal:
    """Answer the frame with ``error`` (the connection stays)."""

    request_id: Any
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Close:
    """Close the connection with a WebSocket close code."""

    code: int
    reason: str


Verdict = Message | Refusal | Close


class Gate:
    __slots__ = ("_bucket", "codec", "limits")

    def __init__(self, codec: Codec, limits: Limits) -> None:
        self.codec = codec
        self.limits = limits
        self._bucket = TokenBucket(limits.messages_per_second, limits.burst)

    def check(self, frame: bytes | str, hello_done: bool) -> Verdict:
        """The verdict on one inbound frame (``hello_done``: the session said hello)."""
        if self.codec.binary != isinstance(frame, bytes):
            return Close(
                1003,
                f"{'text' if self.codec.binary else 'binary'} frame "
                f"on the {self.codec.name} subprotocol",
            )
        if len(frame) > self.limits.max_frame_bytes:
            return Close(1009, "frame too large")
        refused: Refusal | None = None
        raw: Any = None
        try:
            raw = self.codec.decode(frame)
        except DecodeError as err:
            return Close(1007, str(err))
        except ProtocolError as err:  # too deep for the decoder: nothing of it is readable
            refused = Refusal(None, err.code, err.message)
        if refused is not None:
            return refused
        if not hello_done:
            # checked on arrival, before any other work (a lone value is no message:
            # hello_required below)
            problem = value_problem(raw) if isinstance(raw, dict | list) else None
            if problem is not None:
                return Refusal(request_id_of(raw), "bad_message", problem)
            if not (isinstance(raw, dict) and raw.get("t") == "hello"):
                return Refusal(
                    request_id_of(raw), "hello_required", "the first message must be hello"
                )
        try:
            msg = validate_inbound(raw)
        except ProtocolError as err:
            refused = Refusal(err.request_id, err.code, err.message)
        if refused is not None:
            return refused
        if not self._bucket.take():
            return Refusal(msg["id"], "rate_limited", "too many messages; slow down")
        return msg
