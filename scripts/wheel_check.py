"""Check a running hub installed from the wheel: run by scripts/test_wheel with the
fresh venv's Python (only the standard library and tablehub's own dependencies).

Loads ``/``, every JS module the page imports (following imports from ui/app.js),
each game's table view module, the protocol schema index and every schema it names,
then plays one scripted 9-tower game with the wheel's own ``tablehub play --script``.
Prints one line per check; exits non-zero on the first failure.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin

IMPORT = re.compile(
    r"""(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)"""
)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as resp:
        body: bytes = resp.read()
        return body


def wait_until_up(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            get(base + "/healthz")
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise SystemExit(f"{base}: the hub did not come up in 30 s") from None
            time.sleep(0.1)


def modules(base: str, entry: str) -> set[str]:
    """Every module reachable by static or dynamic imports from ``entry``."""
    seen: set[str] = set()
    todo = [urljoin(base + "/", entry)]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        text = get(url).decode()
        for match in IMPORT.finditer(text):
            target = match.group(1) or match.group(2)
            if target.startswith("."):
                todo.append(urljoin(url, target))
    return seen


def main() -> int:
    base, label = sys.argv[1], sys.argv[2]
    wait_until_up(base)
    page = get(base + "/").decode()
    assert '<script type="module" src="ui/app.js">' in page, "index.html without ui/app.js"
    assert get(base + "/ui/style.css"), "no stylesheet"
    found = modules(base, "ui/app.js")
    index = json.loads(get(base + "/protocol/v1/index.json"))
    schemas = {meta["schema"] for meta in index["messages"].values()}
    schemas.add(index["table_view"])
    for game in index["games"].values():
        schemas.update(v.split("#")[0] for v in game.values() if isinstance(v, str))
    for name in sorted(schemas):
        json.loads(get(f"{base}/protocol/v1/{name}"))
    print(f"{label}: / and {len(found)} JS modules load; {len(schemas)} protocol schemas load")
    assert len(index["games"]) == 4, "every game's schemas are listed"
    ws = base.replace("http://", "ws://") + "/ws"
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "tablehub"),
            "play",
            "--url",
            ws,
            "--name",
            "wheel",
            "--game",
            "nmbr9",
            "--seats",
            "2",
            "--bots",
            "1",
            "--script",
            "--auto",
            "--brief",
            "--tokens",
            str(Path.cwd() / f"tokens-{label}.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    finished = [line for line in lines if line.get("event") == "finished"]
    if done.returncode != 0 or not finished:
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"{label}: the scripted game did not finish (exit {done.returncode})")
    print(f"{label}: a scripted 9-tower game against a bot finished ({len(lines)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
