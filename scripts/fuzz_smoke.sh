#!/usr/bin/env bash
# The fuzz smoke: builds every libFuzzer target (fuzz/, clang, ASan + UBSan: see docs/fuzzing.md)
# into build-fuzz/, replays every committed seed and regression input once (-runs=0: a fixed crash
# that returns fails here), then fuzzes each target for a few seconds on a copy of its seeds.
#   scripts/fuzz_smoke.sh [SECONDS]   (default 10 per target; 0 = replay only)
# Environment: BUILD_DIR (default build-fuzz), JOBS (default 2). Exit status: 0 clean, else the
# first target's libFuzzer status (its input is then in the work directory printed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-10}
build=$(realpath -m "${BUILD_DIR:-build-fuzz}")  # absolute: fuzz/run.sh runs the target from its work directory
targets=(decode cli jsonl layout smem_store plan)

# clang and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev), installed when missing as
# scripts/build.sh installs its packages (apt-get, sudo when not root).
if ! command -v clang++ >/dev/null || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  command -v apt-get >/dev/null || { echo "fuzz_smoke.sh: no clang with libFuzzer and no apt-get" >&2; exit 1; }
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  echo "fuzz_smoke.sh: installing clang and libclang-rt-14-dev"
  "${sudo[@]}" apt-get update >/dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DTMAKIT_BUILD_FUZZ=ON -DTMAKIT_BUILD_TESTS=OFF \
  -DTMAKIT_ENABLE_CUDA=OFF -DTMAKIT_BUILD_PYTHON=OFF -DTMAKIT_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]/#/fuzz_}"

for t in "${targets[@]}"; do
  work=$(mktemp -d "${TMPDIR:-/tmp}/tmakit-fuzz-smoke-$t.XXXXXX")
  echo "fuzz_smoke.sh: fuzz_$t: replaying fuzz/corpus/$t ($(ls "fuzz/corpus/$t" | wc -l) inputs) in $work"
  (cd "$work" && "$build/fuzz/fuzz_$t" -runs=0 "$OLDPWD/fuzz/corpus/$t") >"$work/replay.log" 2>&1 || {
    tail -30 "$work/replay.log"
    exit 1
  }
  if [[ $seconds -gt 0 ]]; then
    WORK="$work" BUILD_DIR="$build" bash fuzz/run.sh "$t" "$seconds" >"$work/smoke.log" 2>&1 || {
      tail -30 "$work/smoke.log"
      exit 1
    }
    grep -E "^(Done|stat::number_of_executed_units)" "$work/fuzz.log" | tr '\n' ' '
    echo
  fi
done
echo "fuzz_smoke.sh: every target clean"
