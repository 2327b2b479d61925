"""tablehub wire protocol: schemas (``v1/*.json``), codec and the error vocabulary.

Only this package touches msgpack/JSON framing.  The server, the Python CLI client and
the JS client all read the same schema files in ``protocol/v1/``.
"""

from tablehub.protocol.codec import (
    SUBPROTOCOLS,
    Codec,
    DecodeError,
    Frames,
    ProtocolError,
    codec_for,
    schema_fingerprint,
    validate_inbound,
)

__all__ = [
    "SUBPROTOCOLS",
    "Codec",
    "DecodeError",
    "Frames",
    "ProtocolError",
    "codec_for",
    "schema_fingerprint",
    "validate_inbound",
]
