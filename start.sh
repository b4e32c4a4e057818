#!/usr/bin/env bash
# Sets patchloop up on a fresh machine and runs the main job:
#   - installs the dependencies (again only when package-lock.json changed, see install_if_stale),
#     builds (again only when the sources changed, see build_if_stale), and puts the `patchloop` command on PATH (see link_cli);
#   - with PATCHLOOP_MODEL set (e.g. openai/qwen3-coder with OPENAI_BASE_URL=http://127.0.0.1:8000/v1,
#     or gguf:PATH for a GGUF model run in the patchloop process itself, one sequence per worker):
#     a SWE-bench batch run followed by its evaluation, set by
#       PATCHLOOP_SUBSET       lite (default), verified, full or a dataset file
#       PATCHLOOP_SLICE        rows A:B (default 0:5)
#       PATCHLOOP_WORKERS      instances at a time (default 2)
#       PATCHLOOP_ENVIRONMENT  docker (default), podman, local or bwrap
#       PATCHLOOP_REPOS_DIR    the folder of owner__repo git clones (--repos-dir; local and bwrap need it)
#     (relative paths in PATCHLOOP_MODEL=gguf:PATH, PATCHLOOP_REPOS_DIR and PATCHLOOP_SUBSET are read
#     from the folder start.sh was called from)
#       PATCHLOOP_CONFIG       the config (default swebench)
#   - without it: the offline demo (a recorded model fixes a bundled bug, a hidden test grades it).
# `./start.sh link` only puts the command on PATH (after moving the checkout, for instance);
# PATCHLOOP_BIN_DIR names a folder to try first.
set -euo pipefail
# gguf:PATH names a file from where start.sh was called; it is made absolute before the cd below.
if [[ "${PATCHLOOP_MODEL:-}" == gguf:* ]]; then
  gguf_file="${PATCHLOOP_MODEL#gguf:}"
  [[ "$gguf_file" == /* ]] || gguf_file="$PWD/$gguf_file"
  [ -f "$gguf_file" ] || {
    echo "patchloop: PATCHLOOP_MODEL=$PATCHLOOP_MODEL names no file ($gguf_file): give gguf:PATH with the path of a .gguf model file"
    exit 2
  }
  PATCHLOOP_MODEL="gguf:$gguf_file"
fi
# PATCHLOOP_REPOS_DIR, and PATCHLOOP_SUBSET when it names a file, are read from there too.
if [ -n "${PATCHLOOP_REPOS_DIR:-}" ] && [[ "$PATCHLOOP_REPOS_DIR" != /* ]]; then
  PATCHLOOP_REPOS_DIR="$PWD/$PATCHLOOP_REPOS_DIR"
fi
if [ -n "${PATCHLOOP_SUBSET:-}" ] && [[ "$PATCHLOOP_SUBSET" != /* ]] &&
  { [ -e "$PATCHLOOP_SUBSET" ] || [[ "$PATCHLOOP_SUBSET" =~ \.(json|jsonl|parquet|csv)$ ]]; }; then
  PATCHLOOP_SUBSET="$PWD/$PATCHLOOP_SUBSET"
fi
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

# `npm ci` when node_modules is missing or was installed from another package-lock.json.
# node_modules/.patchloop-lock holds the hash of the lock file this script installed from; a plain
# `npm ci` (the README's test command) removes node_modules with that file, so a node_modules that
# npm finished installing (its node_modules/.package-lock.json) after package-lock.json last
# changed counts as installed from it too.
install_if_stale() {
  local want have="" why
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  [ -f node_modules/.patchloop-lock ] && have="$(cat node_modules/.patchloop-lock)"
  if [ ! -f node_modules/.package-lock.json ]; then
    why="node_modules is missing or was not installed to the end"
  elif [ "$have" = "$want" ]; then
    echo "patchloop: dependencies up to date (package-lock.json unchanged)"
    return 0
  elif [ -z "$have" ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    echo "$want" >node_modules/.patchloop-lock
    echo "patchloop: dependencies up to date (installed by npm after package-lock.json last changed)"
    return 0
  else
    why="package-lock.json changed since the last install"
  fi
  echo "patchloop: installing the dependencies (npm ci): $why"
  npm ci --no-audit --no-fund
  echo "$want" >node_modules/.patchloop-lock
}

# The build when dist/ is not what the sources make (scripts/build-dist.mjs: the one stamp that
# `npm run build` and the tests' build write too; it says why it builds, and swaps a whole build in).
build_if_stale() {
  node scripts/build-dist.mjs --if-stale
}

if [ "${1:-}" = "link" ]; then
  link_cli
  exit 0
fi

command -v node >/dev/null || { echo "patchloop needs Node.js 20 or newer (apt-get install nodejs npm)"; exit 2; }
environment="${PATCHLOOP_ENVIRONMENT:-docker}"
repos_dir=()
if [ -n "${PATCHLOOP_MODEL:-}" ]; then
  # what would stop the batch, said before the set-up's minutes
  if [ -n "${PATCHLOOP_REPOS_DIR:-}" ]; then
    [ -d "$PATCHLOOP_REPOS_DIR" ] || {
      echo "patchloop: PATCHLOOP_REPOS_DIR=$PATCHLOOP_REPOS_DIR is not a folder: give the folder of git clones, one per repository, named owner__repo"
      exit 2
    }
    repos_dir=(--repos-dir "$PATCHLOOP_REPOS_DIR")
  elif [ "$environment" = "local" ] || [ "$environment" = "bwrap" ]; then
    echo "patchloop: PATCHLOOP_ENVIRONMENT=$environment runs on clones of the repositories: set PATCHLOOP_REPOS_DIR to" \
      "a folder with one git clone per repository, named owner__repo (e.g. git clone https://github.com/psf/requests" \
      "repos/psf__requests), or use PATCHLOOP_ENVIRONMENT=docker"
    exit 2
  fi
fi
install_if_stale
build_if_stale
link_cli
if [ -n "${PATCHLOOP_MODEL:-}" ]; then
  subset="${PATCHLOOP_SUBSET:-lite}"
  name="${subset##*/}"
  name="$(printf '%s' "${name%%.*}" | tr -c 'A-Za-z0-9_-' '_')"
  out="runs/$name-$(date +%Y%m%d-%H%M%S)"
  exec ./bin/patchloop.js swebench --subset "$subset" --split test --slice "${PATCHLOOP_SLICE:-0:5}" \
    -m "$PATCHLOOP_MODEL" -w "${PATCHLOOP_WORKERS:-2}" --environment "$environment" "${repos_dir[@]}" \
    -c "${PATCHLOOP_CONFIG:-swebench}" -o "$out" --evaluate
fi
echo "PATCHLOOP_MODEL is not set: running the offline demo instead."
exec ./bin/patchloop.js demo
