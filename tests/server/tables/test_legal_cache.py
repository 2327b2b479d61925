"""The legal replies a table keeps for its version (tables/legal_cache.py): a second ask
at a version gets the same reply without the game computing it again, a new version
gets a new one, and the ``ok`` frame written from a kept reply is byte for byte what
the codec writes for the reply as a plain message."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tablehub.protocol.codec import SUBPROTOCOLS, Codec
from tablehub.protocol.legal import COMPACT, GRID, LAYERED, PLAIN
from tablehub.server.tables.core import Act, Legal, handle
from tablehub.server.tables.legal_cache import LegalCache, LegalReply, ok_frame
from tests.server.tables.test_core import NOW, committed, seated

CODECS = list(SUBPROTOCOLS.values())


@pytest.mark.parametrize("codec", CODECS, ids=lambda codec: codec.name)
@pytest.mark.parametrize("request_id", [7, "a-string-id", 2**40, "ünïcode"])
def test_a_kept_reply_is_written_exactly_as_the_codec_writes_it(
    codec: Codec, request_id: Any
) -> None:
    table = seated("nmbr9")
    reply = LegalCache().decide(table, Legal(0), NOW).reply
    assert isinstance(reply, LegalReply) and len(reply["actions"]) == 4
    expected = codec.encode({"t": "ok", "id": request_id, **reply})
    assert ok_frame(reply, codec, request_id) == expected, "the first time, encoded whole"
    assert ok_frame(reply, codec, request_id) == expected, "the second time, its body kept"
    assert ok_frame(reply, codec, request_id) == expected, "the third time, from its body"
    later = reply.at(reply["version"] + 3)
    assert ok_frame(later, codec, 1) == codec.encode({"t": "ok", "id": 1, **later})
    staged = LegalCache().decide(table, Legal(0, {"type": "place"}), NOW).reply
    assert staged is not None and staged["field"] == "x"
    assert ok_frame(staged, codec, request_id) == codec.encode(
        {"t": "ok", "id": request_id, **staged}
    )


@pytest.mark.parametrize("codec", CODECS, ids=lambda codec: codec.name)
def test_a_plain_reply_from_another_process_is_written_as_it_is(codec: Codec) -> None:
    plain = {"actions": [{"type": "place", "x": 0, "y": 0, "rot": 0}], "version": 3}
    assert ok_frame(plain, codec, 9) == codec.encode({"t": "ok", "id": 9, **plain})


def test_a_second_ask_at_a_version_is_the_reply_given_before() -> None:
    cache = LegalCache()
    table = seated("nmbr9")
    first = cache.decide(table, Legal(0), NOW).reply
    assert first == handle(table, Legal(0), NOW).reply
    assert cache.decide(table, Legal(0), NOW).reply is first
    other_seat = cache.decide(table, Legal(1), NOW).reply
    assert other_seat is not first and other_seat == handle(table, Legal(1), NOW).reply
    staged = cache.decide(table, Legal(0, {}), NOW).reply
    assert staged is not None and staged["field"] == "type"
    assert cache.decide(table, Legal(0, {}), NOW).reply is staged


def test_a_new_version_is_asked_again() -> None:
    cache = LegalCache()
    table = seated("nmbr9")
    before = cache.decide(table, Legal(1), NOW).reply
    legal = handle(table, Legal(0), NOW).reply
    assert legal is not None
    after = committed(handle(table, Act(0, legal["actions"][0]), NOW))
    reply = cache.decide(after, Legal(1), NOW).reply
    assert reply is not before and reply == handle(after, Legal(1), NOW).reply
    assert reply is not None and reply["version"] == table.record.version + 1


@pytest.mark.parametrize(
    ("form", "field"),
    [(PLAIN, "actions"), (COMPACT, "groups"), (GRID, "grids"), (LAYERED, "grids")],
)
def test_a_seat_whose_basis_is_unchanged_gets_its_reply_again_at_a_new_version(
    form: str, field: str
) -> None:
    cache = LegalCache()
    table = seated("nmbr9", 3)
    asked = cache.decide(table, Legal(1, form=form), NOW).reply
    assert isinstance(asked, LegalReply)
    for seat in (0, 2):  # the others place: seat 1 still holds the same card and layout
        legal = handle(table, Legal(seat), NOW).reply
        assert legal is not None
        table = committed(handle(table, Act(seat, legal["actions"][-1]), NOW))
        again = cache.decide(table, Legal(1, form=form), NOW).reply
        assert again == handle(table, Legal(1, form=form), NOW).reply
        assert again is not None and again["version"] == table.record.version
        assert again[field] is asked[field], "kept, not computed again"
        for codec in CODECS:
            assert ok_frame(again, codec, 5) == codec.encode({"t": "ok", "id": 5, **again})
    legal = handle(table, Legal(1), NOW).reply
    assert legal is not None
    table = committed(handle(table, Act(1, legal["actions"][0]), NOW))  # a new round
    after = cache.decide(table, Legal(1, form=form), NOW).reply
    assert after == handle(table, Legal(1, form=form), NOW).reply
    assert after is not None and after[field] is not asked[field]


@pytest.mark.parametrize(
    ("form", "field"),
    [(PLAIN, "actions"), (COMPACT, "groups"), (GRID, "grids"), (LAYERED, "grids")],
)
def test_a_seat_that_acted_has_nothing_kept(form: str, field: str) -> None:
    cache = LegalCache()
    table = seated("nmbr9", 2)
    asked = cache.decide(table, Legal(1, form=form), NOW).reply
    assert asked is not None
    cache.forget(1)
    legal = handle(table, Legal(0), NOW).reply
    assert legal is not None
    table = committed(handle(table, Act(0, legal["actions"][0]), NOW))
    again = cache.decide(table, Legal(1, form=form), NOW).reply
    assert again == handle(table, Legal(1, form=form), NOW).reply
    assert again is not None and again[field] is not asked[field]


def test_partials_that_differ_only_in_true_and_1_are_kept_apart() -> None:
    cache = LegalCache()
    table = seated("nmbr9")
    as_int = cache.decide(table, Legal(0, {"type": "place", "rot": 1}), NOW).reply
    as_bool = cache.decide(table, Legal(0, {"type": "place", "rot": True}), NOW).reply
    assert as_int == handle(table, Legal(0, {"type": "place", "rot": 1}), NOW).reply
    assert as_bool == handle(table, Legal(0, {"type": "place", "rot": True}), NOW).reply
    assert as_int != as_bool


def test_a_refusal_is_not_kept() -> None:
    cache = LegalCache()
    table = seated("nmbr9")
    refused = cache.decide(table, Legal(5), NOW)
    assert refused.reply is None and refused.error is not None
    assert refused.error.code == "bad_message"
    assert cache.decide(table, Legal(5), NOW).error is not None


def test_a_partial_that_does_not_pack_is_answered_not_kept() -> None:
    table = seated("nmbr9")
    partial = {"type": "place", "x": 2**70}
    with pytest.raises(OverflowError):
        msgpack.packb(partial)
    reply = LegalCache().decide(table, Legal(0, partial), NOW).reply
    assert reply == handle(table, Legal(0, partial), NOW).reply
