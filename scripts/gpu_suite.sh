#!/usr/bin/env bash
# The whole GPU suite in one command, on a machine with a Hopper GPU:
#   bash scripts/gpu_suite.sh [BUILD_DIR]        (default: build)
# Takes an existing build (BUILD_DIR/tests/tmakit_gpu_test_* already built, e.g. copied from a
# machine with the toolkit: the CUDA runtime is linked
# statically) or, when there is none, configures and builds one (needs what scripts/build.sh
# needs: GoogleTest, nlohmann-json, CLI11). Runs each GPU test executable directly (CTest files hold
# the building machine's absolute paths), then each under compute-sanitizer --tool memcheck,
# racecheck and synccheck. Under the sanitizer the planted-bug tests that trap on purpose are
# excluded (gtest filter below: Watchdog.ExpectTx*, Watchdog.MissingArrive, Watchdog.WrongParity,
# Watchdog.MisalignedSwizzleBuffer
# and the WatchdogChild.* they spawn; ClusterPlanted.* and the ClusterPlantedChild.* they spawn);
# Watchdog.CorrectKernelPasses and ClusterPlantedFixed.* still run. GemmLarge.* (GEMMs of up to
# 8192 x 8192 x 8192) and AttentionLarge.* (seqlen 4096, 16 heads) are left out under the sanitizer
# too, for time; GemmSmall.* and AttentionSmall.* run there. The
# multi-GPU collectives (Collectives.*, CollectivesRank.*: one process per GPU) run under the
# sanitizer from scripts/collectives_gpu.sh instead, each rank under its own sanitizer.
# Prints a table (binary, tool, passed, failed, skipped, exit status) and exits 1 on any failure.
# Environment: TIMEOUT (seconds per run, default 900), TOOLS (default "memcheck racecheck synccheck"),
# TMAKIT_SWEEP_STRIDE (under the sanitizer only, default 9: sweeps that honour it run every k-th
# configuration; the GEMM's FP8 tests leave their 4352-row cases to the plain run).
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TIMEOUT=${TIMEOUT:-900}
TOOLS=${TOOLS:-"memcheck racecheck synccheck"}
SAN_FILTER='-Collectives.*:CollectivesRank.*:GemmLarge.*:AttentionLarge.*:Watchdog.ExpectTx*:Watchdog.MissingArrive:Watchdog.WrongParity:Watchdog.MisalignedSwizzleBuffer:WatchdogChild.*:ClusterPlanted.*:ClusterPlantedChild.*'

shopt -s nullglob
bins=("$BUILD"/tests/tmakit_gpu_test_*)
if [ ${#bins[@]} -eq 0 ]; then
  echo "gpu_suite: no $BUILD/tests/tmakit_gpu_test_*; building into $BUILD" >&2
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTMAKIT_BUILD_TESTS=ON || { echo "gpu_suite: configure failed" >&2; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" || { echo "gpu_suite: build failed" >&2; exit 1; }
  bins=("$BUILD"/tests/tmakit_gpu_test_*)
fi
bins=($(for b in "${bins[@]}"; do [ -x "$b" ] && [ -f "$b" ] && echo "$b"; done))
[ ${#bins[@]} -gt 0 ] || { echo "gpu_suite: no GPU test executables in $BUILD/tests" >&2; exit 1; }

SAN=$(command -v compute-sanitizer || true)
[ -n "$SAN" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || SAN=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | sed 's/^/gpu_suite: GPU: /'

LOG=$(mktemp -d)
rows=()
fail=0
count() {  # count <log> <PASSED|FAILED|SKIPPED>: the number in gtest's summary line, 0 if none
  local n
  n=$(grep -E "^\[ +$2 +\] [0-9]+ tests?" "$1" | tail -1 | sed -E 's/^\[ +[A-Z]+ +\] ([0-9]+).*/\1/')
  echo "${n:-0}"
}
run_one() {  # run_one <binary> <tool|-> [args...]
  local bin=$1 tool=$2; shift 2
  local name; name=$(basename "$bin")
  local log="$LOG/$name.$tool.log"
  if [ "$tool" = "-" ]; then
    timeout "$TIMEOUT" "$bin" "$@" >"$log" 2>&1
  else
    TMAKIT_SWEEP_STRIDE=${TMAKIT_SWEEP_STRIDE:-9} timeout "$TIMEOUT" "$SAN" --tool "$tool" --error-exitcode 97 "$bin" "$@" >"$log" 2>&1
  fi
  local rc=$?
  local p f s; p=$(count "$log" PASSED); f=$(count "$log" FAILED); s=$(count "$log" SKIPPED)
  local errs=""
  [ "$tool" != "-" ] && errs=$(grep -E "ERROR SUMMARY: [0-9]+" "$log" | tail -1 | sed -E 's/.*ERROR SUMMARY: ([0-9]+).*/\1/')
  rows+=("$(printf '%-40s %-10s %6s %6s %7s %5s %s' "$name" "${tool/-/plain}" "$p" "$f" "$s" "$rc" "${errs:+sanitizer errors: $errs}")")
  if [ $rc -ne 0 ] || [ "$f" != 0 ]; then
    fail=1
    echo "===== FAILED: $name (${tool/-/plain}, exit $rc); last 60 lines of $log =====" >&2
    tail -60 "$log" >&2
  fi
}

tests_left() {  # tests_left <binary>: whether SAN_FILTER leaves it a test to run (listing needs no GPU)
  "$1" --gtest_list_tests --gtest_filter="$SAN_FILTER" 2>/dev/null | grep -q '^  '
}

for b in "${bins[@]}"; do run_one "$b" -; done
if [ -n "$SAN" ]; then
  for t in $TOOLS; do
    for b in "${bins[@]}"; do
      # A binary the filter leaves without a test is not started under the sanitizer (it reports a
      # program that makes no CUDA call as an error): e.g. the collectives, whose sanitizer run is
      # scripts/collectives_gpu.sh's, one process per GPU.
      tests_left "$b" || continue
      run_one "$b" "$t" --gtest_filter="$SAN_FILTER"
    done
  done
else
  echo "gpu_suite: compute-sanitizer not found: sanitizer runs not done" >&2
  fail=1
fi

printf '\n%-40s %-10s %6s %6s %7s %5s\n' binary tool passed failed skipped exit
for r in "${rows[@]}"; do echo "$r"; done
echo "logs: $LOG"
if [ $fail -ne 0 ]; then echo "gpu_suite: FAILED"; exit 1; fi
echo "gpu_suite: all passed"
