"""How to play (server/games/termite/howto.py): what it tells players is what the engine
does.  Each number the text states is read back from the text and compared with a real
set-up (1-4 players) or the engine's own rules functions, so a change to either side
fails here; docs/games/termite.md carries the same text word for word."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tablehub.server.games.base import HowTo
from tablehub.server.games.termite import GAME, data, gather, scoring

REPO = Path(__file__).resolve().parents[4]
DOC = REPO / "docs" / "games" / "termite.md"
START = "<!-- how to play: the text of server/games/termite/howto.py, checked by a test -->"
END = "<!-- end of how to play -->"


def _text() -> str:
    return "\n".join(p for section in GAME.howto for p in (section.title, *section.paragraphs))


def _find(pattern: str) -> tuple[str, ...]:
    match = re.search(pattern, _text())
    assert match is not None, f"the how-to no longer says {pattern!r}"
    return match.groups()


def _numbers(listed: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", listed)]


def markdown(sections: tuple[HowTo, ...]) -> str:
    """The sections as the doc carries them: a heading each, one paragraph a line."""
    parts = []
    for section in sections:
        parts.append(f"### {section.title}")
        parts.extend(section.paragraphs)
    return "\n\n".join(parts)


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_setup_numbers_match_a_real_setup(seats: int) -> None:
    state = GAME.setup({}, seats, 11)
    stake_cubes, cards_under = map(
        int, _find(r"Each stake starts with (\d+) cubes of its colour, and (\d+) stake cards")
    )
    assert all(stake["cubes"] == stake_cubes for stake in state["stakes"])
    assert all(len(stake["cards"]) == cards_under for stake in state["stakes"])
    total, shown = _find(r"The (\d+) stake cards show ([\d, and]+) cubes of each colour")
    per_colour: dict[str, list[int]] = {}
    for stake in state["stakes"]:
        for card in stake["cards"].values():
            per_colour.setdefault(card["colour"], []).append(card["cubes"])
    assert sum(map(len, per_colour.values())) == int(total)
    assert all(sorted(cubes) == _numbers(shown) for cubes in per_colour.values())
    assert len(per_colour) == len(_find(r"one for each stake: ([^.]+)\.")[0].split(", "))

    workers, soldiers = map(int, _find(r"starts with (\d+) worker dice and (\d+) soldier die"))
    for player in state["players"]:
        kinds = Counter(d["kind"] for d in player["dice"])
        assert (kinds["worker"], kinds["soldier"]) == (workers, soldiers)
    rooms, walls_w, walls_h = (
        int(_find(r"You also have (\d+) rooms")[0]),
        *map(int, _find(r"a wall (\d+) squares wide and (\d+) high")),
    )
    player = state["players"][0]
    assert len(player["rooms"]) == rooms
    assert (len(player["wall"][0]), len(player["wall"])) == (walls_w, walls_h)
    view = GAME.view(state, 0)
    assert view["players"][0]["tunnels_left"] == int(_find(r"(\d+) tunnels to dig")[0])

    bp_total, face_up = map(int, _find(r"Of the (\d+) blueprint cards, (\d+) lie face up"))
    bps = state["blueprints"]
    assert (len(bps["deck"]) + len(bps["face_up"]), len(bps["face_up"])) == (bp_total, face_up)
    decks = {int(p): int(n) for n, p in re.findall(r"(\d+) cards with (\d) players?", _text())}
    assert decks[seats] == len(state["queen_deck"])
    assert state["eggs"] == int(_find(r"The egg supply holds (\d+) eggs")[0])
    goals_small = int(_find(r"\((\d+) goal cards in a game of 1 or 2 players\)")[0])
    assert len(state["goals"]) == (goals_small if seats <= 2 else seats)

    dice_per_set, sets_text = _find(r"sets of (\d+) dice \(([^)]*)\)")
    sets = {int(p): int(n) for n, p in re.findall(r"(\d+) sets? with (\d) players?", sets_text)}
    assert len(state["neutral"]) == sets.get(seats, 0) * int(dice_per_set)


def test_supply_is_what_hatching_can_take() -> None:
    workers, soldiers = map(int, _find(r"(\d+) more workers and (\d+) more soldiers"))
    state = GAME.setup({}, 2, 3)
    taken = Counter[str]()
    for kind in ("worker", "soldier"):
        while gather.gain_die(state, 0, kind):
            taken[kind] += 1
    assert (taken["worker"], taken["soldier"]) == (workers, soldiers)


def test_points_and_ending_match_the_engine() -> None:
    shapes = dict(re.findall(r"\b([OILJTSZ]) (\d)\b", _find(r"scores by its shape: ([^.]+)\.")[0]))
    assert set(shapes) == set(data.SHAPES)
    for shape, points in shapes.items():
        player = {"built": [f"{data.COLOURS[0]}-{shape}"]}
        assert scoring.blueprint_points(player) == int(points)
    rows = _numbers(_find(r"whether ([\d or]+) completed wall rows end it")[0])
    assert tuple(rows) == GAME.options["rows_to_end"].choices
    state = GAME.setup({"rows_to_end": rows[0]}, 2, 5)
    state["queen_deck"] = []
    assert scoring.end_reason(state) == "the queen deck is exhausted"


def test_plain_words_for_players() -> None:
    """No action fields, slot codes, JSON or snake_case in what players read."""
    text = _text()
    assert not re.search(r"\b[ACEG][1-6]\b|\bD[1-6][tc]\b|\bR\d\b|[{}\[\]_]|None|null", text)
    assert [section.title for section in GAME.howto] == [
        "The aim",
        "Set-up",
        "A day",
        "The night",
        "Scoring",
        "How it ends",
    ]


def test_list_games_carries_it() -> None:
    described = GAME.describe()["howto"]
    assert described == [{"title": s.title, "paragraphs": list(s.paragraphs)} for s in GAME.howto]


def test_the_rules_page_carries_the_same_text() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert START in doc and END in doc, "docs/games/termite.md lost its how-to markers"
    block = doc.split(START, 1)[1].split(END, 1)[0].strip()
    assert block == markdown(GAME.howto), (
        "docs/games/termite.md 'How to play' differs from server/games/termite/howto.py: "
        "paste markdown(GAME.howto) from this test between the markers"
    )
