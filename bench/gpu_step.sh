#!/usr/bin/env bash
# One real SPADE training step with vLLM on a GPU machine, timed; prints the step's metrics line.
# Usage (repository root, on a machine with a CUDA GPU): bash bench/gpu_step.sh [colocate|server]
# It installs the vllm extra into .venv first (a few minutes the first time), then runs
# `spade train --steps 1 --vllm MODE` on the default model with a small but real configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-colocate}"
export HF_HUB_OFFLINE=1 TRL_EXPERIMENTAL_SILENCE=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
[[ -x .venv/bin/spade ]] || bash scripts/install.sh
.venv/bin/python -c "import vllm" 2>/dev/null || .venv/bin/python -m pip install -q -e ".[vllm]"
RUN_DIR="${RUN_DIR:-runs/gpu-step-$(date +%s)}"
CONFIG=$(mktemp --suffix=.json)
cat > "$CONFIG" <<'JSON'
{"designs_per_step": 2, "episodes_per_condition": 4, "agent_max_turns": 6, "designer_max_tokens": 768, "agent_max_tokens": 64}
JSON
start=$(date +%s.%N)
.venv/bin/spade train --config "$CONFIG" --steps 1 --run-dir "$RUN_DIR" --vllm "$MODE" --num-generations 4 --agent-envs 2
end=$(date +%s.%N)
echo "wall seconds: $(echo "$end - $start" | bc)"
tail -n 1 "$RUN_DIR/metrics.jsonl"
