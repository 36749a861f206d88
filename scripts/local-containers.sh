#!/usr/bin/env bash
# A container engine with a Docker Engine API on a Unix socket, and two local image registries, for the tests
# and CI, with every file under DIR (docs/containers.md, "The test environment").
#
#   scripts/local-containers.sh start DIR   # starts the engine and the registries, seeds the registries with the
#                                           # test image, prints the environment (DOCKER_HOST=..., ...)
#   scripts/local-containers.sh env DIR     # prints that environment again
#   scripts/local-containers.sh stop DIR    # removes the engine's containers, stops everything, kills leftovers,
#                                           # unmounts what the engine left mounted under DIR
#   scripts/local-containers.sh status DIR  # exit 0 while the engine or a registry of DIR runs
#
# What it sets up:
#   - the engine: LOCAL_CONTAINERS_ENGINE=docker (dockerd of Debian's docker.io 20.10, the default where it is
#     installed) or podman (`podman system service` of Debian's podman 4.3, with runc), serving the Docker Engine
#     API (v1.41) on DIR/engine.sock. Its storage, state, logs and configuration are under DIR. It has no bridge
#     network and touches no iptables rules: containers use NetworkMode "host" (or "none"); "bridge" (the default)
#     gets only a loopback interface from dockerd and fails on podman. It starts with no images.
#   - two docker-registry 2.8 instances on 127.0.0.1, on free ports picked at start, plain HTTP: an open one
#     (DET_TEST_REGISTRY) and one with htpasswd basic auth, user det, password det-password
#     (DET_TEST_AUTH_REGISTRY). dockerd treats 127.0.0.0/8 registries as insecure (plain HTTP) by default;
#     podman is told so per registry in DIR/podman/registries.conf.
#   - the test image det-test/python:bookworm (Debian 12 essential packages plus python3, python3-numpy,
#     jupyter-notebook for a notebook in a container, openssh-server for a shell in one, and ca-certificates; about
#     130 MB in a registry) in both registries.
#
# The image is built once with mmdebstrap and cached in ${DET_CONTAINER_CACHE:-/var/cache/det-test-images}: the
# rootfs tarball (python-bookworm-KEY.tar.zst) and the registry storage tree it was pushed into
# (registry-python-bookworm-KEY/), where KEY hashes the recipe. A start with a warm cache copies that tree into
# both registries (about 3 s in all); a cold one runs mmdebstrap (about 25-30 s on the Debian mirror), imports the
# tarball through the engine's CLI, pushes it and keeps the registry tree. DET_CONTAINER_REBUILD=1 rebuilds.
# The mirror is the host's /etc/apt/sources.list.d/debian.sources where there is one (DET_CONTAINER_MIRROR
# overrides it).
#
# Needs root: both engines run rootful.
set -euo pipefail

usage() { echo "usage: $0 start|stop|env|status DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
SOCK="$DIR/engine.sock"
LOGS="$DIR/log"
CACHE=${DET_CONTAINER_CACHE:-/var/cache/det-test-images}
START_TIMEOUT=${LOCAL_CONTAINERS_START_TIMEOUT:-60}
STOP_TIMEOUT=${LOCAL_CONTAINERS_STOP_TIMEOUT:-20}
IMAGE_REPO=det-test/python
IMAGE_TAG=bookworm
REGISTRY_USER=det
REGISTRY_PASSWORD=det-password

# The image recipe. Changing it changes KEY, so the next start builds a new image.
IMAGE_PACKAGES=python3,python3-numpy,jupyter-notebook,openssh-server,ca-certificates
MMDEBSTRAP_OPTS=(
  --variant=essential --include="$IMAGE_PACKAGES"
  # merged /usr without installing usrmerge, which would pull in perl (about 50 MB)
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log'
)
IMAGE_CHANGES=(--change 'CMD ["/usr/bin/python3"]'
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
KEY=$(printf '%s\n' v1 bookworm "${MMDEBSTRAP_OPTS[@]}" "${IMAGE_CHANGES[@]}" | sha256sum | cut -c1-12)
TARBALL="$CACHE/python-bookworm-$KEY.tar.zst"
REGISTRY_CACHE="$CACHE/registry-python-bookworm-$KEY"

log() { echo "local-containers: $*" >&2; }
now_ms() { date +%s%3N; }
# Seconds since $1 (from now_ms), with one decimal.
since() { local d=$(( $(now_ms) - $1 )); printf '%d.%ds' $((d / 1000)) $((d % 1000 / 100)); }
die() { log "$*"; exit 1; }

engine() {
  if [ -s "$DIR/engine" ]; then cat "$DIR/engine"; return; fi
  case "${LOCAL_CONTAINERS_ENGINE:-}" in
    docker|podman) echo "$LOCAL_CONTAINERS_ENGINE" ;;
    "") if command -v dockerd >/dev/null 2>&1; then echo docker; else echo podman; fi ;;
    *) die "LOCAL_CONTAINERS_ENGINE must be docker or podman, got '$LOCAL_CONTAINERS_ENGINE'" ;;
  esac
}

