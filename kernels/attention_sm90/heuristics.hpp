// The attention kernel's tuning table: which P path and which grid form the launcher takes when
// AttentionArgs leaves the choice to it (PSource::automatic, GridForm::automatic). Each rule cites
// the measurement it rests on (docs/lab/attention.md, by date and time); the kernel itself holds
// no tuning choice.
#pragma once

#include <cstdint>

#include "kernels/attention_sm90/attention.hpp"

namespace tmakit::attention_sm90 {

// P's path: the faster of the two on an H200 at 2026-12-02 01:01 (every head dim, seqlen 512 to
// 16k, causal or not, each path in its better grid form). Head dim 96: through shared memory
// non-causal (three consumer warpgroups: 1.02-1.09x of P in registers), in registers causal
// (1.04-1.45x). Head dim 128 non-causal: through shared memory up to seqlen 4096 (1.00-1.05x), in
// registers beyond (1.02x); causal in registers (160 KV rows per block: 1.05-1.19x). Head dims 64
// and 256: in registers.
inline PSource p_source_chosen(std::int64_t head_dim, std::int64_t seqlen, bool causal) {
  if (head_dim == 96) return causal ? PSource::registers : PSource::smem;
  if (head_dim == 128) return !causal && seqlen <= 4096 ? PSource::smem : PSource::registers;
  return PSource::registers;
}

// The grid form for the path that runs (p_source: smem or registers, automatic resolved):
// persistent where it measured faster at 2026-12-02 01:01. It hides a tile's fixed costs (Q's load,
// the first S, the epilogue) under the next tile's work, which pays most on short tiles; on the
// longest ones one CTA per tile is as fast or 2-4 % faster. Head dim 64: persistent up to seqlen
// 4096 (1.06-1.39x; at 8192 equal, at 16384 0.97x). Head dim 96: up to 8192 (1.02-1.56x), and at
// every length non-causal through shared memory (1.04x at 16k). Head dim 128: through shared
// memory at every length (1.02-1.25x), in registers causal at every length (1.02-1.54x) and
// non-causal up to 4096 (1.00-1.28x; 0.97-0.99x beyond). Head dim 256 has no persistent form.
inline bool persistent_grid_chosen(std::int64_t head_dim, std::int64_t seqlen, bool causal,
                                   PSource p_source = PSource::registers) {
  if (seqlen < 1) return false;
  switch (head_dim) {
    case 64: return seqlen <= 4096;
    case 96: return seqlen <= 8192 || (!causal && p_source == PSource::smem);
    case 128: return p_source == PSource::smem || causal || seqlen <= 4096;
    default: return false;
  }
}

}  // namespace tmakit::attention_sm90
