#!/usr/bin/env bash
# Installs every Debian package the build, the demo and the tests need. Non-interactive and idempotent:
# packages already present are left alone, and apt-get update runs only when something is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates curl
  # C++ libraries (DESIGN.md §3)
  libboost-dev libssl-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev libabsl-dev
  libspdlog-dev libfmt-dev libcli11-dev libsqlite3-dev libarchive-dev libcrypt-dev pybind11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # fuzz targets (scripts/run-fuzzers.sh): clang 14 with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # Python harness, examples and tests: Debian's interpreter at /usr/bin/python3
  python3 python3-dev python3-numpy python3-torch python3-sklearn python3-pytest python3-requests
  python3-yaml
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
