#!/usr/bin/env bash
# The Python package on a GPU machine without internet: installs the wheels carried in .whl/ into
# /tmp/site (tmakit for CPython 3.12, nvidia-cutlass-dsl 4.8.1 and what it needs beyond PyTorch,
# Triton and cuda.core), then runs the GPU tests (tests/python/gpu: the descriptors of CuTe DSL,
# Triton and cuda.core explained with tmakit) and the rest of the pytest suite against the
# installed wheel, with -v; the log goes to $OUT/python_gpu_check.log (or ./python_gpu_check.log).
#
# The DSL's libs wheel (about 92 MB) is more than one transfer carries, so it travels split in two
# (.whl/call1/*.part-aa, .whl/call2/*.part-ab; .whl/SHA256SUMS names the whole wheel), in two calls
# on the same machine:
#   bash scripts/python_gpu_check.sh stage   # with .whl/call1: keeps its part in /tmp/tmakit-wheels
#   bash scripts/python_gpu_check.sh         # with .whl/call2: joins the parts, installs, runs the tests
# scripts/python_gpu_wheels.sh prepares .whl/ on a machine with internet.
# Environment: PYTHON (default /opt/torch/.venv/bin/python3, else python3).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
STAGE=/tmp/tmakit-wheels
SITE=/tmp/site
OUT_DIR=${OUT:-.}
LOG=$OUT_DIR/python_gpu_check.log
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
mkdir -p "$STAGE" "$OUT_DIR"

# Whatever this call carried: parts, wheels, checksums.
for d in .whl .whl/call1 .whl/call2; do
  [ -d "$d" ] && find "$d" -maxdepth 1 -type f -exec cp {} "$STAGE/" \;
done
rm -f "$STAGE/pytest.rc"
if [ "${1:-}" = stage ]; then
  ls -l "$STAGE"
  exit 0
fi

{
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1
  "$PY" --version
  # Join the split wheels (name.whl.part-aa, -ab, ... -> name.whl) and check them.
  for first in "$STAGE"/*.whl.part-aa; do
    [ -e "$first" ] || continue
    whole=${first%.part-aa}
    cat "${whole}".part-* > "$whole"
  done
  if [ -f "$STAGE/SHA256SUMS" ]; then
    (cd "$STAGE" && sha256sum -c SHA256SUMS) || { echo "python_gpu_check.sh: a wheel is incomplete: carry both parts"; exit 1; }
  fi
  rm -rf "$SITE"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "$STAGE"/*.whl
  # pip --target does not run the .pth files of what it installs (nvidia-cutlass-dsl puts its
  # `cutlass` package on sys.path through one): the paths they add go on PYTHONPATH.
  pth_paths=$("$PY" -c "import site, sys; before = list(sys.path); site.addsitedir('$SITE'); print(':'.join(p for p in sys.path if p not in before))")
  export PYTHONPATH=$SITE${pth_paths:+:$pth_paths}${PYTHONPATH:+:$PYTHONPATH}
  export TMAKIT_SOURCE_DIR=$PWD
  "$PY" - <<'PY'
import importlib.metadata as md, sys
for name in ("tmakit", "nvidia-cutlass-dsl", "nvidia-cutlass-dsl-libs-base", "nvidia-cutlass-dsl-libs-cu13", "torch",
             "triton", "cuda-core", "cuda-bindings", "cupy-cuda13x", "numpy", "pytest"):
    try:
        print(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"{name} (not installed)")
import tmakit
print("tmakit from", tmakit.__file__, "| encoder fast path:", tmakit._tmakit.encode_fast_host_form())
PY
  # tmakit_capture (tools/capture) records every descriptor encoded through the driver; the CuTe
  # DSL tests read the DSL runtime's descriptor from it.
  CAPTURE_LIB=${TMAKIT_CAPTURE_LIB:-$PWD/build/libtmakit_capture.so}
  if [ -f "$CAPTURE_LIB" ]; then
    export LD_PRELOAD=$CAPTURE_LIB TMAKIT_CAPTURE=$OUT_DIR/captured_descriptors.jsonl
    rm -f "$TMAKIT_CAPTURE"
    echo "capture: $CAPTURE_LIB -> $TMAKIT_CAPTURE"
  fi
  cd /tmp  # the installed wheel, not the checkout, is what gets imported
  "$PY" -m pytest -v -s -p no:cacheprovider -rs "$TMAKIT_SOURCE_DIR/tests/python"
  echo $? > "$STAGE/pytest.rc"
  echo "pytest exit status: $(cat "$STAGE/pytest.rc")"
} 2>&1 | tee "$LOG"
exit "$(cat "$STAGE/pytest.rc" 2>/dev/null || echo 1)"
