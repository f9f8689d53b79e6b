// Text forms of store sources and destinations (see tmakit/smem_store/spec.hpp).
#include "tmakit/smem_store/spec.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit {
namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Splits on spaces, but keeps a parenthesized layout (which may contain spaces) in one word.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (std::isspace(static_cast<unsigned char>(c)) && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool to_int(std::string_view s, std::int32_t& v) {
  if (s.empty() || s.size() > 9) return false;
  v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  return true;
}

// Bytes of a register or element type: a tensor-map data type (parse_name, the one vocabulary of
// every command: u8, fp8, e4m3, f16, bf16, f32, tf32, s32, f64, UINT8, FLOAT32, ...; element_bits /
// 8). 0 when unknown or not a whole number of bytes (the packed sub-byte types).
int type_bytes(const std::string& t) {
  DataType d{};
  if (!parse_name(t, d)) return 0;
  const std::uint32_t bits = element_bits(d);
  return bits % 8 == 0 ? static_cast<int>(bits / 8) : 0;
}

std::string accepted_types() {
  return "a tensor-map data type of whole bytes (" + valid_names(NameSet::data_type) +
         "; the packed sub-byte types have no register-to-shared store)";
}

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

// Bounds on the numbers of a source, far above anything the planner accepts (it refuses tiles over
// 65536 elements, 1024 threads, .x128) but low enough that the source and operand models' int32
// arithmetic (32 x warps rows, 8 x rep columns, rows x 128 ...) cannot overflow before it refuses.
constexpr std::int32_t kMaxSourceNumber = std::int32_t{1} << 20;
constexpr std::int32_t kMaxSourceWarps = 1024;

// Why a word of a source would change nothing for its kind (nullptr when it would): a wgmma
// accumulator is always one warpgroup (4 warps); a tv source's threads and tile are its layout's
// and its ROWSxCOLS.
const char* no_effect(const std::string& kind, const std::string& word) {
  const bool warps_word = starts_with(word, "warps"), n_word = word.size() > 1 && word[0] == 'n' &&
                                                                 std::isdigit(static_cast<unsigned char>(word[word[1] == '=' ? 2 : 1]));
  if (kind == "wgmma" && warps_word) return "a wgmma accumulator is always 4 warps (one warpgroup); warpsK changes nothing";
  if (kind == "tv" && warps_word) return "a tv source's threads are its layout's thread mode; warpsK changes nothing";
  if (kind == "tv" && n_word) return "a tv source's tile is its ROWSxCOLS; nN changes nothing";
  return nullptr;
}

// What the words of a source say, as parse_store_source reads them: the kind and its shape, then the
// options (conversion, nN, warpsK).
struct SourceWords {
  std::string kind;
  std::string in_type = "f32", out_type = "bf16";
  std::int32_t n = 0, warps = 0, rep = 0;
  bool n_given = false;  // the tile width is set: a (further) nN would be a second one
  FragmentKind tk = FragmentKind::wgmma_acc;
  Layout tv{};
  std::int32_t tv_rows = 0, tv_cols = 0;
  std::size_t options = 1;  // the index of the first option word
};

// The shape of each kind (the words after the kind): an error message, empty when it reads.
std::string read_wgmma_shape(const std::vector<std::string>& w, SourceWords& s) {
  if (w.size() < 2) return "wgmma: expected a shape m64nN (e.g. m64n128)";
  const std::string sh = lower(w[1]);
  if (!starts_with(sh, "m64n") || !to_int(std::string_view(sh).substr(4), s.n))
    return "wgmma: expected a shape m64nN, found '" + w[1] + "'";
  if (s.n > kMaxSourceNumber)
    return "'" + w[1] + "': N is at most " + std::to_string(kMaxSourceNumber) + " here (wgmma takes 8..256)";
  if (s.n == 0) return "'" + w[1] + "': N = 0 is an empty tile (wgmma takes N = 8..256, a multiple of 8)";
  s.n_given = true;  // the shape is the tile width
  s.options = 2;
  return {};
}

std::string read_mma_shape(const std::vector<std::string>& w, SourceWords& s) {
  if (w.size() < 2) return "mma: expected the shape m16n8";
  const std::string sh = lower(w[1]);
  if (!starts_with(sh, "m16n") || !to_int(std::string_view(sh).substr(4), s.n))
    return "mma: expected m16n8 (or m16nN for N/8 repetitions along N), found '" + w[1] + "'";
  if (s.n > kMaxSourceNumber)
    return "'" + w[1] + "': N is at most " + std::to_string(kMaxSourceNumber) + " (tiles hold at most 65536 elements)";
  if (s.n == 0) return "'" + w[1] + "': N = 0 is an empty tile (mma m16nN takes N a multiple of 8)";
  s.n_given = s.n != 8;  // m16n8 is the instruction (nN then gives the width); m16nN is the width itself
  s.options = 2;
  return {};
}

std::string read_tcgen05_shape(const std::vector<std::string>& w, SourceWords& s) {
  if (w.size() < 2) return "tcgen05: expected a shape 32x32b.xR, 16x64b.xR, 16x128b.xR or 16x256b.xR";
  const std::string sh = lower(w[1]);
  const std::size_t dot = sh.find(".x");
  const std::string base = sh.substr(0, dot);
  if (base == "32x32b") s.tk = FragmentKind::tcgen05_32x32b;
  else if (base == "16x64b") s.tk = FragmentKind::tcgen05_16x64b;
  else if (base == "16x128b") s.tk = FragmentKind::tcgen05_16x128b;
  else if (base == "16x256b") s.tk = FragmentKind::tcgen05_16x256b;
  else return "tcgen05: unknown shape '" + w[1] + "'; expected 32x32b.xR, 16x64b.xR, 16x128b.xR or 16x256b.xR";
  s.rep = 1;
  if (dot != std::string::npos && !to_int(std::string_view(sh).substr(dot + 2), s.rep))
    return "tcgen05: expected a repetition .xR (R = 1, 2, 4, ..., 128), found '" + w[1] + "'";
  if (s.rep == 0) return "'" + w[1] + "': R = 0 loads nothing (tcgen05.ld takes .x1, .x2, .x4, ..., .x128)";
  if (s.rep > kMaxSourceNumber)
    return "'" + w[1] + "': R is at most " + std::to_string(kMaxSourceNumber) + " here (tcgen05.ld takes 1, 2, 4, ..., 128)";
  s.options = 2;
  return {};
}

std::string read_tv_shape(const std::vector<std::string>& w, SourceWords& s) {
  if (w.size() < 3) return "tv: expected a layout and the tile, e.g. 'tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32->bf16'";
  const Parsed<Layout> pl = parse_layout(w[1]);
  if (!pl.ok) return "tv: layout: " + pl.error.message;
  s.tv = pl.value;
  const std::string t = lower(w[2]);
  const std::size_t x = t.find('x');
  if (x == std::string::npos || !to_int(std::string_view(t).substr(0, x), s.tv_rows) ||
      !to_int(std::string_view(t).substr(x + 1), s.tv_cols))
    return "tv: expected the tile as ROWSxCOLS (e.g. 16x8), found '" + w[2] + "'";
  if (s.tv_rows == 0 || s.tv_cols == 0) return "'" + w[2] + "': an empty tile (ROWS and COLS are at least 1)";
  if (s.tv_rows > kMaxSourceNumber || s.tv_cols > kMaxSourceNumber)
    return "'" + w[2] + "': the tile's extents are at most " + std::to_string(kMaxSourceNumber) +
           " (tiles hold at most 65536 elements)";
  s.options = 3;
  return {};
}

// The options after the shape: a conversion (f32->bf16, or one type for both), nN, warpsK; each at
// most once, since a second one would silently override the first.
std::string read_options(const std::vector<std::string>& w, SourceWords& s) {
  bool type_given = false, warps_given = false;
  for (std::size_t i = s.options; i < w.size(); ++i) {
    const auto twice = [&](bool& given, const char* what) {
      if (!given) {
        given = true;
        return std::string();
      }
      return "'" + w[i] + "': " + what + " given twice; give it once";
    };
    const std::string x = lower(w[i]);
    const std::size_t arrow = x.find("->");
    std::int32_t v = 0;
    if (arrow != std::string::npos || type_bytes(x) > 0) {
      if (std::string e = twice(type_given, "the conversion"); !e.empty()) return e;
    }
    if (arrow != std::string::npos) {
      s.in_type = x.substr(0, arrow);
      s.out_type = x.substr(arrow + 2);
    } else if (type_bytes(x) > 0) {
      s.in_type = s.out_type = x;
    } else if (const char* why = no_effect(s.kind, x); why != nullptr) {
      return "'" + w[i] + "': " + why;
    } else if (starts_with(x, "warps") && to_int(std::string_view(x).substr(x[5] == '=' ? 6 : 5), v)) {
      if (v > kMaxSourceWarps || v == 0)
        return "'" + w[i] + "': " + (v == 0 ? std::string("at least 1 warp") : "at most " + std::to_string(kMaxSourceWarps) + " warps here") + " (a block has at most 32)";
      if (std::string e = twice(warps_given, "warpsK"); !e.empty()) return e;
      s.warps = v;
    } else if (starts_with(x, "n") && to_int(std::string_view(x).substr(x[1] == '=' ? 2 : 1), v)) {
      if (v > kMaxSourceNumber)
        return "'" + w[i] + "': n is at most " + std::to_string(kMaxSourceNumber) + " (tiles hold at most 65536 elements)";
      if (v == 0) return "'" + w[i] + "': n = 0 is an empty tile (n is the tile's columns, at least 1)";
      bool n_option = s.n_given;
      if (std::string e = twice(n_option, "the tile width nN"); !e.empty()) return e;
      s.n = v;
      s.n_given = true;
    } else {
      return "unexpected '" + w[i] + "'; expected a conversion like f32->bf16, nN (tile columns) or warpsK";
    }
  }
  return {};
}

// The source the words describe (they have read without error).
StoreSource source_of(const SourceWords& s) {
  switch (s.kind[0]) {
    case 'w': return wgmma_accumulator(s.n);
    case 'm': return mma_m16n8_accumulator(s.n, s.warps > 0 ? s.warps : 1);
    default:
      if (s.kind == "tv") return tv_source(s.tv, s.tv_rows, s.tv_cols);
      StoreSource t = tcgen05_load(s.tk, s.rep, 0, s.warps > 0 ? s.warps : 4);
      t.n = s.n_given ? s.n : t.cols_per_load();
      return t;
  }
}

}  // namespace

