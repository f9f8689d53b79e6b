// Words, JSON and a picture for a store plan (see tmakit/smem_store/explain.hpp).
#include "tmakit/smem_store/explain.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tmakit/layout/notation.hpp"

namespace tmakit {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }
std::string ustr(std::uint64_t v) { return std::to_string(v); }

std::string elem_text(const TileCoord& c) { return "(" + str(c.row) + "," + str(c.col) + ")"; }

std::string slot_text(const SlotRef& s) {
  return "thread " + str(s.thread) + " value " + str(s.value) + " = element " + elem_text(s.elem) + " at byte " +
         str(static_cast<std::int64_t>(s.addr));
}

// Where a source slot lies outside the tile: a slot found by evaluation (n2 = 0), the extreme slot of
// the layout's reach (n2 = 1, n3 its tile index), or offsets beyond 64 bits (n2 = 2).
std::string out_of_tile_text(const SmemStoreRefusal& f) {
  const std::string tile = " the " + str(f.n0) + " x " + str(f.n1) + " tile";
  if (f.n2 == 2) return "the layout's offsets do not fit in 64 bits: its slots reach far outside" + tile;
  if (f.n2 == 1)
    return "thread " + str(f.a.thread) + " value " + str(f.a.value) + " maps to tile index " + str(f.n3) +
           ", outside the indices 0.." + str(f.n0 * f.n1 - 1) + " of" + tile;
  return slot_text(f.a) + " lies outside" + tile;
}

// The address bits two byte addresses differ in, e.g. "7, 10".
std::string differing_bits(std::uint64_t a, std::uint64_t b) {
  std::string r;
  const std::uint64_t x = a ^ b;
  for (int i = 0; i < 40; ++i)
    if (x & (std::uint64_t{1} << i)) r += (r.empty() ? "" : ", ") + str(i);
  return r.empty() ? "none" : r;
}

std::string source_name(const StoreSource& s) {
  std::string n = fragment_kind_name(s.kind);
  if (s.is_tcgen05()) n += ".x" + str(s.rep);
  if (s.kind == FragmentKind::wgmma_acc) n += " m64n" + str(s.n) + " accumulator";
  return n;
}

std::string dest_name(const StoreDestination& d) {
  std::string r = to_string(d.tile);
  if (d.canonical) {
    const Swizzle m = d.swizzle_mode;
    const std::string mode = m == Swizzle::none ? std::string("none")
                                                : "SW" + str(operand_row_bytes(m)) +
                                                      (m == Swizzle::b128_atom_32b ? " 32B-atom" : "");
    r += " (" + std::string(d.major == OperandMajor::k ? "K" : "MN") + "-major " + mode + " operand)";
  }
  return r;
}

// "Sw<1,4,3> (32B), Sw<2,4,3> (64B), ...": the byte swizzles of the TMA modes that have a model.
std::string hardware_swizzles() {
  std::string r;
  for (std::uint32_t v = 1; v < kSwizzleCount; ++v) {
    const auto m = static_cast<Swizzle>(v);
    if (!swizzle_for(m).supported) continue;
    r += (r.empty() ? "" : ", ") + to_string(swizzle_for(m)) + " (" + swizzle_name(m) + ")";
  }
  return r;
}

// The TMA mode whose byte swizzle `sw` is in units of elem_bytes-byte elements (CuTe's recast form:
// Sw<B,M-log2(E),S>), or Swizzle::none.
Swizzle element_unit_mode(const SwizzleParams& sw, std::int32_t elem_bytes) {
  if (elem_bytes <= 1) return Swizzle::none;
  const auto b = byte_swizzle(sw, static_cast<std::uint64_t>(elem_bytes));
  Swizzle mode = Swizzle::none;
  if (!b.ok() || !tma_swizzle_of(b.value, mode)) return Swizzle::none;
  return mode;
}

// "st.shared.b32", "stmatrix.x4": the instruction a forced_op refusal names.
std::string forced_name(const SmemStoreRefusal& f) {
  if (f.n1) return "stmatrix.sync.aligned.m8n8.x" + str(f.n0 / 4) + ".shared.b16";
  return store_op_ptx(StoreOp{StoreOpKind::st_shared, static_cast<std::int32_t>(f.n0), 0, false});
}

}  // namespace

