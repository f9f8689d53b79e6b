// A descriptor checked against a plan (see tmakit/plan/check_descriptor.hpp).
#include "tmakit/plan/check_descriptor.hpp"

#include <string_view>

#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"

namespace tmakit {
namespace {

// The rule of a field as diff() names it ("boxDim[1]" -> box).
PlanCheckRule rule_of_field(std::string_view name) {
  const std::string_view base = name.substr(0, name.find('['));
  struct Entry {
    std::string_view field;
    PlanCheckRule rule;
  };
  constexpr Entry kFields[] = {
      {"globalAddress", PlanCheckRule::address},     {"im2col", PlanCheckRule::kind},
      {"tensorRank", PlanCheckRule::rank},           {"tensorDataType", PlanCheckRule::dtype},
      {"tf32Rounding", PlanCheckRule::dtype},        {"globalDim", PlanCheckRule::dims},
      {"globalStrides", PlanCheckRule::strides},     {"boxDim", PlanCheckRule::box},
      {"boxBytes", PlanCheckRule::box},              {"elementStrides", PlanCheckRule::elem_strides},
      {"swizzle", PlanCheckRule::swizzle},           {"swizzleAtomicity", PlanCheckRule::swizzle},
      {"swizzleMode96B", PlanCheckRule::swizzle},    {"smemAlignment", PlanCheckRule::swizzle},
      {"interleave", PlanCheckRule::interleave},     {"l2Promotion", PlanCheckRule::l2_promotion},
      {"oobFill", PlanCheckRule::oob_fill},
  };
  for (const Entry& e : kFields)
    if (e.field == base) return e.rule;
  return PlanCheckRule::other_bits;
}

// boxBytes and smemAlignment: stored, but derived from other fields (the driver writes them).
bool is_derived_field(std::string_view name) { return name == "boxBytes" || name == "smemAlignment"; }

// The descriptor's stored derived field is not what its own fields imply.
bool derived_disagrees(std::string_view name, const DecodedTensorMap& d) {
  if (name == "boxBytes") return d.stored_box_bytes != box_bytes(d.params);
  return d.stored_smem_alignment != smem_alignment(d.params.swizzle);
}

// 1048576 -> "1,048,576": byte counts a reader compares by eye.
std::string grouped(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

// What a stage's barrier does when `expected` bytes are armed and `delivered` arrive: under-delivery
// hangs this wait; over-delivery completes the phase on the wrong bytes and leaves the rest owed
// to the next phase.
std::string barrier_outcome(std::uint64_t expected, std::uint64_t delivered) {
  if (delivered < expected)
    return "the barrier waits for " + std::to_string(expected - delivered) +
           " bytes that never come: it never completes (the copy hangs)";
  return "the barrier completes after " + std::to_string(expected) + " bytes while " +
         std::to_string(delivered - expected) +
         " more are still arriving: the phase completes on the wrong bytes, the consumer can read the tile "
         "before it is there, and the bytes still arriving count against the next phase, whose wait completes "
         "early or, once the count leaves its range, never (the hang)";
}

// What a differing field does to the copy. For a store or reduce plan the shared tile is the copy's
// source, written by the kernel in the plan's layout: a different swizzle reads it from other places
// (the rule's own text speaks of a load's destination and its consumer).
std::string field_effect(PlanCheckRule rule, const TmaPlan& plan) {
  if (rule == PlanCheckRule::swizzle && plan.direction != PlanDirection::load) {
    const bool red = plan.direction == PlanDirection::reduce;
    return std::string("the copy reads the shared tile through another pattern than the one the kernel wrote it in "
                       "(the plan's shared layout): ") +
           (red ? "other elements are combined into each global position, silently wrong results"
                : "other elements are stored at each global position, silently wrong results") +
           "; the tile base alignment the descriptor needs differs too";
  }
  return rule_text(rule);
}

// check.copies: the plan's box, issued another number of times per stage than the plan does.
PlanCheckFinding copies_finding(const TmaPlan& plan, std::uint64_t copy_bytes, std::uint32_t copies,
                                std::uint64_t armed, std::uint64_t delivered) {
  PlanCheckFinding x;
  x.rule = PlanCheckRule::copies;
  x.where = "copies per stage";
  x.expected = std::to_string(plan.instructions);
  x.actual = std::to_string(copies);
  x.effect = std::string(rule_text(x.rule)) + ": " + std::to_string(copies) + " copies x " + grouped(copy_bytes) +
             " B deliver " + grouped(delivered) + " bytes to a barrier armed for " + grouped(armed) + ": " +
             barrier_outcome(armed, delivered);
  return x;
}

// check.tx_limit: a phase's bytes (armed or delivered) past the mbarrier's transaction count.
PlanCheckFinding tx_limit_finding(std::uint64_t armed, std::uint64_t delivered) {
  PlanCheckFinding x;
  x.rule = PlanCheckRule::tx_limit;
  x.where = "transaction count";
  x.expected = "at most " + grouped(kMbarrierTxCountMax) + " B per phase";
  x.actual = grouped(delivered) + " B delivered, " + grouped(armed) + " B armed";
  x.effect = std::string(rule_text(x.rule));
  return x;
}

// The finding's shared words, from its rule and numbers (once they are all set).
void put_words(PlanCheckFinding& x) {
  const RuleInfo<PlanCheckRule> info = rule_info(x.rule);
  const bool kernel = x.rule == PlanCheckRule::armed_bytes || x.rule == PlanCheckRule::copies ||
                      x.rule == PlanCheckRule::tx_limit;
  x.severity = info.severity;
  x.rule_id = info.id;
  x.what = x.where + ": plan " + x.expected + ", " + (kernel ? "kernel " : "descriptor ") + x.actual + ": " + x.effect;
  x.fix = info.fix;
}

}  // namespace

bool PlanCheck::ok() const {
  for (const PlanCheckFinding& f : findings)
    if (f.is_error()) return false;
  return smem_base.empty();  // every smem.* finding is an error
}

PlanCheck check_against_plan(const TensorMapBytes& descriptor, const TmaPlan& plan, const PlanCheckOptions& options) {
  PlanCheck c;
  TensorMapParams params = plan.params;
  const DecodedTensorMap d = decode(descriptor);
  c.address_compared = params.address != 0;
  if (!c.address_compared) params.address = d.params.address;  // the plan leaves the address to the kernel
  const EncodeResult planned = encode(params);
  c.expected = planned.map;
  c.plan_expect_tx = plan.expect_tx_bytes;

  std::vector<PlanCheckFinding> notes;
  for (const FieldDifference& f : diff(c.expected, descriptor)) {
    PlanCheckFinding x;
    x.rule = rule_of_field(f.name);
    if (is_derived_field(f.name)) {
      // Follows from a field reported on its own (the box, the type, the swizzle) unless the
      // descriptor's stored value disagrees with its own fields: then it is a finding of its own.
      if (!derived_disagrees(f.name, d)) continue;
      x.rule = PlanCheckRule::derived;
    }
    x.where = f.name;
    x.expected = f.a;
    x.actual = f.b;
    x.byte_offsets = f.byte_offsets;
    x.effect = field_effect(x.rule, plan);
    if (x.rule == PlanCheckRule::derived)
      x.effect = "the descriptor's own fields imply " +
                 std::to_string(f.name == "boxBytes" ? box_bytes(d.params) : smem_alignment(d.params.swizzle)) +
                 " B; " + x.effect;
    (is_note(x.rule) ? notes : c.findings).push_back(std::move(x));
  }

  // The bytes: what one copy of this descriptor delivers, against the plan's count per instruction.
  const std::uint64_t per_instruction = plan.tx_bytes_per_instruction;
  c.copy_bytes = d.params.rank >= 1 && d.params.rank <= kMaxRank ? transaction_bytes(d.params) : 0;
  const std::uint32_t copies = options.copies ? options.copies : plan.instructions;
  c.stage_bytes = c.copy_bytes * copies;
  const bool load = plan.direction == PlanDirection::load;
  c.armed_bytes = options.armed_bytes ? options.armed_bytes : plan.expect_tx_bytes;
  if (c.copy_bytes != per_instruction) {
    PlanCheckFinding x;
    x.rule = PlanCheckRule::copy_bytes;
    x.where = "transaction bytes";
    x.expected = std::to_string(per_instruction) + " B per copy, " + std::to_string(plan.instructions) + " per stage";
    x.actual = std::to_string(c.copy_bytes) + " B per copy, " + std::to_string(copies) + " per stage";
    x.effect = std::string(rule_text(x.rule));
    if (load && plan.expect_tx_bytes != 0) {
      x.effect += ": " + std::to_string(copies) + (copies == 1 ? " copy delivers " : " copies deliver ") +
                  std::to_string(c.stage_bytes) + " B against the plan's expect_tx " + std::to_string(plan.expect_tx_bytes) +
                  " B: " + barrier_outcome(plan.expect_tx_bytes, c.stage_bytes);
      c.hangs = c.hangs || c.stage_bytes < plan.expect_tx_bytes;
    }
    c.findings.push_back(std::move(x));
  } else if (load && c.stage_bytes != plan.expect_tx_bytes) {
    // The plan's box, issued another number of times: what arrives against what the barrier is armed for.
    c.findings.push_back(copies_finding(plan, c.copy_bytes, copies, c.armed_bytes, c.stage_bytes));
    c.hangs = c.hangs || c.stage_bytes < c.armed_bytes;
  }
  if (options.armed_bytes != 0 && load) {
    // The kernel's own count, against what the plan's copies deliver to this CTA per stage.
    const std::uint64_t delivered = plan.expect_tx_bytes;
    if (options.armed_bytes != delivered) {
      PlanCheckFinding x;
      x.rule = PlanCheckRule::armed_bytes;
      x.where = "expect_tx";
      x.expected = std::to_string(delivered) + " B per stage";
      x.actual = std::to_string(options.armed_bytes) + " B per stage";
      x.effect = std::string(rule_text(x.rule)) + ": " + barrier_outcome(options.armed_bytes, delivered);
      c.hangs = c.hangs || delivered < options.armed_bytes;
      c.findings.push_back(std::move(x));
    }
  }
  if (load && (c.stage_bytes > kMbarrierTxCountMax || c.armed_bytes > kMbarrierTxCountMax)) {
    c.findings.push_back(tx_limit_finding(c.armed_bytes, c.stage_bytes));
    c.hangs = true;
  }
  for (PlanCheckFinding& n : notes) c.findings.push_back(std::move(n));
  if (options.smem_base) {
    // The plan's swizzle and alignment: the planner set smem_alignment from the same
    // tma_smem_alignment() that check_smem_base() reads, so the two never differ.
    SmemBaseCheck sb = check_smem_base(*options.smem_base, plan.params.swizzle);
    sb.needed = plan.smem_alignment;
    c.smem_base = explain_smem_base(sb);
  }
  for (PlanCheckFinding& x : c.findings) put_words(x);
  return c;
}

}  // namespace tmakit
