#!/usr/bin/env bash
# Build tmakit into build/ on Debian 12: installs the missing build dependencies with apt-get
# (sudo when not root), then configures and builds. Extra arguments go to the cmake configure step,
# e.g. `bash scripts/build.sh -DTMAKIT_BUILD_BENCH=ON`.
# Environment: BUILD_DIR (default build), BUILD_TYPE (default Release), JOBS (default 2), TARGETS
# (default: everything; e.g. TARGETS=tmakit builds the host library and the CLI alone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(cmake make g++ libgtest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev zlib1g-dev)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "build.sh: missing ${missing[*]} and no apt-get; install them by hand" >&2
    exit 1
  fi
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  echo "build.sh: installing ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
cmake --build "$BUILD_DIR" -j"${JOBS:-2}" ${TARGETS:+--target $TARGETS}