std::string refusal_message(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  const SmemStoreRefusal& f = p.refusal;
  std::string m = "error [" + std::string(rule_id(f.rule)) + "] ";
  switch (f.rule) {
    case SmemStoreRule::ok: return "";
    case SmemStoreRule::source_not_tv_map:
      return m + "the layout has rank " + str(f.n0) +
             ": a register-ownership map is rank 2, (thread, value) -> tile index; this looks like a layout "
             "of how an instruction is issued, not of which thread holds which element";
    case SmemStoreRule::source_threads:
      return m + str(f.n0) + " threads: the store is planned per warp, the thread count must be a multiple of 32 "
             "in 32..1024";
    case SmemStoreRule::source_shape:
      return m + source_name(s) + ": n = " + str(f.n0) + ", rep = " + str(f.n1) + " is not a valid fragment shape";
    case SmemStoreRule::source_out_of_tile:
      return m + out_of_tile_text(f);
    case SmemStoreRule::source_not_injective:
      return m + "not a register-ownership map: thread " + str(f.a.thread) + " value " + str(f.a.value) +
             " and thread " + str(f.b.thread) + " value " + str(f.b.value) + " both hold element " +
             elem_text(f.a.elem) + " (a layout of how an MMA is issued, or a broadcast, not of who holds the result)";
    case SmemStoreRule::tile_mismatch:
      return m + "the source holds a " + str(f.n0) + " x " + str(f.n1) + " tile, the destination is " + str(f.n2) +
             " x " + str(f.n3);
    case SmemStoreRule::dest_elem_bytes:
      return m + "elements of " + str(f.n0) + " bytes" +
             (f.n1 ? " do not divide the swizzle's " + str(f.n1) + "-byte chunk" : std::string(" are not 1, 2, 4 or 8 bytes"));
    case SmemStoreRule::dest_base_alignment:  // n0: the base offset, an unsigned 64-bit value
      return m + "base offset " + ustr(static_cast<std::uint64_t>(f.n0)) + " is not a multiple of " + str(f.n1) +
             " bytes: every " + str(d.elem_bytes) + "-byte element must be aligned to its size";
    case SmemStoreRule::dest_swizzle_units:
      return m + to_string(d.tile.swizzle) + " moves " + str(f.n0) + "-byte chunks, but each thread holds runs of " +
             str(f.n1) + " contiguous bytes: this looks like an element-unit swizzle (CuTe's form for " +
             str(d.elem_bytes) + "-byte elements) given where tmakit expects bytes";
    case SmemStoreRule::dest_swizzle_unsupported:
      return m + "this swizzle mode (128B_ATOM_32B_FLIP_8B) has no model";
    case SmemStoreRule::capacity:
      return m + "too large: " + str(f.n0) + " x " + str(f.n1) + " (at most 256 values per thread, 32768 slots, "
             "1024 threads, tiles of 65536 elements with extents up to 1024)";
    case SmemStoreRule::dest_not_injective:
      return m + slot_text(f.a) + " and " + slot_text(f.b) + " are written to the same address";
    case SmemStoreRule::dest_size:
      if (d.base_offset >= static_cast<std::uint64_t>(f.n2))
        return m + "base offset " + ustr(d.base_offset) + " is at or beyond the " + str(f.n2) +
               " bytes of shared memory one block can have";
      if (f.n0 < 0)
        return m + "the layout reaches element offset " + str(f.n0) + ", before the buffer's start";
      return m + "the destination " +
             (f.n1 < 0 ? "spans more than " + str(f.n2) + " bytes"
                       : "reaches byte " + str(f.n1) + " (base offset included), beyond the " + str(f.n2) +
                             " bytes") +
             " of shared memory one block can have";
    case SmemStoreRule::dest_swizzle_mode: {
      const SwizzleParams sw{static_cast<int>(f.n0), static_cast<int>(f.n1), static_cast<int>(f.n2)};
      std::string r = m + to_string(sw) + " is none of the swizzles TMA, WGMMA and UMMA apply (" + hardware_swizzles() +
                      ")";
      const Swizzle mode = element_unit_mode(sw, d.elem_bytes);
      if (mode != Swizzle::none)
        r += ": it is the " + std::string(swizzle_name(mode)) + " swizzle in units of " + str(d.elem_bytes) +
             "-byte elements (CuTe's form), given where tmakit expects bytes";
      return r;
    }
    case SmemStoreRule::forced_op:
      if (f.n2 == 1)
        return m + forced_name(f) + " is not an instruction for " + str(d.elem_bytes) + "-byte elements here" +
               (f.n1 ? " (stmatrix stores 2-byte elements)" : " (st.shared stores 1, 2, 4, 8 or 16 bytes per lane, at least one element)");
      return m + forced_name(f) + " cannot store this fragment: " + width_reason(p, s, d);
  }
  return m;
}

