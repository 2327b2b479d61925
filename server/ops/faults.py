"""Faults that are not server bugs, logged without tracebacks and without flooding:

* client garbage: frames that break the protocol are counted per kind
  (``tablehub_client_faults_total``) and logged as one warning line per kind a minute
  (a client could otherwise fill the log);
* the store out of reach (Redis down, restarting, failing over): counted per place
  that met it (``tablehub_store_unreachable_total``), one warning line per
  ``STORE_QUIET_S`` -- an outage is one event, not a traceback per request."""

from __future__ import annotations

import logging
import time

from tablehub.server import metrics

log = logging.getLogger("tablehub.clients")
log_store = logging.getLogger("tablehub.store")

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


STORE_QUIET_S = 30.0
_store_logged = -STORE_QUIET_S


def store_unreachable(where: str, err: BaseException) -> None:
    """The store could not be reached by ``where`` (a few words, e.g. "the deadline
    sweep"); its callers answer ``unavailable`` meanwhile."""
    global _store_logged
    metrics.STORE_UNREACHABLE.labels(where).inc()
    now = time.monotonic()
    if now - _store_logged >= STORE_QUIET_S:
        _store_logged = now
        log_store.warning(
            "the game store cannot be reached (%s: %s); requests are answered "
            "'unavailable' until it is back; more of these in the next %d s are only "
            "counted (tablehub_store_unreachable_total)",
            where,
            err,
            STORE_QUIET_S,
        )
