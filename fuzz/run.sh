#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz/ and runs one of them.
#
#   fuzz/run.sh TARGET [SECONDS] [libFuzzer options...]
#
#   TARGET   decode | cli | jsonl | layout | smem_store | plan   (fuzz_<TARGET>)
#   SECONDS  -max_total_time; default 600. 0 = build only.
#
# The run works on a copy of the committed seeds (fuzz/corpus/TARGET/) in a work directory
# (WORK, default a fresh mktemp -d), which is also the working directory and the artifact prefix:
# the committed corpus never grows. One fuzzing process (no -jobs/-workers). Environment:
#   BUILD_DIR  build tree (default <repo>/build-fuzz)     JOBS  build parallelism (default 2)
#   WORK       work directory (default /tmp/tmakit-fuzz-TARGET.XXXXXX)
# Exit status: libFuzzer's (0 clean; non-zero when it found a crash, leak, timeout or OOM; the
# input is then WORK/crash-*, WORK/leak-*, ...; see docs/fuzzing.md for minimizing it).
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 ]] || usage
target=${1#fuzz_}
shift
case "$target" in
  decode | cli | jsonl | layout | smem_store | plan) ;;
  -h | --help) usage ;;
  *) echo "fuzz/run.sh: unknown target '$target' (decode, cli, jsonl, layout, smem_store, plan)" >&2; exit 2 ;;
esac
seconds=600
if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
jobs=${JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DTMAKIT_BUILD_FUZZ=ON -DTMAKIT_BUILD_TESTS=OFF \
  -DTMAKIT_ENABLE_CUDA=OFF >/dev/null
cmake --build "$build" --target "fuzz_$target" -j "$jobs"
bin=$build/fuzz/fuzz_$target
[[ $seconds -gt 0 ]] || { echo "built $bin"; exit 0; }

work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/tmakit-fuzz-$target.XXXXXX")}
mkdir -p "$work/corpus"
cp -r "$root/fuzz/corpus/$target/." "$work/corpus/"

opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/")
case "$target" in
  decode) opts+=(-max_len=128) ;;
  cli) opts+=(-max_len=1024 -dict="$root/fuzz/cli.dict") ;;
  jsonl) opts+=(-max_len=2048 -dict="$root/fuzz/jsonl.dict") ;;
  layout) opts+=(-max_len=256 -dict="$root/fuzz/layout.dict") ;;
  smem_store) opts+=(-max_len=256 -dict="$root/fuzz/smem_store.dict") ;;
  plan) opts+=(-max_len=256 -dict="$root/fuzz/plan.dict") ;;
esac

echo "fuzz/run.sh: $bin for ${seconds}s in $work ($(ls "$work/corpus" | wc -l) seeds)" >&2
cd "$work"  # fuzz_cli may open files named by its input; only names in this directory are possible
set +e
"$bin" "${opts[@]}" "$@" corpus 2>&1 | tee "$work/fuzz.log"
rc=${PIPESTATUS[0]}
echo "fuzz/run.sh: exit $rc; log $work/fuzz.log; final corpus $(ls "$work/corpus" | wc -l) files," \
  "$(cat "$work"/corpus/* | wc -c) bytes" >&2
exit "$rc"
