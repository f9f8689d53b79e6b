#!/usr/bin/env bash
# DeepGEMM's block-scaled FP8 GEMM on its own shapes, built and timed on a machine with a Hopper
# GPU, so that bench_gemm's block-scaled rows can be read beside it from the same device call
# (docs/gemm.md). None of DeepGEMM's code is part of this repository: give a copy fetched for the
# run, a checkout with its submodules (third-party/cutlass, third-party/fmt; include/ of each is
# enough), as a folder or as a .tar.xz whose top folder holds setup.py.
#   bash scripts/deepgemm_fp8_gpu.sh DEEPGEMM [bench/deepgemm_fp8.py arguments, e.g. --shapes 64x2112x7168]
# Builds DeepGEMM's extension with the system g++ (its Python environment's compiler crashed in
# libstdc++'s codecvt at the first JIT compile: docs/lab/gemm.md, 2026-12-07 07:48) into $WORK, its
# JIT cache there too, then runs bench/deepgemm_fp8.py with DeepGEMM's configurations printed.
# Measured with DeepGEMM 2.6.1 (54e2261, CUTLASS f3fde58) against torch 2.11 (CUDA 13.0).
# Environment: PYTHON (default /opt/torch/.venv/bin/python), CUDA_HOME (default /usr/local/cuda),
# WORK (default /tmp/tmakit_deepgemm), SKIP_BUILD=1 (reuse WORK's build), PY_WRAP (a command the
# Python run starts under, e.g. "ncu --clock-control base -k regex:fp8_gemm -c 1 -o FILE").
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 1 ] || { echo "usage: $0 DEEPGEMM (folder or .tar.xz) [bench/deepgemm_fp8.py arguments]" >&2; exit 2; }
SRC_IN=$1
shift
PY=${PYTHON:-/opt/torch/.venv/bin/python}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
WORK=${WORK:-/tmp/tmakit_deepgemm}
HERE=$(pwd)
fail() { echo "deepgemm_fp8_gpu: $*" >&2; exit 1; }
[ -x "$PY" ] || fail "no Python at $PY (set PYTHON)"
[ -x "$CUDA_HOME/bin/nvcc" ] || fail "no nvcc at $CUDA_HOME/bin/nvcc (set CUDA_HOME)"
export PATH="$CUDA_HOME/bin:$PATH" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CUDA_HOME/lib64"
export CC=gcc CXX=g++ MAX_JOBS=${MAX_JOBS:-16}
export DG_JIT_CACHE_DIR="$WORK/cache" DG_JIT_NVCC_COMPILER="$CUDA_HOME/bin/nvcc"
export DG_USE_LOCAL_VERSION=0 DG_FORCE_BUILD=1  # no git for the version, no prebuilt wheel download
SRC="$WORK/src"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  rm -rf "$SRC" && mkdir -p "$SRC" "$DG_JIT_CACHE_DIR" || fail "cannot make $SRC"
  if [ -d "$SRC_IN" ]; then
    cp -r "$SRC_IN"/. "$SRC"/ || fail "cannot copy $SRC_IN"
  else
    tar -xJf "$SRC_IN" -C "$SRC" --strip-components=1 || fail "cannot unpack $SRC_IN"
  fi
  [ -f "$SRC/setup.py" ] || fail "no setup.py in $SRC_IN"
  for d in third-party/cutlass/include third-party/fmt/include; do
    [ -d "$SRC/$d" ] || fail "$SRC_IN lacks $d (its submodules)"
  done
  echo "== building DeepGEMM ($("$PY" -c 'import torch; print("torch", torch.__version__)'), $(g++ --version | head -1))"
  (cd "$SRC" && "$PY" setup.py build > "$WORK/build.log" 2>&1) || { tail -30 "$WORK/build.log"; fail "the build failed ($WORK/build.log)"; }
fi
LIB=$(ls -d "$SRC"/build/lib.* 2>/dev/null | head -1)
[ -n "$LIB" ] || fail "no build in $SRC (run without SKIP_BUILD)"
export PYTHONPATH="$LIB${PYTHONPATH:+:$PYTHONPATH}"
cd "$WORK" || fail "cd $WORK"  # not from $SRC: its deep_gemm/ (without the extension) would shadow the build
export DG_PRINT_CONFIGS=1
${PY_WRAP:-} "$PY" -u "$HERE/bench/deepgemm_fp8.py" "$@"