std::string refusal_fix(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  const SmemStoreRefusal& f = p.refusal;
  switch (f.rule) {
    case SmemStoreRule::ok: return "";
    case SmemStoreRule::source_not_tv_map:
      return "give the thread-value layout ((thread modes),(value modes)):((...),(...)) whose image is the tile "
             "index of the element each register slot holds (e.g. the MMA's C/D fragment layout)";
    case SmemStoreRule::source_threads: return "store with whole warps (pad the TV layout's thread mode to 32k)";
    case SmemStoreRule::source_shape:
      if (s.kind == FragmentKind::wgmma_acc) return "use N a multiple of 8 in 8..256 (m64nNk*)";
      if (s.is_tcgen05())
        return "use R a power of two up to 128 and a tile width n that is a multiple of the " +
               str(s.cols_per_load()) + " columns one load covers";
      return "use N a multiple of 8";
    case SmemStoreRule::source_out_of_tile: return "give the tile extents the layout indexes (ROWSxCOLS)";
    case SmemStoreRule::source_not_injective:
      return "give the layout of the registers that hold the result (no stride-0 modes, one owner per element)";
    case SmemStoreRule::tile_mismatch:
      return "make the destination " + str(f.n0) + " x " + str(f.n1) + " (or store a sub-tile of matching shape)";
    case SmemStoreRule::dest_elem_bytes: return "use 1-, 2-, 4- or 8-byte elements and a swizzle chunk they divide";
    case SmemStoreRule::dest_base_alignment: {
      // Unsigned (--base takes up to 2^64 - 1), and only offsets at which the destination fits in shared
      // memory: the aligned offsets around the given one when it does there, else 0.
      constexpr std::uint64_t kLimit = smem_store_detail::kMaxDestBytes;
      const std::uint64_t base = static_cast<std::uint64_t>(f.n0);
      const std::uint64_t align = f.n1 > 0 ? static_cast<std::uint64_t>(f.n1) : 1;
      const std::uint64_t down = base - base % align, up = down < kLimit ? down + align : kLimit;  // no wrap
      auto fits = [&](std::uint64_t offset) {
        StoreDestination t = d;
        t.base_offset = offset;
        return offset < kLimit && smem_store_detail::dest_extent(t).fits;
      };
      std::string offsets = fits(down) ? ustr(down) : "";
      if (fits(up)) offsets += (offsets.empty() ? "" : " or ") + ustr(up);
      const std::string r = "place the elements at a multiple of " + str(f.n1) + " bytes, i.e. base offset ";
      if (!offsets.empty()) return r + offsets;
      if (down >= kLimit)
        return r + "0: " + ustr(base) + " is beyond the " + ustr(kLimit) +
               " bytes of shared memory one block can have (the base offset is the shared address of the "
               "destination's first element, or that address modulo the swizzle's repeat)";
      return r + "0 (at " + ustr(down) + (up != down ? " or " + ustr(up) : std::string()) +
             " the destination would reach past the " + ustr(kLimit) + " bytes of shared memory one block can have)";
    }
    case SmemStoreRule::dest_swizzle_units: {
      const SwizzleParams b = byte_swizzle(d.tile.swizzle, static_cast<std::uint64_t>(d.elem_bytes)).value;
      return "give the byte swizzle " + to_string(b) + " (= " + to_string(d.tile.swizzle) + " on " +
             str(d.elem_bytes) + "-byte elements), or pass --elements to convert";
    }
    case SmemStoreRule::dest_swizzle_unsupported: return "use 128B or 128B_ATOM_32B";
    case SmemStoreRule::capacity: return "plan a smaller tile (a sub-tile per store step)";
    case SmemStoreRule::dest_not_injective:
      return "use an injective destination layout (no stride-0 modes, no overlapping modes)";
    case SmemStoreRule::dest_size:
      if (d.base_offset >= static_cast<std::uint64_t>(f.n2))
        return "give the buffer's shared address (below " + str(f.n2) + "), or that address modulo the swizzle's "
               "repeat, as the base offset: 0 for a buffer aligned to " + ustr(d.tile.swizzle.base_alignment()) + " bytes";
      return "use non-negative strides and a destination of at most " + str(f.n2) + " bytes (check the strides' units: elements)";
    case SmemStoreRule::dest_swizzle_mode: {
      const SwizzleParams sw{static_cast<int>(f.n0), static_cast<int>(f.n1), static_cast<int>(f.n2)};
      const Swizzle mode = element_unit_mode(sw, d.elem_bytes);
      if (mode != Swizzle::none)
        return "give the byte swizzle " + to_string(swizzle_for(mode)) + " (= " + to_string(sw) + " on " +
               str(d.elem_bytes) + "-byte elements), or pass --elements to convert";
      return "use one of " + hardware_swizzles() +
             ", or pass --any-swizzle when the tile is only ever read back by your own code with this swizzle";
    }
    case SmemStoreRule::forced_op:
      return "drop --instruction for the best plan, or use a feasible one (the plan's candidates list them)";
  }
  return "";
}

