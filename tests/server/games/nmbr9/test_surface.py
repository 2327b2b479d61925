"""The strong bot's layouts grown tile by tile (``Surface.with_tile``: masks changed in
place of rebuilt, legal levels inherited, memos shared by the layouts of one search)
are the layouts built at once from their tiles (``Surface.of``)."""

from __future__ import annotations

from tablehub.server.games import get_game
from tablehub.server.games.base import Game
from tablehub.server.games.nmbr9.candidates import shortlist
from tablehub.server.games.nmbr9.rules import Tile, legal_placements, make_tile
from tablehub.server.games.nmbr9.shapes import DIGITS
from tablehub.server.games.nmbr9.surface import Surface


def _game() -> Game:
    game = get_game("nmbr9")
    assert game is not None
    return game


def _cells_by_level(surface: Surface) -> list[set[tuple[int, int]]]:
    return [set(surface.frame.cells(mask)) for mask in surface.layers]


def _same(grown: Surface, built: Surface, where: object) -> None:
    assert _cells_by_level(grown) == _cells_by_level(built), where
    assert grown.reaches() == built.reaches(), where
    assert grown.shape_faults() == built.shape_faults(), where
    for digit in DIGITS:
        assert shortlist(grown, digit, 3) == shortlist(built, digit, 3), (where, digit)


def _placed(tiles: list[Tile], digit: int, placement: tuple[int, int, int, int]) -> list[Tile]:
    level, rot, x, y = placement
    return [*tiles, make_tile(digit, x, y, rot, level)]


def test_a_layout_grown_tile_by_tile_is_the_layout_built_from_its_tiles() -> None:
    game = _game()
    for seed, level in ((430, "strong"), (431, "easy")):
        state = game.setup({}, 1, seed)
        while not state["finished"]:
            tiles = state["players"][0]["tiles"]
            root = Surface.of(tiles)
            for digit in DIGITS:
                for first in shortlist(root, digit, 2):
                    child = root.with_tile(digit, first)
                    after = _placed(tiles, digit, first)
                    _same(child, Surface.of(after), (seed, len(tiles), digit, first))
                    reply_digit = (digit + len(tiles)) % 10
                    for reply in shortlist(child, reply_digit, 1):
                        grandchild = child.with_tile(reply_digit, reply)
                        built = Surface.of(_placed(after, reply_digit, reply))
                        _same(grandchild, built, (seed, len(tiles), digit, first, reply))
            state, _ = game.apply(state, 0, game.bot_move(state, 0, level))


def test_a_tile_far_out_moves_the_layout_to_a_new_frame() -> None:
    """A chain of tiles reaching past the first frame's margin gives the same layout
    as building it at once (``with_tile`` chooses a new frame)."""
    tiles: list[Tile] = [make_tile(1, 0, 0, 1, 0)]  # a 1 lying flat: 4 cells along x
    surface = Surface.of(tiles)
    first_frame = surface.frame
    for step in range(1, 8):
        placement = (0, 1, -4 * step, 0)  # the next 1, end to end to the left
        surface = surface.with_tile(1, placement)
        tiles = _placed(tiles, 1, placement)
        _same(surface, Surface.of(tiles), step)
    assert surface.frame is not first_frame


def test_two_orders_of_the_same_tiles_give_the_same_layout() -> None:
    """Two tiles laid in either order, in one frame: the second order meets what the
    first left in the frame's memos (the best placements of a level, a footprint's
    ground placements) and still gives the layout built at once."""
    game = _game()
    state = game.setup({}, 1, 432)
    pairs = 0
    while not state["finished"]:
        tiles = state["players"][0]["tiles"]
        root = Surface.of(tiles)
        for first_digit, second_digit in ((9, 6), (2, 0), (8, 8)):
            for first in shortlist(root, first_digit, 2):
                child = root.with_tile(first_digit, first)
                for second in shortlist(child, second_digit, 2):
                    built = Surface.of(
                        _placed(_placed(tiles, first_digit, first), second_digit, second)
                    )
                    _same(child.with_tile(second_digit, second), built, (len(tiles), first, second))
                    if second not in legal_placements(tiles, second_digit):
                        continue
                    other = root.with_tile(second_digit, second)
                    if first not in legal_placements(
                        _placed(tiles, second_digit, second), first_digit
                    ):
                        continue
                    _same(other.with_tile(first_digit, first), built, (len(tiles), second, first))
                    pairs += 1
        state, _ = game.apply(state, 0, game.bot_move(state, 0, "strong"))
    assert pairs > 100
