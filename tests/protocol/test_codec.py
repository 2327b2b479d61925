"""Protocol v1 without sockets: schema set, codec round trips, fuzzed frames."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehub.protocol import (
    SUBPROTOCOLS,
    DecodeError,
    ProtocolError,
    schema_fingerprint,
    validate_inbound,
)
from tablehub.protocol.codec import V1_DIR, EncodeError, index, validate_outbound
from tablehub.protocol.viewhash import canonical_json, view_hash

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def test_every_schema_file_is_indexed_and_every_index_entry_has_a_file() -> None:
    files = {p.name for p in V1_DIR.glob("*.json")} - {"index.json"}
    indexed = {meta["schema"] for meta in index()["messages"].values()}
    assert files == indexed
    for name, meta in index()["messages"].items():
        schema = json.loads((V1_DIR / meta["schema"]).read_text())
        assert schema["properties"]["t"] == {"const": name}
        assert schema["direction"] == meta["direction"]


def test_design_message_set_is_present() -> None:
    names = set(index()["messages"])
    assert {"hello", "list_games", "list_tables", "create_table", "join", "add_bot"} <= names
    assert {"spectate", "act", "legal", "resync", "leave", "ping"} <= names
    assert {"ok", "error", "snapshot", "patch", "event", "presence", "table_closed"} <= names


def test_fingerprint_is_stable_and_short() -> None:
    assert schema_fingerprint() == schema_fingerprint()
    assert len(schema_fingerprint()) == 16
    int(schema_fingerprint(), 16)


@pytest.mark.parametrize("name", sorted(SUBPROTOCOLS))
@given(msg=st.dictionaries(st.text(max_size=5), json_values, max_size=5))
@settings(max_examples=60, deadline=None)
def test_codec_round_trip(name: str, msg: dict[str, Any]) -> None:
    codec = SUBPROTOCOLS[name]
    assert codec.decode(codec.encode(msg)) == msg


@given(msgs=st.lists(st.dictionaries(st.text(max_size=5), json_values, max_size=5), max_size=6))
@settings(max_examples=60, deadline=None)
def test_the_kept_packer_writes_what_packb_writes_even_after_a_failure(
    msgs: list[dict[str, Any]],
) -> None:
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    for msg in msgs:
        with pytest.raises(EncodeError):  # half packed, then refused: nothing left behind
            codec.encode({**msg, "t": "ok", "zz": [1, 2**70]})
        assert codec.encode(msg) == msgpack.packb(msg, use_bin_type=True)


@given(frame=st.binary(max_size=64))
@settings(max_examples=300, deadline=None)
def test_fuzzed_binary_frames_decode_or_raise_decode_error(frame: bytes) -> None:
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    try:
        msg = codec.decode(frame)
    except DecodeError:
        return
    try:
        validate_inbound(msg)
    except ProtocolError as err:
        assert err.code in index()["error_codes"]


@given(text=st.text(max_size=64))
@settings(max_examples=200, deadline=None)
def test_fuzzed_text_frames_decode_or_raise_decode_error(text: str) -> None:
    try:
        msg = SUBPROTOCOLS["tablehub.v1.json"].decode(text)
    except DecodeError:
        return
    try:
        validate_inbound(msg)
    except ProtocolError as err:
        assert err.code in index()["error_codes"]


def test_inbound_validation_names_the_field() -> None:
    with pytest.raises(ProtocolError) as info:
        validate_inbound({"t": "join", "id": 3, "table": 17})
    assert info.value.code == "bad_message"
    assert info.value.request_id == 3
    assert "table" in info.value.message
    assert validate_inbound({"t": "join", "id": 3, "table": "abc"})["table"] == "abc"


def test_outbound_messages_match_their_schemas() -> None:
    validate_outbound(
        {"t": "patch", "table": "t1", "from": 1, "to": 2, "ops": [], "hash": "0" * 16}
    )
    with pytest.raises(Exception, match="hash"):
        validate_outbound({"t": "patch", "table": "t1", "from": 1, "to": 2, "ops": []})


ascii_keys = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=6)
views = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(ascii_keys, children, max_size=4)
    ),
    max_leaves=20,
)


@given(view=st.dictionaries(ascii_keys, views, max_size=6))
@settings(max_examples=200, deadline=None)
def test_view_hash_is_rfc8785(view: dict[str, Any]) -> None:
    """Views have ASCII keys (protocol rule), so code-point and UTF-16 order agree;
    string values may hold any character."""
    assert canonical_json(view) == rfc8785.dumps(view)


@given(view=st.dictionaries(ascii_keys, views, max_size=6))
@settings(max_examples=300, deadline=None)
def test_canonical_json_is_the_standard_librarys_bytes(view: dict[str, Any]) -> None:
    """The fast encoder writes exactly the protocol's Python definition."""
    plain = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(view) == plain.encode()


def test_canonical_json_takes_integers_beyond_64_bits() -> None:
    view = {"n": 2**70, "m": [-(2**65)]}
    assert canonical_json(view) == b'{"m":[-36893488147419103232],"n":1180591620717411303424}'


def test_view_hash_known_value() -> None:
    # sha256('{"a":[1,true,null],"b":"é"}') computed independently.
    assert view_hash({"b": "é", "a": [1, True, None]}) == "6eab153701ef60c9"
