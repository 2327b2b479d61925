"""The hub: the tables this process serves, who runs each one, and the lobby.

The hub knows no rule: it reaches games through the registry only.  Its pieces, one
job each (docs/design.md "The hub"): ``directory`` (tables by id, loaded on first
use), ``ownership`` (actors, leases, forwarding to the owner), ``mirror`` (other
processes' commits and presence), ``sweeper`` (deadlines nobody runs, missed
messages), ``janitor`` (closing, unloading and forgetting idle tables), ``lobby``
(the table list and its pushes), ``creation`` (new tables) and ``tasks`` (the one
task group); ``service.Hub`` puts them together.
"""

from __future__ import annotations

from tablehub.server.hub.service import Hub

__all__ = ["Hub"]