podman_env() {
  env CONTAINERS_CONF="$DIR/podman/containers.conf" CONTAINERS_STORAGE_CONF="$DIR/podman/storage.conf" \
    CONTAINERS_REGISTRIES_CONF="$DIR/podman/registries.conf" "$@"
}
# The engines' own CLIs, used only here (to seed the registries and to clean up); the tests use the API.
engine_cli() {
  case "$(engine)" in
    docker) DOCKER_HOST="unix://$SOCK" DOCKER_CONFIG="$DIR/docker/client" docker "$@" ;;
    podman) podman_env podman --runtime-flag "root=$DIR/podman/runc" "$@" ;;
  esac
}

ping() { curl -sf --max-time 2 --unix-socket "$SOCK" http://localhost/_ping >/dev/null 2>&1; }

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Processes of DIR: those whose command line names a path under DIR (dockerd, containerd and its shims, podman,
# conmon, the registries), and containers' processes, whose root mount is an overlay with its upperdir under DIR
# (readlink /proc/PID/root says only "/" for them). This script's own processes name DIR itself, never a path
# under it. Zombies count as gone.
live_pids() {
  local re p state
  re=$(printf '%s' "$DIR" | sed 's/[][\.*^$+?(){}|]/\\&/g')
  {
    grep -l -s -z -E -e "^(unix://)?$re/." /proc/[0-9]*/cmdline | cut -d/ -f3
    awk -v d="upperdir=$DIR/" '$5 == "/" && index($0, d) { split(FILENAME, a, "/"); print a[3]; nextfile }' \
      /proc/[0-9]*/mountinfo 2>/dev/null
  } | sort -u | while read -r p; do
    [ "$p" = $$ ] && continue
    grep -q -s -F 'local-containers.sh' "/proc/$p/cmdline" && continue
    state=$(ps -o stat= -p "$p" 2>/dev/null || true)
    if [ -n "$state" ] && [ "${state:0:1}" != Z ]; then echo "$p"; fi
  done
}

print_env() {
  echo "DOCKER_HOST=unix://$SOCK"
  echo "DET_TEST_ENGINE=$(engine)"
  echo "DET_TEST_REGISTRY=127.0.0.1:$(cat "$DIR/registry/open.port")"
  echo "DET_TEST_AUTH_REGISTRY=127.0.0.1:$(cat "$DIR/registry/auth.port")"
  echo "DET_TEST_REGISTRY_USER=$REGISTRY_USER"
  echo "DET_TEST_REGISTRY_PASSWORD=$REGISTRY_PASSWORD"
  echo "DET_TEST_IMAGE=$IMAGE_REPO:$IMAGE_TAG"
}

tail_logs() {
  local f
  for f in "$LOGS"/*.log; do
    [ -f "$f" ] || continue
    echo "---- tail $f" >&2
    tail -n 20 "$f" >&2
  done
}

# ---- the image cache

build_tarball() {
  local tmp mirror
  mirror=${DET_CONTAINER_MIRROR:-}
  if [ -z "$mirror" ]; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then mirror=/etc/apt/sources.list.d/debian.sources
    else mirror=http://deb.debian.org/debian; fi
  fi
  tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
  log "building the image's rootfs with mmdebstrap (bookworm, $IMAGE_PACKAGES; mirror $mirror)"
  if ! mmdebstrap "${MMDEBSTRAP_OPTS[@]}" --format=tar bookworm "$tmp/rootfs.tar" "$mirror" \
      </dev/null >"$LOGS/mmdebstrap.log" 2>&1; then
    tail -n 30 "$LOGS/mmdebstrap.log" >&2
    rm -rf "$tmp"
    die "mmdebstrap failed (log: $LOGS/mmdebstrap.log)"
  fi
  zstd -q -T0 "$tmp/rootfs.tar" -o "$tmp/rootfs.tar.zst"
  mv "$tmp/rootfs.tar.zst" "$TARBALL"
  rm -rf "$tmp"
}

# Imports the tarball into the engine, pushes it to the open registry (running on empty storage) and keeps that
# registry's storage tree as the cache. The engine is left with no images.
build_registry_cache() {
  local port ref tmp
  port=$(cat "$DIR/registry/open.port")
  ref="127.0.0.1:$port/$IMAGE_REPO:$IMAGE_TAG"
  log "importing the image into $(engine) and pushing it to $ref"
  zstd -dc "$TARBALL" | engine_cli import "${IMAGE_CHANGES[@]}" - "$ref" >"$LOGS/import.log" 2>&1 \
    || { cat "$LOGS/import.log" >&2; die "import failed"; }
  case "$(engine)" in
    docker) engine_cli push "$ref" >"$LOGS/push.log" 2>&1 ;;
    podman) engine_cli push --tls-verify=false "$ref" >"$LOGS/push.log" 2>&1 ;;
  esac || { cat "$LOGS/push.log" >&2; die "push failed"; }
  engine_cli rmi "$ref" >/dev/null
  tmp=$(mktemp -d "$CACHE/.registry.XXXXXX")
  cp -a "$DIR/registry/open/." "$tmp/"
  rm -rf "$REGISTRY_CACHE"
  mv "$tmp" "$REGISTRY_CACHE"
}

# ---- the engines

write_podman_conf() {
  local nofile nproc pid_max
  mkdir -p "$DIR/podman/tmp" "$DIR/podman/storage" "$DIR/podman/run" "$DIR/podman/cni" "$DIR/podman/cni-plugins"
  # Rootful podman 4.3 asks the runtime for nofile=1048576 and nproc=4194304 by default. Where the hard limits
  # are lower and cannot be raised (this VM refuses even root: "setrlimit `RLIMIT_NOFILE`: Operation not
  # permitted"), the container fails to start, so ask for what there is. podman lowers its own RLIMIT_NPROC to
  # kernel.pid_max at start, hence the min.
  nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=1048576
  nproc=$(ulimit -Hu); pid_max=$(cat /proc/sys/kernel/pid_max)
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc=$pid_max; fi
  cat >"$DIR/podman/containers.conf" <<EOF
# Written by scripts/local-containers.sh for the podman service of $DIR.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
# crun 1.8 refuses this VM's hybrid cgroups ("cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2"); runc 1.1 runs on v1, hybrid and v2.
runtime = "runc"
cgroup_manager = "cgroupfs"
# file locks under tmp_dir instead of the shared-memory segment /dev/shm/libpod_lock that every rootful podman
# on the host shares
lock_type = "file"
tmp_dir = "$DIR/podman/tmp"
events_logger = "file"
events_logfile_path = "$DIR/podman/events.log"
static_dir = "$DIR/podman/storage/libpod"
volume_path = "$DIR/podman/storage/volumes"
[network]
# No CNI plugins: NetworkMode "bridge" (the compat API's default) would create a cni-podman0 bridge and iptables
# chains on the host. With an empty plugin directory it fails instead ("failed to find plugin \"bridge\"").
network_backend = "cni"
network_config_dir = "$DIR/podman/cni"
cni_plugin_dirs = ["$DIR/podman/cni-plugins"]
EOF
  cat >"$DIR/podman/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$DIR/podman/storage"
runroot = "$DIR/podman/run"
EOF
  cat >"$DIR/podman/registries.conf" <<EOF
# Only fully qualified image names; the two test registries speak plain HTTP.
unqualified-search-registries = []
[[registry]]
location = "127.0.0.1:$(cat "$DIR/registry/open.port")"
insecure = true
[[registry]]
location = "127.0.0.1:$(cat "$DIR/registry/auth.port")"
insecure = true
EOF
}

start_engine() {
  case "$(engine)" in
    docker)
      command -v dockerd >/dev/null 2>&1 || die "dockerd is not installed (scripts/install-deps.sh installs docker.io)"
      mkdir -p "$DIR/docker/data" "$DIR/docker/exec" "$DIR/docker/client"
      echo '{}' >"$DIR/docker/daemon.json"
      # No bridge and no iptables rules: nothing on the host's network changes, and several daemons can run.
      setsid dockerd --config-file "$DIR/docker/daemon.json" --data-root "$DIR/docker/data" \
        --exec-root "$DIR/docker/exec" --pidfile "$DIR/docker/dockerd.pid" --host "unix://$SOCK" \
        --bridge none --iptables=false --ip6tables=false --ip-masq=false --userland-proxy=false \
        --storage-driver overlay2 </dev/null >"$LOGS/engine.log" 2>&1 &
      echo $! >"$DIR/engine.pid"
      ;;
    podman)
      command -v podman >/dev/null 2>&1 || die "podman is not installed (scripts/install-deps.sh installs it)"
      command -v runc >/dev/null 2>&1 || die "runc is not installed (scripts/install-deps.sh installs it)"
      write_podman_conf
      # A simple command (not the podman_env function) so that $! is podman's pid, not a subshell's.
      env CONTAINERS_CONF="$DIR/podman/containers.conf" CONTAINERS_STORAGE_CONF="$DIR/podman/storage.conf" \
        CONTAINERS_REGISTRIES_CONF="$DIR/podman/registries.conf" \
        setsid podman --runtime-flag "root=$DIR/podman/runc" system service --time=0 "unix://$SOCK" \
        </dev/null >"$LOGS/engine.log" 2>&1 &
      echo $! >"$DIR/engine.pid"
      ;;
  esac
  local deadline=$((SECONDS + START_TIMEOUT))
  until ping; do
    if [ $SECONDS -ge $deadline ] || ! kill -0 "$(cat "$DIR/engine.pid")" 2>/dev/null; then
      tail_logs; stop_all; die "$(engine) did not answer on $SOCK"
    fi
    sleep 0.1
  done
}

# ---- the registries

write_registry_conf() {
  local name=$1 port
  port=$(cat "$DIR/registry/$name.port")
  cat >"$DIR/registry/$name.yml" <<EOF
# Written by scripts/local-containers.sh.
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $DIR/registry/$name
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: local-containers-$name
EOF
  if [ "$name" = auth ]; then
    cat >>"$DIR/registry/$name.yml" <<EOF
auth:
  htpasswd:
    realm: det-test-registry
    path: $DIR/registry/htpasswd
EOF
  fi
}

start_registry() {
  local name=$1 port deadline code
  port=$(cat "$DIR/registry/$name.port")
  setsid docker-registry serve "$DIR/registry/$name.yml" </dev/null >"$LOGS/registry-$name.log" 2>&1 &
  echo $! >"$DIR/registry/$name.pid"
  deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/v2/" || true)
    case "$code" in 200|401) return 0 ;; esac
    if [ $SECONDS -ge $deadline ] || ! kill -0 "$(cat "$DIR/registry/$name.pid")" 2>/dev/null; then
      tail_logs; stop_all; die "the $name registry did not answer on 127.0.0.1:$port"
    fi
    sleep 0.1
  done
}

# The manifest must be there: a cache copied from a broken run would otherwise only show in the tests.
check_registry() {
  local name=$1 auth=()
  [ "$name" = auth ] && auth=(-u "$REGISTRY_USER:$REGISTRY_PASSWORD")
  curl -sf -o /dev/null "${auth[@]}" -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
    "http://127.0.0.1:$(cat "$DIR/registry/$name.port")/v2/$IMAGE_REPO/manifests/$IMAGE_TAG" \
    || die "the $name registry has no $IMAGE_REPO:$IMAGE_TAG (remove $REGISTRY_CACHE and start again)"
}

# ---- start and stop

start() {
  [ "$(id -u)" -eq 0 ] || die "needs root: both engines run rootful here"
  local tool
  for tool in docker-registry mmdebstrap zstd htpasswd curl; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (scripts/install-deps.sh installs it)"
  done
  # sun_path holds 108 bytes; containerd's socket is the longest path under DIR.
  [ ${#DIR} -le 60 ] || die "DIR is too long for the engine's Unix sockets (${#DIR} > 60 characters): $DIR"
  if [ -n "$(live_pids)" ]; then
    die "processes of $DIR are already running ($(live_pids | tr '\n' ' ')); run '$0 stop $DIR' first"
  fi
  local eng t0 t1 how_tarball how_registry open_port auth_port
  t0=$(now_ms)
  rm -f "$DIR/engine"
  eng=$(engine)
  rm -rf "$LOGS" "$DIR/registry" "$DIR/docker" "$DIR/podman" "$SOCK"
  mkdir -p "$LOGS" "$DIR/registry/open" "$DIR/registry/auth" "$CACHE"
  echo "$eng" >"$DIR/engine"
  open_port=${DET_TEST_REGISTRY_PORT:-$(free_port)}
  auth_port=${DET_TEST_AUTH_REGISTRY_PORT:-$(free_port)}
  while [ "$auth_port" = "$open_port" ]; do auth_port=$(free_port); done
  echo "$open_port" >"$DIR/registry/open.port"
  echo "$auth_port" >"$DIR/registry/auth.port"
  htpasswd -Bbn "$REGISTRY_USER" "$REGISTRY_PASSWORD" >"$DIR/registry/htpasswd" 2>/dev/null
  write_registry_conf open
  write_registry_conf auth

  # One start at a time builds the cache; the others wait for it here.
  exec 9>"$CACHE/.lock"
  flock 9
  if [ "${DET_CONTAINER_REBUILD:-0}" = 1 ]; then rm -rf "$TARBALL" "$REGISTRY_CACHE"; fi
  t1=$(now_ms)
  if [ -s "$TARBALL" ]; then how_tarball="cached"
  else rm -rf "$REGISTRY_CACHE"; build_tarball; how_tarball="built in $(since $t1)"; fi

  t1=$(now_ms)
  start_engine
  log "$eng answers on $SOCK after $(since $t1)"

  t1=$(now_ms)
  if [ -f "$REGISTRY_CACHE/.done" ]; then
    cp -a "$REGISTRY_CACHE/." "$DIR/registry/open/"
    start_registry open
    how_registry="copied from the cache"
  else
    start_registry open
    build_registry_cache
    touch "$REGISTRY_CACHE/.done"
    how_registry="imported and pushed"
  fi
  cp -a "$REGISTRY_CACHE/." "$DIR/registry/auth/"
  flock -u 9
  exec 9>&-
  start_registry auth
  check_registry open
  check_registry auth
  log "registries on 127.0.0.1:$open_port (open) and 127.0.0.1:$auth_port (auth), image $how_registry in $(since $t1)"
  log "started in $(since $t0) (image tarball $how_tarball: $TARBALL)"
  print_env
}

# Stops what start started, in reverse, then kills whatever of DIR is left and unmounts what is mounted under DIR.
stop_all() {
  local pids f deadline m
  if ping; then
    # The containers first: an engine stopped with containers running may leave their processes behind.
    local ids
    ids=$(engine_cli ps -a -q 2>/dev/null || true)
    # podman's rm -f first sends SIGTERM and waits 10 s (-t); docker's kills at once.
    if [ -n "$ids" ]; then
      case "$(engine)" in
        docker) engine_cli rm -f $ids >/dev/null 2>&1 || true ;;
        podman) engine_cli rm -f -t 0 $ids >/dev/null 2>&1 || true ;;
      esac
    fi
  fi
  for f in "$DIR/engine.pid" "$DIR/registry/open.pid" "$DIR/registry/auth.pid"; do
    [ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true
  done
  deadline=$((SECONDS + STOP_TIMEOUT))
  while [ $SECONDS -lt $deadline ] && [ -n "$(live_pids)" ]; do sleep 0.2; done
  pids=$(live_pids)
  if [ -n "$pids" ]; then
    log "killing leftover processes of $DIR: $(echo $pids)"
    kill -KILL $pids 2>/dev/null || true
    sleep 0.5
  fi
  # dockerd leaves its data root and network namespace mounts when killed; podman's overlay driver always leaves
  # its graph root's overlay directory bind-mounted on itself. Deepest first.
  for m in $(awk -v d="$DIR/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "cannot unmount $m"
  done
  rm -f "$SOCK" "$DIR/engine.pid" "$DIR/registry/"*.pid
  if [ -n "$(live_pids)" ]; then log "processes of $DIR are still alive: $(live_pids | tr '\n' ' ')"; return 1; fi
  if awk -v d="$DIR/" 'index($2, d) == 1 {found=1} END {exit !found}' /proc/mounts; then
    log "mounts under $DIR are left"; return 1
  fi
  return 0
}

case "$cmd" in
  start) start ;;
  stop) stop_all && log "stopped" ;;
  env)
    [ -s "$DIR/registry/auth.port" ] || die "$DIR holds no environment: run '$0 start $DIR' first"
    print_env ;;
  status) [ -n "$(live_pids)" ] ;;
  *) usage ;;
esac
