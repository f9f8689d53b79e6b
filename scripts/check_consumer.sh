#!/usr/bin/env bash
# tmakit as a dependency: install tmakit into a temporary prefix, check the layout (nothing at the
# prefix root but bin/, include/, lib*/ and share/), then configure and build examples/consumer, a
# project of its own, against the installed package alone (find_package(tmakit) through
# CMAKE_PREFIX_PATH) and run its programs. The host program always; the CUDA program (plan_tile +
# load_tile in a kernel) whenever a CUDA compiler exists ($CUDACXX, nvcc on PATH or
# /usr/local/cuda/bin/nvcc), with a note when none does. The project sets no standard and no flag:
# the CUDA source stops with #error unless the package's targets brought nvcc -std=c++20 and
# --expt-relaxed-constexpr, and a compiler warning in either build fails the check. The CUDA program
# runs its kernel only on a compute capability 9.0 GPU and says so otherwise.
#
# The install comes from the build tree $BUILD_DIR (default build) when it has been configured
# (scripts/test.sh runs this after ctest); otherwise a host-only tree (host library and headers: no
# CLI, tests, kernels or Python) is configured and built for it. KEEP=1 keeps the temporary trees.
# Environment: BUILD_DIR, JOBS (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SRC=$PWD
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}

work=$(mktemp -d "${TMPDIR:-/tmp}/tmakit-consumer.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "check_consumer: trees kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
fail() { echo "check_consumer: FAILED: $*" >&2; exit 1; }

echo "check_consumer: $(cmake --version | head -n1)"
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  tree=$BUILD_DIR
  echo "check_consumer: installing the build tree $tree into $prefix"
else
  tree=$work/tmakit-build
  echo "check_consumer: no configured $BUILD_DIR: building the host library alone in $tree"
  cmake -S "$SRC" -B "$tree" -DCMAKE_BUILD_TYPE=Release -DTMAKIT_ENABLE_CUDA=OFF -DTMAKIT_BUILD_TESTS=OFF \
    -DTMAKIT_BUILD_BENCH=OFF -DTMAKIT_BUILD_PYTHON=OFF -DTMAKIT_BUILD_EXAMPLES=OFF -DTMAKIT_BUILD_CLI=OFF >/dev/null
  cmake --build "$tree" --target tmakit_host -j"$JOBS"
fi
cmake --install "$tree" --prefix "$prefix" >"$work/install.log"

# The layout: the usual directories only at the root; the package and the library where CMake looks.
for entry in "$prefix"/*; do
  case "$(basename "$entry")" in
    bin | include | lib | lib64 | share) ;;
    *) fail "'$(basename "$entry")' installed at the prefix root ($prefix)" ;;
  esac
done
config=$(find "$prefix" -path '*/cmake/tmakit/tmakitConfig.cmake' | head -n1)
[ -n "$config" ] || fail "no tmakitConfig.cmake installed"
[ -n "$(find "$prefix" -name 'libtmakit_host.a')" ] || fail "no libtmakit_host.a installed"
[ -f "$prefix/include/tmakit/device/load_tile.cuh" ] || fail "no include/tmakit/device/load_tile.cuh installed"
echo "check_consumer: prefix root: $(cd "$prefix" && echo *); package: ${config#"$prefix"/}"

# An installed Python module must be an importable package where it lies.
module=$(find "$prefix" -name '_tmakit*.so' | head -n1)
if [ -n "$module" ]; then
  site=$(dirname "$(dirname "$module")")
  python=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$tree/CMakeCache.txt")
  (cd "$work" && PYTHONPATH=$site "${python:-python3}" -c \
    'import sys, tmakit; assert tmakit.__file__.startswith(sys.argv[1]), tmakit.__file__' "$site") ||
    fail "the installed Python package in ${site#"$prefix"/} does not import"
  echo "check_consumer: Python package in ${site#"$prefix"/}: imports"
fi

cuda=${CUDACXX:-$(command -v nvcc || true)}
if [ -z "$cuda" ] && [ -x /usr/local/cuda/bin/nvcc ]; then cuda=/usr/local/cuda/bin/nvcc; fi
cuda_args=(-DCONSUMER_CUDA=OFF)
if [ -n "$cuda" ]; then
  cuda_args=(-DCONSUMER_CUDA=ON -DCMAKE_CUDA_COMPILER="$cuda")
  echo "check_consumer: CUDA compiler $cuda: building the .cu example too"
else
  echo "check_consumer: NOTE: no CUDA compiler (CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc):" \
    "the .cu example is skipped; the host example is built"
fi

consumer=$work/consumer-build
cmake -S "$SRC/examples/consumer" -B "$consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  "${cuda_args[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configuring examples/consumer"; }
found=$(sed -n 's/^tmakit_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
[ "$found" = "$(dirname "$config")" ] || fail "find_package(tmakit) found '$found', not the installed $(dirname "$config")"
cmake --build "$consumer" -j"$JOBS" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building examples/consumer"; }
if grep -i 'warning' "$work/build.log"; then fail "building examples/consumer printed warnings"; fi

"$consumer/plan_encode" >"$work/plan_encode.out" || { cat "$work/plan_encode.out"; fail "plan_encode"; }
grep -q 'expect_tx 16384 bytes' "$work/plan_encode.out" || { cat "$work/plan_encode.out"; fail "plan_encode: no 16384-byte plan"; }
echo "check_consumer: plan_encode ran: $(head -n1 "$work/plan_encode.out")"
if [ -n "$cuda" ]; then
  [ -x "$consumer/load_tile_kernel" ] || fail "load_tile_kernel was not built"
  "$consumer/load_tile_kernel" || fail "load_tile_kernel"
fi
echo "check_consumer: OK"