ParsedSource parse_store_source(std::string_view text) {
  ParsedSource r;
  const std::vector<std::string> w = words(text);
  if (w.empty()) {
    r.error = "empty source; expected e.g. 'wgmma m64n128 f32->bf16'";
    return r;
  }
  SourceWords s;
  s.kind = lower(w[0]);
  if (s.kind == "wgmma") r.error = read_wgmma_shape(w, s);
  else if (s.kind == "mma") r.error = read_mma_shape(w, s);
  else if (s.kind == "tcgen05" || s.kind == "tcgen05.ld") r.error = read_tcgen05_shape(w, s);
  else if (s.kind == "tv") r.error = read_tv_shape(w, s);
  else r.error = "unknown source kind '" + w[0] + "'; expected wgmma, mma, tcgen05 or tv";
  if (r.error.empty()) r.error = read_options(w, s);
  if (!r.error.empty()) return r;
  // the register type only has to be a type: a plan depends on the element size in shared memory
  const int ib = type_bytes(s.in_type), ob = type_bytes(s.out_type);
  if (ib == 0 || ob == 0) {
    r.error = "unknown type '" + (ib == 0 ? s.in_type : s.out_type) + "' in '" + s.in_type + "->" + s.out_type +
              "'; expected " + accepted_types();
    return r;
  }
  r.value.source = source_of(s);
  r.value.elem_bytes = ob;
  r.ok = true;
  return r;
}

