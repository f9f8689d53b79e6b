#!/usr/bin/env bash
# Prepares .whl/ for scripts/python_gpu_check.sh on a machine with internet: the tmakit wheel for
# CPython 3.12 (built with $PYTHON312, default python3.12: the GPU machine's PyTorch runs on 3.12;
# or the wheel $TMAKIT_WHEEL names), nvidia-cutlass-dsl 4.8.1 for cp312 (the newest on PyPI for it) with
# its libs wheels and protobuf, which the DSL needs beyond what the GPU machine has, and pytest. The cu13 libs
# wheel (about 92 MB) is split in two parts, so that each call carries less than 60 MiB:
#   .whl/call1/  the first part
#   .whl/call2/  the second part, every other wheel, SHA256SUMS (the whole wheels' checksums)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DSL=4.8.1
PY312=${PYTHON312:-python3.12}
W=.whl
rm -rf "$W" && mkdir -p "$W/all" "$W/call1" "$W/call2"
download() {
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$W/all" "$@"
}
download "nvidia-cutlass-dsl==$DSL" "nvidia-cutlass-dsl-libs-base==$DSL" "nvidia-cutlass-dsl-libs-core==$DSL" \
  "nvidia-cutlass-dsl-libs-cu13==$DSL" "protobuf>=4.21.12"
# pytest, in case the GPU machine's environment has none
download pytest iniconfig pluggy packaging pygments
if [ -n "${TMAKIT_WHEEL:-}" ]; then  # a cp312 tmakit wheel built already
  cp "$TMAKIT_WHEEL" "$W/all/"
else
  # libstdc++ linked dynamically, the system's one: in a process where torch has loaded the
  # system libstdc++ already, a second, static copy inside the extension keeps its own std::locale
  # facet ids; the two copies' ids clash and std::ostringstream's integer output sets badbit, so
  # decode(...).text stopped after "tiled tensor map, rank ". The GPU machine's libstdc++ is newer
  # than the one the building g++ (12) needs, so the dynamic link resolves there.
  "$PY312" -m pip wheel -q --no-deps -w "$W/all" -Cbuild-dir=build/python-wheel-cp312 .
fi
(cd "$W/all" && sha256sum ./*.whl > ../call2/SHA256SUMS)
big=$(ls "$W"/all/nvidia_cutlass_dsl_libs_cu13-*.whl)
split -n 2 -d -a 2 "$big" "$big.part-" 2>/dev/null || split -n 2 "$big" "$big.part-"
# name the parts -aa / -ab whatever split's suffixes were
parts=("$big".part-*)
mv "${parts[0]}" "$W/call1/$(basename "$big").part-aa"
mv "${parts[1]}" "$W/call2/$(basename "$big").part-ab"
rm "$big"
mv "$W"/all/*.whl "$W/call2/"
rmdir "$W/all"
du -sh "$W/call1" "$W/call2"
ls -l "$W/call1" "$W/call2"
