#!/usr/bin/env bash
# Compiles one kernel source as its release library does (sm_90a, the watchdog compiled out) with
# ptxas's resource report, and checks the report (ptxas_report_check.py): no spill, no local
# memory, no injected warpgroup wait in any entry function.
#   bash tests/tools/ptxas_check.sh NVCC PYTHON SOURCE NAME [nvcc include flags...]
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: $0 NVCC PYTHON SOURCE NAME [-I...]" >&2; exit 2; }
NVCC=$1 PY=$2 SRC=$3 NAME=$4
shift 4
here=$(dirname "${BASH_SOURCE[0]}")
report=$("$NVCC" -DTMAKIT_WATCHDOG=0 -O3 -DNDEBUG -std=c++20 --expt-relaxed-constexpr \
  -gencode=arch=compute_90a,code=sm_90a "$@" -Xptxas -v -c "$SRC" -o /dev/null 2>&1)
status=$?
if [ $status -ne 0 ]; then
  printf '%s\n' "$report" | grep -E "error|fatal" | head -20
  echo "$NAME: the compile failed (status $status)"
  exit 1
fi
printf '%s\n' "$report" | "$PY" "$here/ptxas_report_check.py" --name "$NAME"
