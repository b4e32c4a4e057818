#!/usr/bin/env bash
# Sets patchloop up on a fresh machine and runs the main job:
#   - installs the dependencies, builds, and puts the `patchloop` command on PATH (see link_cli);
#   - with PATCHLOOP_MODEL set (e.g. openai/qwen3-coder with OPENAI_BASE_URL=http://127.0.0.1:8000/v1):
#     a SWE-bench Lite batch run (PATCHLOOP_SLICE, default 0:5; PATCHLOOP_WORKERS, default 2;
#     PATCHLOOP_ENVIRONMENT, default docker) followed by its evaluation;
#   - without it: the offline demo (a recorded model fixes a bundled bug, a hidden test grades it).
# `./start.sh link` only puts the command on PATH (after moving the checkout, for instance).
set -euo pipefail
cd "$(dirname "$0")"
here="$(pwd -P)"

# A link named `patchloop` to bin/patchloop.js in the first of these folders that is on PATH and
# writable: $PATCHLOOP_BIN_DIR, ~/.local/bin, /usr/local/bin. A `patchloop` there that is not a
# link (another install) is left alone. When none fits, it says what to type instead.
link_cli() {
  local target="$here/bin/patchloop.js" dir
  for dir in "${PATCHLOOP_BIN_DIR:-}" "$HOME/.local/bin" /usr/local/bin; do
    [ -n "$dir" ] || continue
    case ":$PATH:" in *":$dir:"*) ;; *) continue ;; esac
    [ -d "$dir" ] && [ -w "$dir" ] || continue
    if [ -e "$dir/patchloop" ] && [ ! -L "$dir/patchloop" ]; then
      echo "patchloop: $dir/patchloop exists and is not a link made here; leaving it (this checkout's command: $target)"
      return 0
    fi
    ln -sfn "$target" "$dir/patchloop"
    echo "patchloop: the command is $dir/patchloop -> $target"
    return 0
  done
  echo "patchloop: no folder on PATH is writable here, so the command is not linked. Run it as $target," \
    "or link it yourself: mkdir -p ~/.local/bin && ln -s $target ~/.local/bin/patchloop (with ~/.local/bin on PATH)"
}

if [ "${1:-}" = "link" ]; then
  link_cli
  exit 0
fi

command -v node >/dev/null || { echo "patchloop needs Node.js 20 or newer (apt-get install nodejs npm)"; exit 2; }
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build --silent
link_cli
if [ -n "${PATCHLOOP_MODEL:-}" ]; then
  out="runs/lite-$(date +%Y%m%d-%H%M%S)"
  exec ./bin/patchloop.js swebench --subset "${PATCHLOOP_SUBSET:-lite}" --split test --slice "${PATCHLOOP_SLICE:-0:5}" \
    -m "$PATCHLOOP_MODEL" -w "${PATCHLOOP_WORKERS:-2}" --environment "${PATCHLOOP_ENVIRONMENT:-docker}" \
    -c "${PATCHLOOP_CONFIG:-swebench}" -o "$out" --evaluate
fi
echo "PATCHLOOP_MODEL is not set: running the offline demo instead."
exec ./bin/patchloop.js demo
