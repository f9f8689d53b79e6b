#!/usr/bin/env bash
# Build (installing missing dependencies, see build.sh) and run the whole test suite with CTest.
# GPU tests (CTest label `gpu`) skip themselves on a machine without a GPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/build.sh "$@"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"${JOBS:-2}"
