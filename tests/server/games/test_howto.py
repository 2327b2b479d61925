"""Every game tells players how to play (list_games ``howto``, shown by the browser's
"How to play" panel and the terminal's ``help``): sections with a title and paragraphs,
in plain words -- no action fields, JSON or snake_case."""

from __future__ import annotations

import re

import pytest

from tablehub.server.games import all_games
from tablehub.server.games.base import Game


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.id)
def test_each_game_has_a_how_to_play_in_plain_words(game: Game) -> None:
    assert len(game.howto) >= 3, f"{game.id} has no how-to sections"
    described = game.describe()["howto"]
    assert [s["title"] for s in described] == [s.title for s in game.howto]
    for section in game.howto:
        assert section.title and section.paragraphs
        for paragraph in section.paragraphs:
            assert paragraph == paragraph.strip() and "\n" not in paragraph
            assert not re.search(r"[{}\[\]_]|\bNone\b|\bnull\b", paragraph), paragraph
