#!/usr/bin/env bash
# Builds the Python wheel from this checkout (pip wheel: scikit-build-core, host code only) with the
# build environment's Python (scripts/python_env.sh), installs it into a fresh virtual environment
# without the checkout on its path, and runs the package's acceptance example there
# (tests/python/acceptance_example.py). Checks that the wheel ships the typed stub.
# Environment: BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BUILD_DIR=$(realpath -m "${BUILD_DIR:-build}")
VENV=$BUILD_DIR/python-venv
bash scripts/python_env.sh "$VENV"

args=(-Cbuild-dir="$BUILD_DIR/python-wheel")
if command -v ccache >/dev/null; then args+=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
rm -rf "$BUILD_DIR/wheel"
"$VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -w "$BUILD_DIR/wheel" "${args[@]}" "$ROOT"
WHEEL=$(ls "$BUILD_DIR"/wheel/tmakit-*.whl)
echo "check_wheel.sh: built $(basename "$WHEEL")"
"$VENV/bin/python" - "$WHEEL" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for needed in ("tmakit/__init__.py", "tmakit/_tmakit.pyi", "tmakit/py.typed", "tmakit/torch.py"):
    assert needed in names, f"{needed} is not in the wheel: {names}"
assert any(n.startswith("tmakit/_tmakit") and n.endswith(".so") for n in names), names
PY

FRESH=$BUILD_DIR/wheel-venv
"$VENV/bin/python" -m venv --clear "$FRESH"
"$FRESH/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$WHEEL"
cd "$BUILD_DIR"  # not the checkout: `import tmakit` must find the installed wheel
"$FRESH/bin/python" -c "import tmakit, sys; assert tmakit.__file__.startswith(sys.prefix), tmakit.__file__"
"$FRESH/bin/python" "$ROOT/tests/python/acceptance_example.py"
echo "check_wheel.sh: the acceptance example ran against the installed wheel"
