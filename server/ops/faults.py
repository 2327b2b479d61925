"""Client garbage is not a server error: frames that break the protocol are counted
per kind (``tablehub_client_faults_total``) and logged as one warning line per kind a
minute, never with a traceback (a client could otherwise fill the log)."""

from __future__ import annotations

import logging
import time

from tablehub.server import metrics

log = logging.getLogger("tablehub.clients")

LOG_EVERY_S = 60.0
_logged: dict[str, float] = {}


def client_fault(kind: str, detail: str) -> None:
    """A client broke the protocol (``kind``: a few words, e.g. "sent invalid UTF-8");
    its connection is being closed with the documented code."""
    metrics.CLIENT_FAULTS.labels(kind).inc()
    now = time.monotonic()
    if now - _logged.get(kind, -LOG_EVERY_S) >= LOG_EVERY_S:
        _logged[kind] = now
        log.warning(
            "a client %s (%s); more of these in the next minute are only counted "
            "(tablehub_client_faults_total)",
            kind,
            detail,
        )
