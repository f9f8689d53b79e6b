// Text forms of the planner's inputs: see tmakit/plan/notation.hpp.
#include "tmakit/plan/notation.hpp"

#include <cstdint>
#include <cstdio>

#include "tmakit/layout/notation.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit {
namespace {

// offset= moves the base `offset` elements past the allocation that align= / addr= describe. With the
// address known, the view's alignment is its address's; without, what both the allocation's
// alignment and the offset's bytes keep (a lower bound: two equal alignments may sum to more).
bool apply_view_offset(GlobalTensor& g, std::uint64_t offset, std::string& error) {
  const std::uint64_t bits = is_valid(g.dtype) ? static_cast<std::uint64_t>(element_bits(g.dtype)) : 8;
  if (offset > (std::uint64_t{1} << 40)) {
    error = "option 'offset=" + std::to_string(offset) + "': at most 2^40 elements";
    return false;
  }
  const std::uint64_t offset_bits = offset * bits;
  g.view_offset = static_cast<std::int64_t>(offset);
  if (offset_bits % 8 != 0) {  // a packed type's view that starts inside a byte
    g.base_alignment = 0;
    return true;
  }
  const std::uint64_t bytes = offset_bits / 8;
  if (g.address != 0) {
    g.address += bytes;
    g.base_alignment = known_alignment(g.address);
    return true;
  }
  const std::uint64_t keeps = bytes == 0 ? 1024 : known_alignment(bytes);
  if (g.base_alignment > keeps) g.base_alignment = keeps;
  return true;
}

}  // namespace

ParsedGlobalTensor parse_global_tensor(std::string_view text) {
  ParsedGlobalTensor r;
  std::string_view s = trim_space(text);
  const std::size_t sp = s.find_first_of(" \t");
  if (sp == std::string_view::npos) {
    r.error = "expected '<dtype> <layout>', e.g. 'bf16 (4096,4096):(4096,1)'";
    return r;
  }
  std::string why;
  if (!parse_name(s.substr(0, sp), r.value.dtype, &why)) {
    r.error = "dtype '" + std::string(s.substr(0, sp)) + "': " + why;
    return r;
  }
  s = trim_space(s.substr(sp));
  // trailing key=value options, each at most once: align= and addr= describe the allocation,
  // offset= how many elements past its start the tensor begins (a view's storage offset)
  bool seen_align = false, seen_addr = false, seen_offset = false;
  std::uint64_t offset = 0;
  for (;;) {
    const std::size_t last = s.find_last_of(" \t");
    const std::string_view tok = last == std::string_view::npos ? s : s.substr(last + 1);
    const std::size_t eq = tok.find('=');
    if (eq == std::string_view::npos || last == std::string_view::npos) break;
    const std::string_view key = tok.substr(0, eq), val = tok.substr(eq + 1);
    bool* seen = key == "align" ? &seen_align : key == "addr" ? &seen_addr : key == "offset" ? &seen_offset : nullptr;
    if (seen == nullptr) {
      r.error = "unknown option '" + std::string(key) + "' (valid: align=, addr=, offset=)";
      return r;
    }
    std::uint64_t v = 0;
    if (!parse_u64(val, v)) {
      r.error = "option '" + std::string(tok) + "': expected a number (decimal or 0x hex)";
      return r;
    }
    if (*seen) {
      r.error = "option '" + std::string(key) + "=' given twice; give it once";
      return r;
    }
    *seen = true;
    if (key == "align") r.value.base_alignment = v;
    else if (key == "addr") r.value.address = v;
    else offset = v;
    s = trim_space(s.substr(0, last));
  }
  const Parsed<Layout> l = parse_layout(s);
  if (!l.ok) {
    r.error = "layout '" + std::string(s) + "': " + l.error.message;
    return r;
  }
  r.value.layout = l.value;
  if (r.value.address != 0 && r.value.base_alignment == 16) r.value.base_alignment = known_alignment(r.value.address);
  if (seen_offset && !apply_view_offset(r.value, offset, r.error)) return r;
  r.ok = true;
  return r;
}

ParsedTileExtents parse_tile_extents(std::string_view text) {
  ParsedTileExtents r;
  std::string_view s = trim_space(text);
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim_space(s.substr(1, s.size() - 2));
  if (s.empty()) {
    r.error = "expected one entry per global mode, e.g. 'M=128,K=64' or '128,64' ('_' = whole mode)";
    return r;
  }
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = s.find(',', pos);
    const std::string_view item = trim_space(s.substr(pos, comma == std::string_view::npos ? s.npos : comma - pos));
    if (r.value.modes >= kMaxTileModes) {
      r.error = "more than " + std::to_string(kMaxTileModes) + " entries";
      return r;
    }
    std::string_view name, ext = item;
    if (const std::size_t eq = item.find('='); eq != std::string_view::npos) {
      name = trim_space(item.substr(0, eq));
      ext = trim_space(item.substr(eq + 1));
      if (name.empty()) {
        r.error = "entry " + std::to_string(r.value.modes) + " '" + std::string(item) + "': empty name before '='";
        return r;
      }
      for (std::size_t k = 0; k < r.names.size(); ++k)
        if (r.names[k] == name) {
          r.error = "entry " + std::to_string(r.value.modes) + " '" + std::string(item) + "': the name '" +
                    std::string(name) + "' is already entry " + std::to_string(k) + "'s; every mode has its own name";
          return r;
        }
    }
    std::uint64_t v = 0;
    if (ext == "_" || ext == "*") {
      v = 0;
    } else if (!parse_u64(ext, v) || v == 0 || v > (std::uint64_t{1} << 31)) {
      r.error = "entry " + std::to_string(r.value.modes) + " '" + std::string(item) +
                "': expected a tile extent 1..2^31 or '_' (the whole mode)";
      return r;
    }
    r.value.extent[r.value.modes++] = static_cast<std::int64_t>(v);
    r.names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  r.ok = true;
  return r;
}

std::string to_string(const GlobalTensor& g) {
  // The text parse_global_tensor reads back: with a view offset, align= and addr= are the
  // allocation's (the alignment printed is the view's, which the allocation has too).
  const std::uint64_t bits = is_valid(g.dtype) ? static_cast<std::uint64_t>(element_bits(g.dtype)) : 8;
  const std::uint64_t offset_bits = static_cast<std::uint64_t>(g.view_offset > 0 ? g.view_offset : 0) * bits;
  std::string s = short_dtype_name(g.dtype) + " " + to_string(g.layout) + " align=" + std::to_string(g.base_alignment);
  if (g.address) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " addr=0x%llx", static_cast<unsigned long long>(g.address - offset_bits / 8));
    s += buf;
  }
  if (g.view_offset > 0) s += " offset=" + std::to_string(g.view_offset);
  return s;
}

}  // namespace tmakit
