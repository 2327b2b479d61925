"""The load generator: simulated players on real WebSockets, and the performance report.

Run ``tablehub loadtest --help`` (or ``python -m loadtest --help``).  Modules: ``wire``
(lean WebSocket client on websockets' sans-I/O core), ``client`` (protocol-v1 client:
requests, mirrors, acts, reconnects), ``mirror``/``patching`` (patch application and
hash checks), ``bots``/``players`` (who plays what), ``scenarios``/``worker``/``runner``
(who runs where and when), ``procstat`` (CPU and memory from /proc), ``analysis``/
``report``/``svgplot`` (figures, targets, report), ``baseline_server`` (the bare
websockets fan-out server), ``targets`` (spawned or external servers).
"""
