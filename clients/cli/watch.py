"""``tablehub watch TABLE``: spectate a table live until its game is over.

The screen is redrawn on every change (the same screen as ``play``, without a
seat; the compact one in a small window); ``--json`` prints the JSON lines of
``play --script`` instead (``presence``, ``events``, ``view``, ``finished``).
Exits 0 once the result is shown (at once for a finished table), or on Ctrl-C (130).
"""

from __future__ import annotations

from typing import TextIO

from tablehub.clients.cli.errors import EXIT_OK
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.link import game_names, spectate
from tablehub.clients.cli.screen import compose
from tablehub.clients.cli.script import change_events, finished_event, json_line
from tablehub.clients.cli.terminal import Terminal
from tablehub.clients.cli.turns import now_ms


async def run_watch(
    url: str,
    table: str,
    out: TextIO,
    name: str = "spectator",
    json_lines: bool = False,
    tty: bool | None = None,
    full_views: bool = True,
) -> int:
    link = await spectate(url, name, table)
    terminal = Terminal(out, tty)
    try:
        names = {} if json_lines else await game_names(link.conn)
        text: GameText | None = None
        while True:
            deadline = link.mirror.view.get("deadline")
            ticking = terminal.tty and isinstance(deadline, int) and not json_lines
            change = await link.next_change(1.0 if ticking else None)
            if change is None:
                if isinstance(deadline, int):
                    terminal.tick(deadline, now_ms())
                continue
            view = change.mirror.view
            if json_lines:
                for event in change_events(change, table, None, full_views):
                    out.write(json_line(event) + "\n")
                out.flush()
            else:
                game = str(view.get("game", ""))
                if text is None or text.game_id != game:
                    text = GameText(game)
                screens = [
                    compose(
                        view,
                        change.mirror.presence,
                        seat=None,
                        text=text,
                        game_name=names.get(game, game),
                        version=change.mirror.version,
                        now_ms=now_ms(),
                        compact=compact,
                    )
                    for compact in (False, True)
                ]
                screen = screens[0] if terminal.fits(screens[0], []) else screens[1]
                prompt = "" if view.get("status") == "finished" else "(watching — Ctrl-C to stop)"
                terminal.show(screen, [], prompt)
            if view.get("status") == "finished":
                if json_lines:
                    out.write(json_line(finished_event(link)) + "\n")
                    out.flush()
                else:
                    terminal.leave()
                    if terminal.tty:  # the final screen, kept in the scrollback
                        terminal.say("\n".join(screens[0].lines))
                    terminal.say(f"\nGame over at table {table}.")
                return EXIT_OK
    finally:
        terminal.leave()
        await link.close()