std::string width_reason(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  const WidthFinding& f = p.width_limit;
  const std::string want = str(f.bytes) + "-byte st.shared";
  const std::string widest = str(p.widest_st_bytes) + " bytes is the widest st.shared: ";
  switch (f.why) {
    case WidthLimit::none: return "";
    case WidthLimit::max_vector: return widest + "no wider st.shared exists";
    case WidthLimit::other_thread:
      return widest + "a " + want + " needs the next element in the same thread, but " + slot_text(f.a) +
             " is followed at byte " + str(static_cast<std::int64_t>(f.a.addr + d.elem_bytes)) + " by element " +
             elem_text(f.b.elem) + ", held by thread " + str(f.b.thread) + " (value " + str(f.b.value) + ")";
    case WidthLimit::other_load:
      return widest + "a " + want + " would join " + slot_text(f.a) + " and value " + str(f.b.value) + " = element " +
             elem_text(f.b.elem) + " of the same thread, but they come from different " + source_name(s) +
             " loads (" + str(s.regs_per_load()) + " registers per load), which are not live together";
    case WidthLimit::not_uniform:
      return widest + "a " + want + " needs the same register pairing in every thread, but " + slot_text(f.a) +
             " is not followed by the same value as in " + slot_text(f.b) +
             " (a thread-dependent register permutation would be needed)";
    case WidthLimit::not_adjacent:
      return widest + "a " + want + " needs " + slot_text(f.a) + " to be followed by an element of the tile at byte " +
             str(static_cast<std::int64_t>(f.a.addr + d.elem_bytes)) + ", but no register slot is stored there" +
             (d.tile.swizzle.bits ? " (the swizzle moves " + str(std::int64_t{1} << d.tile.swizzle.base) +
                                        "-byte chunks independently)"
                                  : std::string());
    case WidthLimit::misaligned:
      return widest + "a " + want + " must start at a multiple of " + str(f.bytes) + " bytes, but " + slot_text(f.a) +
             " starts a run at byte " + str(static_cast<std::int64_t>(f.a.addr)) + " (address bits below " +
             str(f.bytes == 16 ? 4 : f.bytes == 8 ? 3 : f.bytes == 4 ? 2 : 1) + " are not zero)";
  }
  return "";
}

