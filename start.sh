#!/usr/bin/env bash
# Sets patchloop up on a fresh machine and runs the main job:
#   - with PATCHLOOP_MODEL set (e.g. openai/qwen3-coder with OPENAI_BASE_URL=http://127.0.0.1:8000/v1):
#     a SWE-bench Lite batch run (PATCHLOOP_SLICE, default 0:5; PATCHLOOP_WORKERS, default 2;
#     PATCHLOOP_ENVIRONMENT, default docker) followed by its evaluation;
#   - without it: the offline demo (a recorded model fixes a bundled bug, a hidden test grades it).
set -euo pipefail
cd "$(dirname "$0")"
command -v node >/dev/null || { echo "patchloop needs Node.js 20 or newer (apt-get install nodejs npm)"; exit 2; }
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build --silent
if [ -n "${PATCHLOOP_MODEL:-}" ]; then
  out="runs/lite-$(date +%Y%m%d-%H%M%S)"
  exec ./bin/patchloop.js swebench --subset "${PATCHLOOP_SUBSET:-lite}" --split test --slice "${PATCHLOOP_SLICE:-0:5}" \
    -m "$PATCHLOOP_MODEL" -w "${PATCHLOOP_WORKERS:-2}" --environment "${PATCHLOOP_ENVIRONMENT:-docker}" \
    -c "${PATCHLOOP_CONFIG:-swebench}" -o "$out" --evaluate
fi
echo "PATCHLOOP_MODEL is not set: running the offline demo instead."
exec ./bin/patchloop.js demo
