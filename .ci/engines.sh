# shellcheck shell=bash
# Container engines for patchloop's tests: Docker, Podman and bubblewrap from Debian's packages.
#
# Source this file, then call:
#   engines_install   apt-get install docker.io podman bubblewrap debootstrap (skipped when present)
#   engines_start     dockerd on a private socket, the base image in docker and podman; exports:
#                       DOCKER_HOST            unix socket of the private dockerd
#                       PATCHLOOP_TEST_IMAGE   base image name for docker (patchloop-ci/base:bookworm);
#                                              podman has it as localhost/patchloop-ci/base:bookworm
#                       PATCHLOOP_ENGINES_DIR  folder of the dockerd state (removed by engines_stop)
#   engines_stop      stops what engines_start started (by PID) and removes its folder
#
# The base image is `debootstrap --variant=minbase bookworm` imported with `docker import` and
# `podman import`. The rootfs tarball is cached in PATCHLOOP_CI_CACHE (default /var/cache/patchloop-ci)
# so that only the first run on a machine pays for debootstrap (about a minute).

PATCHLOOP_CI_CACHE="${PATCHLOOP_CI_CACHE:-/var/cache/patchloop-ci}"
PATCHLOOP_TEST_IMAGE="${PATCHLOOP_TEST_IMAGE:-patchloop-ci/base:bookworm}"

_engines_log() { echo "[engines] $*" >&2; }

engines_install() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v podman >/dev/null || missing+=(podman)
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  _engines_log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || return 1
  apt-get install -y -qq docker.io podman bubblewrap debootstrap >/dev/null || return 1
}

# The Debian mirror that apt already uses, or nothing when its sources name none (debootstrap then
# uses its own default mirror).
engines_debian_mirror() {
  local url=""
  if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
    url=$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/*.sources | grep -v -- '-security' | grep -i debian | head -n1)
  fi
  if [ -z "$url" ] && [ -f /etc/apt/sources.list ]; then
    url=$(awk '$1 == "deb" && $3 !~ /security/ {print $2}' /etc/apt/sources.list | grep -i debian | head -n1)
  fi
  echo "$url"
}

# Removes what an interrupted debootstrap left in the cache (its mounts first).
_engines_clean_stale_builds() {
  local stale
  for stale in "$PATCHLOOP_CI_CACHE"/debootstrap.*; do
    [ -d "$stale" ] || continue
    grep -F " $stale/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
    rm -rf "$stale"
  done
}

# Builds (once) the minbase bookworm rootfs tarball and prints its path.
engines_base_tarball() {
  local tarball="$PATCHLOOP_CI_CACHE/bookworm-minbase.tar"
  if [ -s "$tarball" ]; then
    echo "$tarball"
    return 0
  fi
  mkdir -p "$PATCHLOOP_CI_CACHE" || return 1
  _engines_clean_stale_builds
  local work
  work=$(mktemp -d "$PATCHLOOP_CI_CACHE/debootstrap.XXXXXX") || return 1
  local mirror
  mirror=$(engines_debian_mirror)
  _engines_log "debootstrap --variant=minbase bookworm from ${mirror:-the default mirror of debootstrap} (first run only)"
  # An empty mirror argument is left out, not passed as "".
  if ! debootstrap --variant=minbase bookworm "$work/rootfs" ${mirror:+"$mirror"} >"$work/debootstrap.log" 2>&1; then
    _engines_log "debootstrap failed; last lines of its log:"
    tail -n 20 "$work/debootstrap.log" >&2
    rm -rf "$work"
    return 1
  fi
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" --numeric-owner -cf "$work/rootfs.tar" . || { rm -rf "$work"; return 1; }
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  echo "$tarball"
}

engines_start() {
  engines_install || return 1
  PATCHLOOP_ENGINES_DIR=$(mktemp -d /tmp/patchloop-engines.XXXXXX) || return 1
  export PATCHLOOP_ENGINES_DIR
  local dir="$PATCHLOOP_ENGINES_DIR"
  mkdir -p "$dir/data" "$dir/exec"
  dockerd --host "unix://$dir/docker.sock" --bridge=none --iptables=false --ip6tables=false \
    --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
    >"$dir/dockerd.log" 2>&1 &
  echo $! >"$dir/dockerd.launcher.pid"
  export DOCKER_HOST="unix://$dir/docker.sock"
  local i
  for i in $(seq 1 120); do
    if docker version >/dev/null 2>&1; then break; fi
    if ! kill -0 "$(cat "$dir/dockerd.launcher.pid")" 2>/dev/null; then
      _engines_log "dockerd exited; last lines of its log:"
      tail -n 20 "$dir/dockerd.log" >&2
      return 1
    fi
    sleep 0.5
  done
  docker version >/dev/null 2>&1 || { _engines_log "dockerd did not answer within 60 s"; return 1; }

  local tarball
  tarball=$(engines_base_tarball) || return 1
  docker import "$tarball" "$PATCHLOOP_TEST_IMAGE" >/dev/null || return 1
  if ! podman image exists "localhost/$PATCHLOOP_TEST_IMAGE" 2>/dev/null; then
    podman import --quiet "$tarball" "localhost/$PATCHLOOP_TEST_IMAGE" >/dev/null || return 1
  fi
  export PATCHLOOP_TEST_IMAGE
  _engines_log "dockerd at $DOCKER_HOST; base image $PATCHLOOP_TEST_IMAGE (docker) and localhost/$PATCHLOOP_TEST_IMAGE (podman)"
}

# Removes podman containers labelled patchloop=1 whose owner (label patchloop.owner,
# host:pid:start-time) is not a running process of this host.
engines_gc_podman() {
  command -v podman >/dev/null || return 0
  local id owner host pid start now
  for id in $(podman ps -aq --filter label=patchloop=1 2>/dev/null); do
    owner=$(podman inspect --format '{{index .Config.Labels "patchloop.owner"}}' "$id" 2>/dev/null)
    IFS=: read -r host pid start <<<"$owner"
    now=""
    if [ "$host" = "$(hostname)" ] && [ -n "$pid" ] && [ -r "/proc/$pid/stat" ]; then
      now=$(sed 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
    fi
    if [ -n "$now" ] && { [ "$start" = "?" ] || [ "$now" = "$start" ]; }; then continue; fi
    podman rm -f --time 0 "$id" >/dev/null 2>&1
  done
}

engines_stop() {
  local dir="${PATCHLOOP_ENGINES_DIR:-}"
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  # Containers that tests left behind (a failing test may not reach its cleanup). The dockerd is
  # this run's own; podman is shared by the machine, so only containers of dead owners go.
  docker ps -aq --filter label=patchloop=1 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1
  engines_gc_podman
  local pid
  for f in "$dir/dockerd.pid" "$dir/dockerd.launcher.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null
  done
  # dockerd stops its own containerd; anything still mounted under the folder is released here.
  grep -F "$dir/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
  rm -rf "$dir"
  unset DOCKER_HOST PATCHLOOP_ENGINES_DIR
}
