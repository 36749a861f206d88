#!/usr/bin/env bash
# Installs every Debian package the build, the demo and the tests need. Non-interactive and idempotent:
# packages already present are left alone, and apt-get update runs only when something is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates curl
  # C++ libraries (DESIGN.md §3)
  libboost-dev libssl-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev libabsl-dev
  libspdlog-dev libfmt-dev libcli11-dev libsqlite3-dev libsimdjson-dev libarchive-dev libcrypt-dev pybind11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # PostgreSQL beside SQLite: libpq for the master, the server for tests and `det deploy local --db postgres`
  libpq-dev postgresql
  # fuzz targets (scripts/run-fuzzers.sh): clang 14 with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # Python harness, examples and tests: Debian's interpreter at /usr/bin/python3
  python3 python3-dev python3-numpy python3-torch python3-sklearn python3-pytest python3-requests
  python3-yaml
  # the fake Kubernetes API server's tests drive it with the real Python client (tests/fake_kube)
  python3-kubernetes
  # notebooks, shells and the proxy's tunnel (python/determined/exec, determined.cli.tunnel, tests/e2e)
  jupyter-notebook openssh-server openssh-client python3-websocket
  # the libtorch C++ example (examples/cpp, tests/e2e/test_cpp_example.py)
  libtorch-dev
  # the web UI's end-to-end test (tests/e2e/test_webui.py drives it with npm playwright-core)
  chromium
  # a one-node Slurm 22.05 for the Slurm resource manager's tests (scripts/local-slurm.sh, tests/slurm):
  # slurm-wlm's three parts, without its recommends, and munge for its authentication
  slurmctld slurmd slurm-client munge
  # container engines with the Docker Engine API for environment.image (scripts/local-containers.sh,
  # tests/containers): dockerd (docker.io, with containerd and runc) and podman (run with runc: crun 1.8 refuses
  # hybrid cgroups); two local registries (docker-registry, htpasswd from apache2-utils); the test image is
  # built with mmdebstrap and cached zstd-compressed
  docker.io podman runc docker-registry apache2-utils mmdebstrap zstd
  # the master's Prometheus exposition (prometheus-cpp's core library), and Prometheus 2.42 itself with
  # promtool for its tests (tests/e2e/test_prometheus.py starts its own server; no service runs)
  prometheus-cpp-dev prometheus
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js for the web UI's build (scripts/build-webui.sh) and s3rver (below). A node from elsewhere (e.g. NodeSource, which bundles npm) is kept:
# Debian's npm package would conflict with it.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
else
  echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The Debian packages that Determined 0.38.1's own client imports, where that client is installed (the
# e2e_upstream_* suites drive it; scripts/upstream-client.sh says where it is).
if client=$(bash "$(dirname "${BASH_SOURCE[0]}")/upstream-client.sh") && [ -f "$client/install-deps.sh" ]; then
  echo "install-deps: the packages of Determined 0.38.1's client at $client"
  $SUDO bash "$client/install-deps.sh"
fi

# s3rver (npm), the local S3 server of the s3 checkpoint storage tests, into tests/s3/node_modules
# (git-ignored) at the version pinned by tests/s3/package-lock.json.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -x "$REPO_ROOT/tests/s3/node_modules/.bin/s3rver" ]; then
  echo "install-deps: s3rver already installed in tests/s3"
else
  echo "install-deps: installing s3rver into tests/s3 (npm ci)"
  npm ci --prefix "$REPO_ROOT/tests/s3" --no-audit --no-fund
fi