std::string conflict_reason(const SmemStorePlan& p, const StoreDestination&) {
  const ConflictFinding& c = p.conflict;
  if (!c.any()) return "";
  const int bank = static_cast<int>((c.a.addr / 4) % 32);
  std::string who = p.op.kind == StoreOpKind::stmatrix ? "the matrix rows addressed by lanes " : "lanes ";
  return "warp " + str(c.warp) + ", instruction " + str(c.instruction) + ": " + who + str(c.lane_a) + " and " +
         str(c.lane_b) + " (" + slot_text(c.a) + "; " + slot_text(c.b) + ") write different words of bank " +
         str(bank) + " in one wavefront group: " + str(c.wavefronts) + " wavefronts instead of " + str(c.ideal) +
         "; the addresses differ only in bits " + differing_bits(c.a.addr, c.b.addr) +
         ", none of them a bank bit (2..6)";
}

std::string suggested_fixes(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  std::string r;
  if (p.better_rep > 0) {
    StoreSource wider = s;
    wider.rep = p.better_rep;
    r += "fix: load with " + std::string(fragment_kind_name(s.kind)) + ".x" + str(p.better_rep) + " (" +
         str(wider.regs_per_load()) + " registers per load) instead of .x" + str(s.rep) +
         ": the runs a thread holds then allow " + str(p.better_rep_bytes) + "-byte stores\n";
  }
  if (p.has_better_swizzle)
    r += "fix: " + std::string(d.canonical ? "the operand layout with " : "the swizzle ") +
         to_string(p.better_swizzle) + " makes the store conflict-free (" + str(p.better_swizzle_wavefronts) +
         " wavefronts per warp)\n";
  if (p.conflict.any() && p.better_rep == 0 && !p.has_better_swizzle)
    r += "fix: permute the registers per thread (a thread-dependent order) so that the lanes of one wavefront "
         "group hit different banks, or change the destination layout\n";
  return r;
}

std::string describe_plan(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d,
                          const std::string& source_text) {
  std::ostringstream o;
  o << "source       " << source_text << ": " << source_name(s) << ", " << p.threads << " threads x " << p.values
    << " values, tile " << s.rows() << " x " << s.cols();
  if (s.is_tcgen05()) o << " (model only)";
  o << "\n";
  o << "destination  " << dest_name(d) << ", " << d.elem_bytes << "-byte elements, base offset " << d.base_offset
    << " (alignment " << d.tile.swizzle.base_alignment() << " B)\n";
  if (d.base_offset % d.tile.swizzle.base_alignment() != 0)
    o << "             starts " << d.base_offset % d.tile.swizzle.base_alignment() << " bytes into the swizzle's "
      << d.tile.swizzle.base_alignment() << "-byte repeat: addresses are " << to_string(d.tile.swizzle)
      << "(" << d.base_offset << " + offset), the swizzle acting on the shared address\n";
  if (!p.ok) {
    o << refusal_message(p, s, d) << "\nfix: " << refusal_fix(p, s, d) << "\n";
    return o.str();
  }
  const int vpi = p.values_per_instruction;
  o << "plan         " << store_op_ptx(p.op) << ": ";
  if (p.op.kind == StoreOpKind::stmatrix)
    o << p.op.matrices << " matrices of 8x8 b16 (" << vpi << " values per lane)";
  else
    o << p.op.bytes << " bytes per lane (" << vpi << " value" << (vpi > 1 ? "s" : "") << ")";
  o << ", " << p.instructions << " instructions per thread\n";
  o << "registers    ";
  const int show = std::min(p.instructions, 8);
  for (int i = 0; i < show; ++i) {
    o << "[";
    for (int j = 0; j < vpi; ++j) o << (j ? " " : "") << p.order[i * vpi + j];
    o << "]" << (i + 1 < show ? " " : "");
  }
  if (show < p.instructions) o << " ...";
  o << "\n";
  o << "wavefronts   " << p.wavefronts[0] << " per warp (ideal " << p.ideal_wavefronts << ")";
  bool same = true;
  for (int w = 1; w < p.warps; ++w) same = same && p.wavefronts[w] == p.wavefronts[0];
  if (!same) {
    o << "; per warp:";
    for (int w = 0; w < p.warps; ++w) o << " " << p.wavefronts[w];
  }
  o << "; all " << p.warps << " warps: " << p.total_wavefronts << " (ideal " << p.total_ideal << ")"
    << (p.total_wavefronts == p.total_ideal ? ", conflict-free" : "") << "\n";
  o << "width        " << width_reason(p, s, d) << "\n";
  if (p.conflict.any()) o << "conflict     " << conflict_reason(p, d) << "\n";
  o << suggested_fixes(p, s, d);
  o << "candidates   instruction                                     per thread  wavefronts/warp"
       " (-: more instructions, not evaluated)\n";
  for (int i = 0; i < p.num_candidates; ++i) {
    const StoreCandidate& c = p.candidates[i];
    char line[200];
    std::snprintf(line, sizeof line, "             %-47s %10d  %s\n", store_op_ptx(c.op), c.instructions,
                  !c.feasible ? "impossible"
                  : c.wavefronts < 0 ? "-"
                                     : (str(c.wavefronts) + " (ideal " + str(c.ideal) + ")").c_str());
    o << line;
  }
  return o.str();
}