ParsedDestination parse_store_destination(std::string_view text, std::int32_t rows, std::int32_t cols,
                                          std::int32_t elem_bytes, std::uint64_t base_offset, bool elements_units) {
  ParsedDestination r;
  const std::vector<std::string> w = words(text);
  if (w.size() == 2 && (lower(w[0]) == "kmajor" || lower(w[0]) == "mnmajor" || lower(w[0]) == "k" ||
                        lower(w[0]) == "mn" || lower(w[0]) == "k-major" || lower(w[0]) == "mn-major")) {
    const std::string m = lower(w[0]);
    const OperandMajor major = (m[0] == 'k') ? OperandMajor::k : OperandMajor::mn;
    // the swizzle mode: the library's names (none, 32B, 64B, 128B, 128B_ATOM_32B, ...; parse_name) or
    // the short operand spellings swN[-atom32]
    std::string sw = lower(w[1]);
    constexpr const char* kShort[][2] = {
        {"sw32", "32B"}, {"sw64", "64B"}, {"sw128", "128B"}, {"sw128-atom32", "128B_ATOM_32B"}, {"sw128_atom32", "128B_ATOM_32B"}};
    for (const auto& e : kShort)
      if (sw == e[0]) sw = e[1];
    Swizzle mode = Swizzle::none;
    if (!parse_name(sw, mode) || operand_row_bytes(mode) == 0) {
      r.error = "unknown operand swizzle '" + w[1] + "'; expected none, sw32, sw64, sw128 or sw128-atom32 (or " +
                "NONE, 32B, 64B, 128B, 128B_ATOM_32B; the other swizzle modes have no operand layout)";
      return r;
    }
    const DestinationResult d = gmma_operand(major, mode, elem_bytes, rows, cols, base_offset);
    if (!d.ok) {
      r.error = "the " + std::string(major == OperandMajor::k ? "K" : "MN") + "-major " + w[1] + " operand layout of a " +
                std::to_string(rows) + " x " + std::to_string(cols) + " tile of " + std::to_string(elem_bytes) +
                "-byte elements needs rows (MN) a multiple of " + std::to_string(d.need_mn) +
                " and columns (K) a multiple of " + std::to_string(d.need_k);
      return r;
    }
    r.value = d.value;
    r.ok = true;
    if (elements_units) r.elements_no_effect = "a canonical operand's swizzle is in bytes already: nothing to convert";
    return r;
  }
  const Parsed<SwizzledLayout> pl = parse_swizzled_layout(text);
  if (!pl.ok) {
    r.error = "destination layout: " + pl.error.message +
              " (or give a canonical operand: kmajor|mnmajor none|sw32|sw64|sw128|sw128-atom32)";
    return r;
  }
  SwizzledLayout sl = pl.value;
  if (elements_units && sl.swizzle.bits == 0) r.elements_no_effect = "the layout has no swizzle to convert";
  if (elements_units) sl.swizzle = byte_swizzle(sl.swizzle, static_cast<std::uint64_t>(elem_bytes)).value;
  const std::int64_t size = sl.layout.size();
  std::int32_t lr = rows, lc = cols;
  if (size != static_cast<std::int64_t>(rows) * cols) {
    r.error = "destination layout " + to_string(sl) + " has " + std::to_string(size) + " elements, the source tile " +
              std::to_string(rows) + " x " + std::to_string(cols) + " = " +
              std::to_string(static_cast<std::int64_t>(rows) * cols);
    return r;
  }
  r.value = smem_destination(sl, elem_bytes, lr, lc, base_offset);
  r.ok = true;
  return r;
}

}  // namespace tmakit
