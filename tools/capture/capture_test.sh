#!/usr/bin/env bash
# CTest capture.records_every_encode: runs capture_probe under LD_PRELOAD=libtmakit_capture.so (set by
# CTest) and checks the JSON line the capture wrote: the call, its arguments and result, and, where a
# driver answered 0, that the 128 bytes are the descriptor tmakit encodes from the same arguments.
#   capture_test.sh <capture_probe> <tmakit CLI>
set -euo pipefail
probe=$1 cli=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
result=$(TMAKIT_CAPTURE="$out" "$probe")
[ "$(wc -l < "$out")" -eq 1 ] || { echo "expected one captured line, got:"; cat "$out"; exit 1; }
line=$(cat "$out")
for want in '"call":"cuTensorMapEncodeTiled"' "\"result\":$result" '"dtype":9' '"rank":2' '"dims":[4096,4096]' \
            '"strides":[8192]' '"box":[64,128]' '"elem_strides":[1,1]' '"swizzle":3' '"bytes":"'; do
  case "$line" in *"$want"*) ;; *) echo "missing $want in: $line"; exit 1 ;; esac
done
bytes=$(sed -E 's/.*"bytes":"([0-9a-f]{256})".*/\1/' "$out")
[ ${#bytes} -eq 256 ] || { echo "no 256 hex digits in: $line"; exit 1; }
if [ "$result" = 0 ]; then  # a driver answered: its bytes are tmakit's encoding of the same arguments
  address=$(sed -E 's/.*"address":([0-9]+).*/\1/' "$out")
  want=$("$cli" encode tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 64,128 --swizzle 128B \
         --address "$(printf '0x%x' "$address")")
  [ "$bytes" = "$want" ] || { echo "captured $bytes"; echo "tmakit   $want"; exit 1; }
fi
echo "capture: recorded $(cut -c1-120 "$out")..."
