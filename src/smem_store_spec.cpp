// Text forms of store sources and destinations (see tmakit/plan/smem_store_spec.hpp).
#include "tmakit/plan/smem_store_spec.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "tmakit/layout/notation.hpp"

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

int type_bytes(const std::string& t) {
  if (t == "f32" || t == "fp32" || t == "float" || t == "u32" || t == "s32" || t == "i32" || t == "tf32") return 4;
  if (t == "f16" || t == "fp16" || t == "half" || t == "bf16" || t == "u16") return 2;
  if (t == "fp8" || t == "e4m3" || t == "e5m2" || t == "u8" || t == "s8" || t == "i8") return 1;
  if (t == "f64" || t == "fp64" || t == "u64") return 8;
  return 0;
}

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

}  // namespace

ParsedSource parse_store_source(std::string_view text) {
  ParsedSource r;
  const std::vector<std::string> w = words(text);
  if (w.empty()) {
    r.error = "empty source; expected e.g. 'wgmma m64n128 f32->bf16'";
    return r;
  }
  const std::string kind = lower(w[0]);
  std::string in_type = "f32", out_type = "bf16";
  bool have_conv = false;
  std::int32_t n = 0, warps = 0, rep = 0;
  StoreSource s;
  std::size_t i = 1;
  FragmentKind tk = FragmentKind::wgmma_acc;
  Layout tv{};
  std::int32_t tv_rows = 0, tv_cols = 0;
  if (kind == "wgmma") {
    if (w.size() < 2) {
      r.error = "wgmma: expected a shape m64nN (e.g. m64n128)";
      return r;
    }
    const std::string sh = lower(w[1]);
    if (!starts_with(sh, "m64n") || !to_int(std::string_view(sh).substr(4), n)) {
      r.error = "wgmma: expected a shape m64nN, found '" + w[1] + "'";
      return r;
    }
    i = 2;
  } else if (kind == "mma") {
    if (w.size() < 2) {
      r.error = "mma: expected the shape m16n8";
      return r;
    }
    const std::string sh = lower(w[1]);
    if (!starts_with(sh, "m16n") || !to_int(std::string_view(sh).substr(4), n)) {
      r.error = "mma: expected m16n8 (or m16nN for N/8 repetitions along N), found '" + w[1] + "'";
      return r;
    }
    i = 2;
  } else if (kind == "tcgen05" || kind == "tcgen05.ld") {
    if (w.size() < 2) {
      r.error = "tcgen05: expected a shape 32x32b.xR, 16x64b.xR, 16x128b.xR or 16x256b.xR";
      return r;
    }
    const std::string sh = lower(w[1]);
    const std::size_t dot = sh.find(".x");
    const std::string base = sh.substr(0, dot);
    if (base == "32x32b") tk = FragmentKind::tcgen05_32x32b;
    else if (base == "16x64b") tk = FragmentKind::tcgen05_16x64b;
    else if (base == "16x128b") tk = FragmentKind::tcgen05_16x128b;
    else if (base == "16x256b") tk = FragmentKind::tcgen05_16x256b;
    else {
      r.error = "tcgen05: unknown shape '" + w[1] + "'; expected 32x32b.xR, 16x64b.xR, 16x128b.xR or 16x256b.xR";
      return r;
    }
    rep = 1;
    if (dot != std::string::npos && !to_int(std::string_view(sh).substr(dot + 2), rep)) {
      r.error = "tcgen05: expected a repetition .xR (R = 1, 2, 4, ..., 128), found '" + w[1] + "'";
      return r;
    }
    i = 2;
  } else if (kind == "tv") {
    if (w.size() < 3) {
      r.error = "tv: expected a layout and the tile, e.g. 'tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32->bf16'";
      return r;
    }
    const Parsed<Layout> pl = parse_layout(w[1]);
    if (!pl.ok) {
      r.error = "tv: layout: " + pl.error.message;
      return r;
    }
    tv = pl.value;
    const std::string t = lower(w[2]);
    const std::size_t x = t.find('x');
    if (x == std::string::npos || !to_int(std::string_view(t).substr(0, x), tv_rows) ||
        !to_int(std::string_view(t).substr(x + 1), tv_cols)) {
      r.error = "tv: expected the tile as ROWSxCOLS (e.g. 16x8), found '" + w[2] + "'";
      return r;
    }
    i = 3;
  } else {
    r.error = "unknown source kind '" + w[0] + "'; expected wgmma, mma, tcgen05 or tv";
    return r;
  }
  for (; i < w.size(); ++i) {
    const std::string x = lower(w[i]);
    const std::size_t arrow = x.find("->");
    std::int32_t v = 0;
    if (arrow != std::string::npos) {
      in_type = x.substr(0, arrow);
      out_type = x.substr(arrow + 2);
      have_conv = true;
    } else if (type_bytes(x) > 0) {
      in_type = out_type = x;
      have_conv = true;
    } else if (starts_with(x, "warps") && to_int(std::string_view(x).substr(x[5] == '=' ? 6 : 5), v)) {
      warps = v;
    } else if (starts_with(x, "n") && to_int(std::string_view(x).substr(x[1] == '=' ? 2 : 1), v)) {
      n = v;
    } else {
      r.error = "unexpected '" + w[i] + "'; expected a conversion like f32->bf16, nN (tile columns) or warpsK";
      return r;
    }
  }
  (void)have_conv;
  const int ib = type_bytes(in_type), ob = type_bytes(out_type);
  if (ib == 0 || ob == 0) {
    r.error = "unknown type in '" + in_type + "->" + out_type + "'; types: f32 f16 bf16 fp8 e4m3 e5m2 u8 u16 u32 f64";
    return r;
  }
  switch (kind[0]) {
    case 'w': s = wgmma_accumulator(n, ib); break;
    case 'm': s = mma_m16n8_accumulator(n, warps > 0 ? warps : 1, ib); break;
    case 't':
      if (kind == "tv") {
        s = tv_source(tv, tv_rows, tv_cols, ib);
      } else {
        s = tcgen05_load(tk, rep, 0, warps > 0 ? warps : 4);
        s.n = n > 0 ? n : s.cols_per_load();
      }
      break;
  }
  r.value.source = s;
  r.value.elem_bytes = ob;
  r.value.out_type = out_type;
  r.value.text = std::string(text);
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
    const std::string sw = lower(w[1]);
    Swizzle mode = Swizzle::none;
    if (sw == "none" || sw == "interleave") mode = Swizzle::none;
    else if (sw == "sw32" || sw == "32b") mode = Swizzle::b32;
    else if (sw == "sw64" || sw == "64b") mode = Swizzle::b64;
    else if (sw == "sw128" || sw == "128b") mode = Swizzle::b128;
    else if (sw == "sw128-atom32" || sw == "128b_atom_32b" || sw == "sw128_atom32") mode = Swizzle::b128_atom_32b;
    else {
      r.error = "unknown operand swizzle '" + w[1] + "'; expected none, sw32, sw64, sw128 or sw128-atom32";
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
    return r;
  }
  const Parsed<SwizzledLayout> pl = parse_swizzled_layout(text);
  if (!pl.ok) {
    r.error = "destination layout: " + pl.error.message +
              " (or give a canonical operand: kmajor|mnmajor none|sw32|sw64|sw128|sw128-atom32)";
    return r;
  }
  SwizzledLayout sl = pl.value;
  if (elements_units && sl.swizzle.bits != 0) {
    int log2e = 0;
    while ((1 << log2e) < elem_bytes) ++log2e;
    sl.swizzle.base += log2e;
  }
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
