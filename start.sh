#!/usr/bin/env bash
# Sets patchloop up on a fresh machine and runs the main job:
#   - installs the dependencies (again only when package-lock.json changed), builds (again only when
#     the sources changed, see build_if_stale), and puts the `patchloop` command on PATH (see link_cli);
#   - with PATCHLOOP_MODEL set (e.g. openai/qwen3-coder with OPENAI_BASE_URL=http://127.0.0.1:8000/v1,
#     or gguf:PATH for a GGUF model run in the patchloop process itself, one sequence per worker):
#     a SWE-bench batch run followed by its evaluation, set by
#       PATCHLOOP_SUBSET       lite (default), verified, full or a dataset file
#       PATCHLOOP_SLICE        rows A:B (default 0:5)
#       PATCHLOOP_WORKERS      instances at a time (default 2)
#       PATCHLOOP_ENVIRONMENT  docker (default), podman, local or bwrap
#       PATCHLOOP_REPOS_DIR    the folder of owner__repo git clones (--repos-dir; local and bwrap need it)
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

# `npm ci` when node_modules is missing or was installed from another package-lock.json
# (node_modules/.patchloop-lock holds the hash of the one it was installed from).
install_if_stale() {
  local want have=""
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  [ -f node_modules/.patchloop-lock ] && have="$(cat node_modules/.patchloop-lock)"
  if [ -d node_modules ] && [ "$have" = "$want" ]; then
    echo "patchloop: dependencies up to date (package-lock.json unchanged)"
    return 0
  fi
  npm ci --no-audit --no-fund
  echo "$want" >node_modules/.patchloop-lock
}

# What `npm run build` reads (the sources it compiles, the files that say how): paths and contents.
build_inputs() {
  { find src bench -type f -print0; printf '%s\0' package.json package-lock.json tsconfig.json rolldown.config.mjs; } |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# What is in dist/ (paths, sizes, modification times; the stamp left out): a build by anything
# else (`npm run build`, the tests' own) changes it, so such a dist/ is never taken for this one's.
build_outputs() {
  find dist -type f ! -path dist/.start-build -printf '%P\0%s\0%T@\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

# `npm run build` unless dist/.start-build says that dist/ is what the last build here made from
# the current inputs. A build starts from an empty dist/, and the stamp is written only after it
# succeeded, so an interrupted or failed build is never taken for a good one.
build_if_stale() {
  local inputs
  inputs="$(build_inputs)"
  if [ -f dist/.start-build ] && [ "$(cat dist/.start-build)" = "$inputs $(build_outputs)" ]; then
    echo "patchloop: build up to date (no source changed since the last build)"
    return 0
  fi
  rm -rf dist
  npm run build --silent
  echo "$inputs $(build_outputs)" >dist/.start-build
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
