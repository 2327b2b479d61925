"""Saved seat tokens: what lets ``tablehub play --table ID`` take a seat back.

The file (``$TABLEHUB_TOKENS``, else ``$XDG_CONFIG_HOME/tablehub/tokens.json``, else
``~/.config/tablehub/tokens.json``) is one JSON object keyed by ``"<url> <table>"``;
each value maps a player name to ``{"seat", "token", "saved"}``.  Keying by name is
what lets two people share one machine: ``--name bo`` never resumes (or overwrites)
the seat saved for ``ann``.  (Files written before names were keys held one
``{"seat", "token", "name", "saved"}`` per table; they are read as that name's entry.)

A token is a secret that acts for its seat, so the file is created ``0600`` in a
``0700`` directory.  Several client processes may share it: every read-modify-write
holds an exclusive ``flock`` on a sibling lock file and replaces the file atomically.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def default_path() -> Path:
    """Where tokens live unless ``--tokens`` says otherwise."""
    explicit = os.environ.get("TABLEHUB_TOKENS")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "tablehub" / "tokens.json"


@dataclass(frozen=True)
class SavedSeat:
    seat: int
    token: str
    name: str


class TokenStore:
    """Seat tokens by (server url, table id, player name), persisted in one JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    @staticmethod
    def key(url: str, table: str) -> str:
        return f"{url} {table}"

    def seats(self, url: str, table: str) -> list[SavedSeat]:
        """Every seat saved on this machine at that table, whoever's name it is under."""
        found = []
        for name, entry in _by_name(self._read().get(self.key(url, table))).items():
            try:
                found.append(SavedSeat(int(entry["seat"]), str(entry["token"]), name))
            except (KeyError, TypeError, ValueError):
                continue
        return sorted(found, key=lambda saved: saved.seat)

    def get(self, url: str, table: str, name: str) -> SavedSeat | None:
        """The seat saved for ``name`` at that table, if any."""
        return next((s for s in self.seats(url, table) if s.name == name), None)

    def save(self, url: str, table: str, seat: SavedSeat) -> None:
        """Save ``seat`` under its name (other names' seats are kept)."""
        with self._locked():
            data = self._read()
            key = self.key(url, table)
            entries = _by_name(data.get(key))
            entries[seat.name] = {"seat": seat.seat, "token": seat.token, "saved": int(time.time())}
            data[key] = entries
            self._write(data)

    def forget(self, url: str, table: str, name: str | None = None) -> None:
        """Drop ``name``'s seat at that table (every name's when ``name`` is None)."""
        with self._locked():
            data = self._read()
            key = self.key(url, table)
            entries = _by_name(data.get(key))
            if name is None or set(entries) <= {name}:
                if data.pop(key, None) is None:
                    return
            elif entries.pop(name, None) is None:
                return
            else:
                data[key] = entries
            self._write(data)

    # -- file handling -------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        fd, temp = tempfile.mkstemp(prefix=".tokens-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(temp, self.path)  # mkstemp made it 0600
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = os.open(self.path.with_name(self.path.name + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)


def _by_name(value: Any) -> dict[str, dict[str, Any]]:
    """A table's entries as name -> entry (an old single entry becomes its name's)."""
    if not isinstance(value, dict):
        return {}
    if "token" in value:  # the format before names were keys
        return {str(value.get("name", "")): value}
    return {str(name): entry for name, entry in value.items() if isinstance(entry, dict)}
