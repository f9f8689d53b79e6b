#!/usr/bin/env bash
# Build (installing missing dependencies, see build.sh) and run the whole test suite with CTest,
# the Python package's pytest suite included (CTest test python.pytest, run with the virtual
# environment build/python-venv that scripts/python_env.sh sets up with pip); then build the wheel
# and run the acceptance example against it in a fresh environment (scripts/check_wheel.sh).
# After the tests, scripts/check_consumer.sh installs the build into a temporary prefix and builds
# examples/consumer (C++, and CUDA when a CUDA compiler exists) against the installed package.
# GPU tests (CTest label `gpu`, pytest tests/python/gpu) skip themselves on a machine without a GPU.
# Then the fuzz smoke (scripts/fuzz_smoke.sh: every fuzz target under ASan + UBSan, its reproducers
# replayed, a few seconds of fuzzing each). TMAKIT_PYTHON=0 leaves the Python package out,
# TMAKIT_FUZZ=0 the fuzz smoke.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
python_args=()
if [ "${TMAKIT_PYTHON:-1}" != 0 ]; then
  bash scripts/python_env.sh "$BUILD_DIR/python-venv"
  python_args=(-DTMAKIT_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(realpath -s "$BUILD_DIR/python-venv/bin/python")")
else
  python_args=(-DTMAKIT_BUILD_PYTHON=OFF)
fi
bash scripts/build.sh "${python_args[@]}" "$@"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-2}"
BUILD_DIR=$BUILD_DIR bash scripts/check_consumer.sh
# the fuzz smoke: every fuzz target built with ASan + UBSan, its committed reproducers replayed (a
# fixed crash that returns fails here), a few seconds of fuzzing each (TMAKIT_FUZZ=0 leaves it out)
if [ "${TMAKIT_FUZZ:-1}" != 0 ]; then
  BUILD_DIR="$BUILD_DIR-fuzz" bash scripts/fuzz_smoke.sh "${TMAKIT_FUZZ_SECONDS:-5}"
fi
if [ "${TMAKIT_PYTHON:-1}" != 0 ]; then
  BUILD_DIR=$BUILD_DIR bash scripts/check_wheel.sh
fi
