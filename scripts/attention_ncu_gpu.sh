#!/usr/bin/env bash
# Profiles tmakit's attention kernel and cuDNN's (PyTorch's SDPA, cuDNN backend) side by side with ncu,
# one launch of each, at the configurations given, on the same inputs bench/bench_attention.py makes.
#
#   bash scripts/attention_ncu_gpu.sh LIB HEAD_DIM:SEQLEN:CAUSAL:PATH ...
#     LIB    libtmakit_attention_capi.so (bench/attention_capi.cu)
#     PATH   tmakit's kernel as its template arguments read in the mangled name: smem or registers, and
#            tile or persistent (e.g. 64:4096:no:registers:tile)
#
# Writes $OUT/attention_ncu_<hd>_<seqlen>_<causal>.txt (each kernel's SpeedOfLight, ComputeWorkloadAnalysis,
# SchedulerStats, WarpStateStats, InstructionStats and LaunchStats sections, ncu's own clocks left alone)
# and $OUT/attention_ncu_names.txt (the kernels one run launches, to find cuDNN's by name). Needs ncu,
# PyTorch with cuDNN (PY, default python3) and a GPU; nothing else is run.
set -u
LIB=$1
shift
PY=${PY:-python3}
OUT=${OUT:-.}
TIMEOUT=${TIMEOUT:-120}
BENCH="bench/bench_attention.py --lib $LIB --samples 1 --warmup 1 --backends cudnn"
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section InstructionStats --section LaunchStats"
METRICS=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
# cuDNN's kernel: the one launch name in a run that is neither tmakit's nor the reference's (matmuls,
# softmax, elementwise), found by ncu's cheapest pass
names() {
  timeout "$TIMEOUT" ncu --csv --kernel-name-base mangled --metrics gpu__time_duration.sum \
    $PY $BENCH --seqlens "$2" --head-dims "$1" --causal "$3" --grids present 2>/dev/null |
    $PY -c '
import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in sys.stdin if l.startswith("\""))]
count = collections.Counter(r["Kernel Name"] for r in rows if r.get("Metric Name") == "gpu__time_duration.sum")
for name, n in count.most_common():
    print(n, name)'
}
for config in "$@"; do
  IFS=: read -r hd seqlen causal path form <<<"$config"
  cb=$([ "$causal" = yes ] && echo 1 || echo 0)
  pb=$([ "$path" = registers ] && echo 1 || echo 0)
  fb=$([ "$form" = persistent ] && echo 1 || echo 0)
  log=$OUT/attention_ncu_${hd}_${seqlen}_${causal}.txt
  names "$hd" "$seqlen" "$causal" > "$OUT/attention_ncu_names.txt"
  cudnn=$(grep -v -i -E 'attention_kernel|gemm|softmax|elementwise|reduce|copy|fill|cutlass|cublas|xmma|vectorized|unrolled|distribution' \
    "$OUT/attention_ncu_names.txt" | grep -i -E 'sdpa|fmha|fprop|flash|attn|cudnn' | head -1 | cut -d' ' -f2-)
  {
    echo "# ncu, attention at head dim $hd, seqlen $seqlen, causal $causal: tmakit ($path, $form) and cuDNN ($cudnn)"
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    for who in tmakit cudnn; do
      if [ "$who" = tmakit ]; then
        k="regex:attention_kernelILNS_8DataTypeE9ELi${hd}ELb${cb}ELNS0_7PSourceE${pb}ELb${fb}E"
      else
        [ -n "$cudnn" ] || { echo "## cudnn: no kernel name found"; continue; }
        k="$cudnn"
      fi
      echo "## $who: ncu --clock-control none --kernel-name-base mangled -k $k --launch-skip 1 --launch-count 1 $SECTIONS --metrics $METRICS $BENCH --seqlens $seqlen --head-dims $hd --causal $causal"
      timeout "$TIMEOUT" ncu --clock-control none --kernel-name-base mangled -k "$k" --launch-skip 1 --launch-count 1 \
        $SECTIONS --metrics "$METRICS" $PY $BENCH --seqlens "$seqlen" --head-dims "$hd" --causal "$causal" 2>&1 |
        grep -v -E '^(seqlen| +[0-9]+ +[0-9]+ )'
      echo "## $who rc=${PIPESTATUS[0]}"
    done
  } > "$log" 2>&1
  echo "$config: $(grep -c 'Duration' "$log") kernels profiled ($log)"
done