nlohmann::json plan_json(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d,
                      const std::string& source_text) {
  nlohmann::json j;
  j["source"] = source_text;
  j["destination"] = to_string(d.tile);
  j["elem_bytes"] = d.elem_bytes;
  j["ok"] = p.ok;
  if (!p.ok) {
    j["errors"] = nlohmann::json::array({{{"rule", rule_id(p.refusal.rule)},
                                          {"message", refusal_message(p, s, d)},
                                          {"fix", refusal_fix(p, s, d)},
                                          {"slot_a", {{"thread", p.refusal.a.thread}, {"value", p.refusal.a.value}}},
                                          {"slot_b", {{"thread", p.refusal.b.thread}, {"value", p.refusal.b.value}}},
                                          {"numbers", {p.refusal.n0, p.refusal.n1, p.refusal.n2, p.refusal.n3}}}});
    return j;
  }
  j["instruction"] = store_op_ptx(p.op);
  j["bytes_per_lane"] = p.op.kind == StoreOpKind::stmatrix ? 4 * p.op.matrices : p.op.bytes;
  j["values_per_instruction"] = p.values_per_instruction;
  j["instructions_per_thread"] = p.instructions;
  j["order"] = std::vector<int>(p.order, p.order + p.values);
  j["wavefronts_per_warp"] = std::vector<int>(p.wavefronts, p.wavefronts + p.warps);
  j["ideal_wavefronts_per_warp"] = p.ideal_wavefronts;
  j["total_wavefronts"] = p.total_wavefronts;
  j["total_ideal"] = p.total_ideal;
  j["bank_conflicts"] = p.total_wavefronts - p.total_ideal;
  j["widest_st_shared_bytes"] = p.widest_st_bytes;
  j["width_reason"] = width_reason(p, s, d);
  if (p.conflict.any()) {
    j["conflict"] = {{"warp", p.conflict.warp},     {"instruction", p.conflict.instruction},
                     {"lane_a", p.conflict.lane_a}, {"lane_b", p.conflict.lane_b},
                     {"addr_a", p.conflict.a.addr}, {"addr_b", p.conflict.b.addr},
                     {"reason", conflict_reason(p, d)}};
  }
  nlohmann::json fixes = nlohmann::json::array();
  if (p.better_rep) fixes.push_back({{"kind", "tcgen05_repetition"}, {"rep", p.better_rep}, {"bytes", p.better_rep_bytes}});
  if (p.has_better_swizzle)
    fixes.push_back({{"kind", "swizzle"}, {"swizzle", to_string(p.better_swizzle)},
                     {"wavefronts_per_warp", p.better_swizzle_wavefronts}});
  j["fixes"] = fixes;
  nlohmann::json cands = nlohmann::json::array();
  for (int i = 0; i < p.num_candidates; ++i) {
    const StoreCandidate& c = p.candidates[i];
    cands.push_back({{"instruction", store_op_ptx(c.op)},
                     {"feasible", c.feasible},
                     {"instructions_per_thread", c.instructions},
                     {"wavefronts_per_warp", c.wavefronts}});
  }
  j["candidates"] = cands;
  return j;
}

