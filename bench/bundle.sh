#!/bin/bash
# Carries the benchmarks' binaries to another x86-64 Linux machine (a bigger one, say) that lacks this
# machine's Debian packages: the master and det of each build named, Debian's PostgreSQL server, and
# every shared library they link that the other machine may lack.
#
#   bench/bundle.sh pack OUT_DIR NAME=BIN_DIR...   here: OUT_DIR/bin-NAME/{determined-master,det},
#                                                  OUT_DIR/pg.tar.xz, OUT_DIR/libs.tar.xz
#   bench/bundle.sh unpack OUT_DIR                 there, as root: PostgreSQL under /usr/lib/postgresql,
#                                                  the libraries it lacks under /opt/det-bundle-lib
#
# Then, there: DET_BIN_DIR=OUT_DIR/bin-NAME python3 bench/ingest_bench.py --rounds 3 --pause 30 ...
# PostgreSQL's JIT (LLVM, 130 MB) is left out; the server runs without it.
set -euo pipefail

pack() {
  local out=$1
  shift
  local pg
  pg=$(ls -d /usr/lib/postgresql/*/ | sort -V | tail -1)
  pg=${pg%/}
  mkdir -p "$out"
  for named in "$@"; do
    local name=${named%%=*} dir=${named#*=}
    mkdir -p "$out/bin-$name"
    for b in determined-master det; do
      cp "$dir/$b" "$out/bin-$name/$b"
      strip "$out/bin-$name/$b"
    done
  done
  local pgbins="postgres initdb pg_ctl createdb psql"
  local staging
  staging=$(mktemp -d)
  # Every library linked, less the C library's own (the other machine has a newer one) and the ones
  # any machine has.
  {
    for b in "$out"/bin-*/*; do ldd "$b"; done
    for b in $pgbins; do ldd "$pg/bin/$b"; done
    for s in "$pg"/lib/*.so; do [[ $s == *llvmjit* ]] || ldd "$s"; done
  } | awk '/=> \//{print $3}' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|libcrypto|libssl)\.so|ld-linux' |
    while read -r lib; do cp -L "$lib" "$staging/"; done
  tar -C "$staging" -cJf "$out/libs.tar.xz" .
  rm -rf "$staging"
  local version=${pg##*/}
  tar -C / -cJf "$out/pg.tar.xz" --exclude=bitcode --exclude='llvmjit*' "usr/share/postgresql/$version" \
    "${pg#/}/lib" $(for b in $pgbins; do echo "${pg#/}/bin/$b"; done)
  du -sh "$out"/*
}

unpack() {
  local out=$1 libdir=/opt/det-bundle-lib
  tar -C / -xJf "$out/pg.tar.xz"
  mkdir -p "$libdir"
  local staging
  staging=$(mktemp -d)
  tar -C "$staging" -xJf "$out/libs.tar.xz"
  # Only the libraries this machine lacks: its own, often newer, stay in charge.
  for lib in "$staging"/*; do
    ldconfig -p | grep -q "^[[:space:]]*$(basename "$lib") " || cp "$lib" "$libdir/"
  done
  rm -rf "$staging"
  echo "$libdir" > /etc/ld.so.conf.d/zz-det-bundle.conf
  ldconfig
  id postgres > /dev/null 2>&1 || useradd -r -M -s /bin/sh postgres
  for b in "$out"/bin-*/* /usr/lib/postgresql/*/bin/postgres; do
    if ldd "$b" | grep 'not found'; then
      echo "$b: a library is missing" >&2
      return 1
    fi
  done
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  unpack) shift; unpack "$@" ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
