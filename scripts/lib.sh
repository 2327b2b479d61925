# Helpers shared by scripts/test*: phases with durations, installing what is missing.
# shellcheck shell=bash

PHASES=()

# phase NAME CMD...: run CMD, print "NAME: ok (12.3 s)" or stop with its failure.
phase() {
    local name=$1
    shift
    local started=$SECONDS
    local t0
    t0=$(date +%s.%N)
    echo "== $name ..." >&2
    if "$@"; then
        local took
        took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        echo "== $name: ok ($took s)" >&2
        PHASES+=("$name: $took s")
    else
        local rc=$?
        echo "== $name: FAILED (exit $rc after $((SECONDS - started)) s)" >&2
        exit "$rc"
    fi
}

summary() {
    echo "== all phases passed:" >&2
    printf '   %s\n' "${PHASES[@]}" >&2
}

# need_debs COMMAND:PACKAGE...: apt-get install the packages whose command is missing,
# saying first what and why; installs nothing that is already present.
need_debs() {
    local missing=()
    local pair
    for pair in "$@"; do
        local cmd=${pair%%:*} pkg=${pair#*:}
        if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ] && [ ! -x "/usr/bin/$cmd" ]; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "== installing with apt-get (the tests run these for real): ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
        # Debian starts nginx on port 80 after installing it; the tests run their own.
        if command -v service >/dev/null 2>&1; then service nginx stop >/dev/null 2>&1 || true; fi
    fi
}

# ensure_venv: .venv with tablehub installed editable in strict mode (the folders are
# linked into tablehub/*, which is what mypy reads) plus the test tools.
ensure_venv() {
    [ -x .venv/bin/python ] || python3 -m venv .venv
    local log
    log=$(mktemp)
    if ! .venv/bin/python -m pip install -q --disable-pip-version-check \
        --config-settings editable_mode=strict -e '.[test]' >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}
