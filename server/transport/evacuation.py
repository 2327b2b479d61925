"""A hub cut off from its store sends its players elsewhere (docs/design.md "Past one
Redis", partitions).

When this process cannot reach Redis for longer than a lease, the other hubs have
taken its tables over (their leases expired here), yet its players may still reach
it: every act they send would be answered ``unavailable`` until the link returns.
:class:`StoreWatch` probes the store; once it has been unreachable for a lease *and a
peer hub says it has the store* (its ``/healthz``) on two probes in a row, the hub is
*cut off*: every open
socket is closed with 1012 (the clients reconnect, and the balancer sends them to a
hub that has the store) and new WebSocket handshakes are refused with HTTP 503 (nginx
tries the next hub: ``proxy_next_upstream http_503``).  When the store answers again
the hub takes players again.

Asking the peers is what tells a partition from an outage: when Redis is down for
every hub there is nowhere better to go, so the hub keeps its sockets open and answers
``unavailable`` until Redis is back.  Peers are the hubs' base URLs
(``TABLEHUB_PEERS``, ``tablehub serve --peer``); a hub may list itself (it never
reports the store while it is cut off).  Without peers a hub is never cut off.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.request
from collections.abc import Awaitable, Callable, Sequence

from tablehub.server.ops.cancelling import stopping

log = logging.getLogger("tablehub.evacuation")

CLOSE_CODE = 1012  # service restart: "reconnect", and a balancer picks a live hub
CLOSE_REASON = "this server lost the game store; reconnecting you to another server"
REFUSAL = b"this server cannot reach the game store now; try another server"


class StoreWatch:
    """Is the store reachable, and for how long has it not been?"""

    def __init__(
        self,
        reachable: Callable[[], Awaitable[bool | None]],
        cut_off_after_s: float,
        peers: Sequence[str] = (),
        probe_every_s: float = 0.5,
    ) -> None:
        self._reachable = reachable
        self.cut_off_after_s = cut_off_after_s
        self.peers = list(peers)
        self.probe_every_s = probe_every_s
        self.cut_off = False
        """True from a lease's time without the store until it answers again."""
        self._down_since: float | None = None
        self._elsewhere = False
        """Whether the last probe's answer was "down here, and a peer has it"."""

    def lease_passed(self, now: float) -> bool:
        """Whether the store has been unreachable for a lease at ``now``."""
        return self._down_since is not None and now - self._down_since >= self.cut_off_after_s

    def observe(self, up: bool | None, now: float, store_elsewhere: bool = False) -> bool:
        """Take one probe's answer at ``now`` (monotonic seconds) and whether a peer
        has the store; True exactly when this answer cuts the hub off.  ``None`` is a
        probe that says nothing (it timed out while this hub was too busy to tell a
        slow store from its own queues): it neither starts nor ends an outage."""
        if up is None:
            return False
        if up:
            if self.cut_off:
                log.warning("the store answers again: taking players again")
            self._down_since, self.cut_off, self._elsewhere = None, False, False
            return False
        if self._down_since is None:
            self._down_since = now
        elsewhere_before, self._elsewhere = self._elsewhere, store_elsewhere
        # Twice in a row: a peer's word once may be a moment's (the store flapping: the
        # peer's last commits came back just before it went down again).
        if not self.cut_off and self.lease_passed(now) and store_elsewhere and elsewhere_before:
            self.cut_off = True
            log.error(
                "the store has been unreachable for %.1f s and a peer has it: "
                "sending players elsewhere",
                now - self._down_since,
            )
            return True
        return False

    async def run(self, on_cut_off: Callable[[], None]) -> None:
        """Probe until cancelled; call ``on_cut_off`` each time the hub is cut off."""
        while not stopping():
            if await self.probe():
                on_cut_off()
            await asyncio.sleep(self.probe_every_s)

    async def probe(self) -> bool:
        """One look at the store (and, past a lease without it, at the peers); True
        exactly when it cuts the hub off.

        A peer that has the store may have it because the store just came back for
        everyone (a restart, a failover): the store is probed again after the peers
        answer, so a hub is cut off only if it still cannot reach what they can."""
        up = await self._reachable()
        now = time.monotonic()
        elsewhere = False
        if up is False and not self.cut_off and self.lease_passed(now):
            elsewhere = await asyncio.to_thread(store_elsewhere, self.peers)
            if elsewhere:
                up = await self._reachable()
                now = time.monotonic()
        return self.observe(up, now, elsewhere)


def store_elsewhere(peers: Sequence[str], timeout_s: float = 1.0) -> bool:
    """Whether some peer hub's ``/healthz`` says it reaches the store (and is not cut
    off itself); unreachable peers count as no."""
    for peer in peers:
        try:
            with urllib.request.urlopen(f"{peer.rstrip('/')}/healthz", timeout=timeout_s) as got:
                health = json.load(got)
        except (OSError, ValueError):
            continue
        if health.get("store_ok") is True and health.get("cut_off") is not True:
            return True
    return False
