// The words of a shared tile's address check (tensor_map/smem_base.hpp).
#include "tmakit/tensor_map/smem_base.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {


// "0x7f80 (128-byte aligned)": the address and the largest power of two (up to 2^20) dividing it.
std::string address_words(std::uint64_t a) {
  std::uint64_t align = 1;
  while (align < (std::uint64_t{1} << 20) && a % (align * 2) == 0) align *= 2;
  return hex_text(a) + " (" + std::to_string(align) + "-byte aligned)";
}

// "bit 7" / "bits 7-9".
std::string bit_range(int lo, int count) {
  return count == 1 ? "bit " + std::to_string(lo) : "bits " + std::to_string(lo) + "-" + std::to_string(lo + count - 1);
}

// The rule's fix with the tile's alignment in place of N.
std::string concrete_fix(std::uint32_t n) {
  const std::string a = std::to_string(n);
  return "align the shared buffer to " + a + " bytes: __align__(" + a + ") / alignas(" + a +
         ") on the shared array, a " + a + "-byte aligned offset into dynamic shared memory, or an allocator's byte "
         "alignment (CuTe DSL: SmemAllocator.allocate_tensor(..., byte_alignment=" + a + "))";
}

// What TMA does with a swizzled tile that starts `c.past_repeat` bytes into a repeat.
std::string shifted_pattern_effect(const SmemBaseCheck& c) {
  const SwizzleParams sw = swizzle_for(c.swizzle);
  const char* name = swizzle_name(c.swizzle);
  std::string s = "the " + std::string(name ? name : "?") + " swizzle repeats every " + std::to_string(c.repeat) +
                  " bytes and TMA takes its pattern from the shared address";
  if (sw.supported && sw.bits > 0) {
    // The pattern permutes 16-byte chunks within rows of 2^(M+S) bytes, row by row.
    const int row_bits = sw.base + sw.shift;
    const std::uint64_t row_bytes = std::uint64_t{1} << row_bits, rows = std::uint64_t{1} << sw.bits;
    const std::string past = std::to_string(c.past_repeat) + " bytes past a " + std::to_string(c.repeat) + "-byte boundary";
    s += " (" + bit_range(row_bits, sw.bits) + " XORed into " + bit_range(sw.base, sw.bits) + "): a tile " + past;
    if (c.address % row_bytes == 0)
      s += " is written (or, for a store or reduction, read) with its " + std::to_string(row_bytes) +
           "-byte row r swizzled as row (r + " + std::to_string((c.address >> row_bits) % rows) + ") % " +
           std::to_string(rows) + " of the pattern";
    else
      s += " does not even start on one of the pattern's " + std::to_string(row_bytes) + "-byte rows";
  }
  // Off 128 bytes the copy faults first (align128); the shifted pattern is what stays once it does not.
  s += c.past128 == 0 ? "; nothing faults, and"
                      : "; moved to a 128-byte boundary (smem.base_align128) but not to a repeat, it would not fault, and";
  return s + " a consumer that assumes the tile starts a repeat (a WGMMA or tcgen05 descriptor with base offset 0, "
             "ldmatrix or an epilogue addressing the layout's own offsets) reads other elements than it expects: "
             "silently wrong results";
}

SmemBaseFinding finding(const SmemBaseCheck& c, SmemBaseRule rule, std::uint32_t expected, std::string effect) {
  SmemBaseFinding f;
  f.rule = rule;
  f.rule_id = rule_id(rule);
  f.where = rule_info(rule).part;  // "shared tile address"
  f.expected = "a multiple of " + std::to_string(expected) + " B";
  f.actual = address_words(c.address);
  f.effect = std::move(effect);
  f.fix = concrete_fix(c.needed);
  f.what = f.where + ": needed " + f.expected + ", got " + f.actual + ": " + f.effect;
  return f;
}

}  // namespace

std::vector<SmemBaseFinding> explain_smem_base(const SmemBaseCheck& c) {
  std::vector<SmemBaseFinding> out;
  if (c.past128 != 0)
    out.push_back(finding(c, SmemBaseRule::align128, 128,
                          std::string(rule_text(SmemBaseRule::align128)) +
                              " (PTX ISA, cp.async.bulk.tensor): the copy faults with 'misaligned address' (measured on "
                              "the H100 for a 16- but not 128-byte aligned destination)"));
  if (c.past_repeat != 0) out.push_back(finding(c, SmemBaseRule::swizzle_repeat, c.repeat, shifted_pattern_effect(c)));
  return out;
}

}  // namespace tmakit