std::string plan_svg(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d, int max_instructions) {
  std::ostringstream o;
  const int cw = 30, ch = 18, left = 60;
  struct Word {
    int lane;
    bool conflict;
  };
  std::vector<std::pair<std::string, std::map<std::uint64_t, Word>>> panels;  // word index -> lane
  if (p.ok) {
    const int vpi = p.values_per_instruction;
    const int n = std::min(p.instructions, max_instructions);
    for (int i = 0; i < n; ++i) {
      std::map<std::uint64_t, Word> words;
      // (lane, address, bytes, group) of every access of this instruction in warp 0
      struct Acc {
        int lane;
        std::uint64_t addr;
        int bytes;
        int group;
      };
      std::vector<Acc> acc;
      if (p.op.kind == StoreOpKind::st_shared) {
        const int gl = lanes_per_wavefront_group(p.op.bytes);
        for (int l = 0; l < 32; ++l) {
          const TileCoord c = s.coord(l, p.order[i * vpi]);
          acc.push_back({l, d.byte_address(c.row, c.col), p.op.bytes, l / gl});
        }
      } else {
        for (int j = 0; j < p.op.matrices; ++j)
          for (int r = 0; r < 8; ++r) {
            const int va = p.order[i * vpi + 2 * j], vb = p.order[i * vpi + 2 * j + 1];
            const StmatrixRow rs = stmatrix_row_source(r, p.op.trans);
            const TileCoord c = s.coord(rs.lane, rs.second ? vb : va);
            acc.push_back({8 * j + r, d.byte_address(c.row, c.col), 16, j});
          }
      }
      std::map<std::pair<int, int>, std::set<std::uint64_t>> bank_words;  // (group, bank) -> words
      for (const Acc& a : acc)
        for (std::uint64_t w = a.addr / 4; w <= (a.addr + a.bytes - 1) / 4; ++w) bank_words[{a.group, int(w % 32)}].insert(w);
      for (const Acc& a : acc)
        for (std::uint64_t w = a.addr / 4; w <= (a.addr + a.bytes - 1) / 4; ++w)
          words[w] = {a.lane, bank_words[{a.group, int(w % 32)}].size() > 1};
      panels.push_back({std::string(store_op_ptx(p.op)) + ", warp 0, instruction " + str(i), words});
    }
  }
  int height = 40;
  for (const auto& pn : panels) {
    std::set<std::uint64_t> lines;
    for (const auto& [w, x] : pn.second) lines.insert(w / 32);
    height += 40 + static_cast<int>(lines.size()) * ch;
  }
  const int width = left + 32 * cw + 20;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"monospace\" font-size=\"10\">\n";
  o << "<text x=\"4\" y=\"14\" font-size=\"12\">" << (p.ok ? "lane writing each 4-byte word (columns: banks 0..31; "
                                                            "rows: 128-byte lines; red: bank conflict)"
                                                          : "refused: no plan")
    << "</text>\n";
  int y = 30;
  for (const auto& pn : panels) {
    o << "<text x=\"4\" y=\"" << y + 12 << "\" font-size=\"11\">" << pn.first << "</text>\n";
    y += 18;
    for (int b = 0; b < 32; ++b)
      o << "<text x=\"" << left + b * cw + 8 << "\" y=\"" << y + 10 << "\">" << b << "</text>\n";
    y += 14;
    std::set<std::uint64_t> lines;
    for (const auto& [w, x] : pn.second) lines.insert(w / 32);
    for (std::uint64_t line : lines) {
      o << "<text x=\"4\" y=\"" << y + 13 << "\">+" << line * 128 << "</text>\n";
      for (int b = 0; b < 32; ++b) {
        const auto it = pn.second.find(line * 32 + b);
        if (it == pn.second.end()) continue;
        const int hue = (it->second.lane * 360) / 32;
        o << "<rect x=\"" << left + b * cw << "\" y=\"" << y << "\" width=\"" << cw - 1 << "\" height=\"" << ch - 1
          << "\" fill=\"hsl(" << hue << ",60%,80%)\" stroke=\"" << (it->second.conflict ? "red" : "none")
          << "\" stroke-width=\"2\"/><text x=\"" << left + b * cw + 4 << "\" y=\"" << y + 13 << "\">L"
          << it->second.lane << "</text>\n";
      }
      y += ch;
    }
    y += 8;
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace tmakit
