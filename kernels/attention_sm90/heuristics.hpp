// The attention kernel's tuning table: which P path and which grid form the launcher takes when
// AttentionArgs leaves the choice to it (PSource::automatic, GridForm::automatic). Each rule cites
// the measurement it rests on (docs/lab/attention.md, by date and time); the kernel itself holds
// no tuning choice.
#pragma once

#include <cstdint>

#include "kernels/attention_sm90/attention.hpp"

namespace tmakit::attention_sm90 {

// P's path: the faster of the two, each in its better grid form (docs/lab/attention.md, 2026-12-02
// 01:01: every head dim, seqlen 512 to 16k, causal or not). Head dim 96: through shared memory
// non-causal (three consumer warpgroups), in registers causal. Head dim 128 non-causal: through
// shared memory up to seqlen 4096, in registers beyond; causal in registers. Head dims 64 and 256: in
// registers.
inline PSource p_source_chosen(std::int64_t head_dim, std::int64_t seqlen, bool causal) {
  if (head_dim == 96) return causal ? PSource::registers : PSource::smem;
  if (head_dim == 128) return !causal && seqlen <= 4096 ? PSource::smem : PSource::registers;
  return PSource::registers;
}

// The grid form for the path that runs (p_source: smem or registers, automatic resolved):
// persistent where it measured faster (docs/lab/attention.md, 2026-12-02 01:01; since its tiles are
// handed out as CTAs free up, 2026-12-06 13:55; head dim 128 with 128-row KV blocks, 2026-12-06
// 18:42). It hides a tile's fixed costs (Q's load, the first S, the epilogue) under the next tile's
// work, which pays most on short tiles, and causal it finishes the CTAs together; on the longest
// non-causal tiles one CTA per tile is as fast or faster. Head dim 64: causal at every length,
// non-causal up to 8192. Head dim 96: up to 8192, and at every length non-causal through shared
// memory. Head dim 128: at every length. Head dim 256: up to 8192.
inline bool persistent_grid_chosen(std::int64_t head_dim, std::int64_t seqlen, bool causal,
                                   PSource p_source = PSource::registers) {
  if (seqlen < 1) return false;
  switch (head_dim) {
    case 64: return causal || seqlen <= 8192;
    case 96: return seqlen <= 8192 || (!causal && p_source == PSource::smem);
    case 128: return true;
    case 256: return seqlen <= 8192;
    default: return false;
  }
}

// Packed sequences of different lengths (AttentionArgs::cu_seqlens): P in registers, one CTA per tile,
// at every head dim and mask, the fastest form in every configuration measured (docs/lab/attention.md,
// 2026-12-06 09:31 and 09:38: 64 sequences of 128 to 8k rows). The persistent form deals its units
// statically, numbered as for the longest sequence, where one CTA per tile is handed out as SMs free up.
inline PSource packed_p_source_chosen() { return PSource::registers; }
inline bool packed_persistent_grid_chosen() { return false; }

}  // namespace tmakit::attention_sm90
