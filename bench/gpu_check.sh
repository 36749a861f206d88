#!/bin/bash
# The GPU check of issue 40 (docs/gpu.md), for a machine with NVIDIA GPUs that lacks this machine's Debian
# packages (the lent one: Ubuntu 24.04, PyTorch in /opt/torch/.venv with Python 3.12, no network).
#
#   bench/gpu_check.sh pack OUT          here: OUT/bin (master, agent, det, task shim), OUT/lib (the shared
#                                        libraries they link), OUT/kit (what building the Python module there
#                                        needs: our static libraries, sources and the headers it lacks),
#                                        OUT/python (our determined package), OUT/repo (examples, the driver)
#   bench/gpu_check.sh run OUT RESULTS   there, in about 5 minutes: builds _determined for its Python, puts that
#                                        Python first on the tasks' PATH, and runs bench/gpu_check.py, which
#                                        starts a local cluster on the GPUs and writes RESULTS/gpu-check.txt
#
# Rehearsed here with the fakes of tests/e2e (fake nvidia-smi, fake NVML) and Debian's Python:
#   bench/gpu_check.sh pack /tmp/gc && PATH=$PWD/tests/e2e/fake_gpu:$PATH DET_GPU_CHECK_PYTHON=/usr/bin/python3 \
#     DET_GPU_CHECK_NVML_DIR=$PWD/build/tests/fake-nvml bench/gpu_check.sh run /tmp/gc /tmp/gc-results
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

pack() {
  local out=$1 build=${BUILD:-$here/build}
  rm -rf "$out"
  mkdir -p "$out"/{bin,lib,kit/lib,kit/include,python,repo}
  for b in determined-master determined-agent det determined-task-shim; do cp "$build/bin/$b" "$out/bin/"; done
  strip "$out"/bin/determined-{master,agent} "$out/bin/det"
  # Every shared library they and the Python module link, less the C library's own, OpenSSL and libxml2 with
  # its ICU (the other machine has its own, newer ones).
  local module
  module=$(ls "$build"/python/_determined.*.so)
  { for b in "$out"/bin/* "$module"; do ldd "$b" 2>/dev/null || true; done; } | awk '/=> \//{print $3}' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|libcrypto|libssl|libxml2|libicu[a-z]*)\.so|ld-linux' |
    while read -r lib; do cp -L "$lib" "$out/lib/"; done
  # The module's link line, with our static libraries carried and Debian's shared ones named by file.
  ninja -C "$build" -t commands _determined | grep -- "-o python/_determined" | tail -1 >"$out/kit/link.txt"
  grep -o 'src/[a-z_/]*lib[a-z_]*\.a' "$out/kit/link.txt" | sort -u | while read -r a; do cp "$build/$a" "$out/kit/lib/"; done
  strip --strip-debug "$out"/kit/lib/*.a
  # The shared libraries the link line names (by their file names there), to link against; at run time the
  # module finds them by soname in OUT/lib or the machine's own.
  mkdir -p "$out/kit/linklib"
  for l in $(grep -o '/usr/lib/x86_64-linux-gnu/lib[^ ]*\.so[^ ]*' "$out/kit/link.txt" | grep -v -E '/lib(ssl|crypto)\.so'); do
    cp -L "$l" "$out/kit/linklib/"
  done
  cp -r "$here/src" "$out/kit/src"
  cp -r /usr/include/absl /usr/include/nlohmann /usr/include/pybind11 "$out/kit/include/"
  cp -r "$here/python/determined" "$out/python/"
  cp -r "$here/examples" "$out/repo/"
  cp "$here/bench/gpu_check.py" "$out/repo/"
  # The digits, for a Python without scikit-learn: the same 1797 8x8 images its load_digits() returns.
  /usr/bin/python3 -c "
import numpy, sklearn.datasets
x, y = sklearn.datasets.load_digits(return_X_y=True)
numpy.savez_compressed('$out/kit/digits.npz', x=x, y=y)"
  du -sh "$out"
}

build_module() {
  local out=$1 py=$2
  local suffix include pyinc
  suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  pyinc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [ -f "$pyinc/Python.h" ] || pyinc=/usr/include/$(basename "$pyinc")
  # The machine's own pybind11 where it has one (it matches its Python), else Debian's, carried.
  include=$("$py" -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null || echo "$out/kit/include")
  local objs=() libs=()
  for a in "$out"/kit/lib/*.a; do objs+=("$a"); done
  # Debian's shared libraries as the link line names them (carried), and the machine's OpenSSL.
  for l in $(grep -o '/usr/lib/x86_64-linux-gnu/lib[^ ]*\.so[^ ]*' "$out/kit/link.txt"); do
    case $(basename "$l") in
      libssl.so) libs+=(-lssl) ;;
      libcrypto.so) libs+=(-lcrypto) ;;
      *) libs+=("$out/kit/linklib/$(basename "$l")") ;;
    esac
  done
  # The static libraries in their link order.
  local ordered=()
  for a in $(grep -o 'src/[a-z_/]*lib[a-z_]*\.a' "$out/kit/link.txt"); do ordered+=("$out/kit/lib/$(basename "$a")"); done
  libs+=(-latomic -ldl -lpthread)
  g++ -O2 -fPIC -shared -std=c++20 -fvisibility=hidden -DSPDLOG_COMPILED_LIB -DSPDLOG_FMT_EXTERNAL -DSPDLOG_SHARED_LIB \
    -DFMT_SHARED -I "$out/kit/src" -isystem "$include" -isystem "$out/kit/include" -isystem "$pyinc" \
    "$out/kit/src/harness/python_module.cc" "${ordered[@]}" "${libs[@]}" -Wl,-rpath,"$out/lib" \
    -o "$out/python/_determined$suffix"
}

run() {
  local out results py
  out=$(cd "$1" && pwd)
  results=$2
  py=${DET_GPU_CHECK_PYTHON:-/opt/torch/.venv/bin/python3}
  mkdir -p "$results"
  # Only the carried libraries this machine lacks: its own, often newer, stay in charge.
  mkdir -p "$out/lib-unused"
  for lib in "$out"/lib/*; do
    if ldconfig -p | grep -q "^[[:space:]]*$(basename "$lib") "; then mv "$lib" "$out/lib-unused/"; fi
  done
  echo "building _determined for $("$py" --version 2>&1) ..."
  build_module "$out" "$py"
  # Tasks run `python3` from PATH, whose first entry is the agent's own directory: there, it is this Python.
  ln -sf "$py" "$out/bin/python3"
  if ! "$py" -c 'import sklearn' 2>/dev/null; then
    mkdir -p "$out/kit/shim/sklearn"
    : >"$out/kit/shim/sklearn/__init__.py"
    cat >"$out/kit/shim/sklearn/datasets.py" <<EOF
"""scikit-learn's load_digits() for a Python without scikit-learn: the same data, carried (gpu_check.sh)."""
import numpy
def load_digits(return_X_y=False):
    d = numpy.load("$out/kit/digits.npz")
    return d["x"], d["y"]
EOF
    export DET_GPU_CHECK_SHIM=$out/kit/shim
  fi
  LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} DET_BIN_DIR=$out/bin \
    "$py" "$out/repo/gpu_check.py" --repo "$out/repo" --results "$results"
}

case "${1:-}" in
  pack) pack "$2" ;;
  run) run "$2" "$3" ;;
  *) echo "usage: $0 pack OUT | run OUT RESULTS" >&2; exit 2 ;;
esac
