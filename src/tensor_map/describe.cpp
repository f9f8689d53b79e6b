// Rendering of decoded tensor maps and of differences between two (see describe.hpp).
#include "tmakit/tensor_map/describe.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {

namespace L = tmap_fields;


// A logical field: all ranges with the same name and index.
struct Logical {
  std::string name;
  const char* base = "";
  Field field = Field::none;
  int index = -1;
  std::vector<L::BitRange> ranges;
};

std::vector<Logical> logical_fields(bool im2col, std::uint32_t rank) {
  L::NamedRange nr[L::kMaxNamedRanges] = {};
  const int n = L::named_ranges(im2col, rank, nr);
  std::vector<Logical> out;
  for (int i = 0; i < n; ++i) {
    const std::string name = indexed_name(nr[i].name, nr[i].index);
    if (!out.empty() && out.back().name == name) {
      out.back().ranges.push_back(nr[i].bits);
      continue;
    }
    out.push_back(Logical{name, nr[i].name, nr[i].field, nr[i].index, {nr[i].bits}});
  }
  return out;
}

// An enum's canonical name, or "unknown value N" for bits that name no value of it (e.g. interleave
// bits 3): name_of() returns nullptr there, which must never reach std::string.
template <class E>
std::string name_or_unknown(E v) {
  const char* n = name_of(v);
  return n ? std::string(n) : "unknown value " + std::to_string(static_cast<std::uint32_t>(v));
}

std::string value_in_words(const Logical& f, const DecodedTensorMap& d) {
  const TensorMapParams& p = d.params;
  const std::string base = f.base;
  const int i = f.index;
  if (base == "globalAddress") return hex_text(p.address);
  if (base == "im2col") return p.kind == MapKind::tiled ? "0 (tiled)" : "1 (im2col or im2col-wide)";
  if (base == "tensorRank") return std::to_string(p.rank);
  if (base == "tensorDataType")
    return d.dtype_known ? name_or_unknown(p.dtype) : "unknown element-type code " + std::to_string(d.elem_code);
  if (base == "tf32Rounding") return d.tf32_round ? "1 (round f32 to tf32)" : "0";
  if (base == "interleave") return name_or_unknown(p.interleave);
  if (base == "swizzle" ) return d.swizzle_known ? name_or_unknown(p.swizzle) : "unknown swizzle bits";
  if (base == "swizzleAtomicity" || base == "swizzleMode96B") return "";  // filled from raw bits
  if (base == "oobFill") return name_or_unknown(p.oob);
  if (base == "l2Promotion") return name_or_unknown(p.l2);
  if (base == "globalStrides") return std::to_string(p.strides[i]) + " B";
  if (base == "globalDim") return std::to_string(p.dims[i]);
  if (base == "elementStrides") return std::to_string(p.elem_strides[i]);
  if (base == "boxDim") return std::to_string(p.box[i]);
  if (base == "channelsPerPixel") return std::to_string(p.channels);
  if (base == "pixelBoxLowerCorner") return std::to_string(p.lower[i]);
  if (base == "pixelBoxUpperCorner") return std::to_string(p.upper[i]);
  if (base == "pixelsPerColumn") return std::to_string(p.pixels);
  if (base == "boxBytes") return std::to_string(d.stored_box_bytes) + " B";
  if (base == "smemAlignment") return std::to_string(d.stored_smem_alignment) + " B";
  return "";
}

std::uint64_t raw_bits(const TensorMapBytes& m, const Logical& f) {
  std::uint64_t v = 0;
  int shift = 0;
  for (auto r : f.ranges) {
    v |= m.bits(r.lo, r.width) << shift;
    shift += r.width;
  }
  return v;
}

std::string byte_span(const Logical& f) {
  std::set<int> bytes;
  for (auto r : f.ranges)
    for (int b = r.lo; b < r.lo + r.width; ++b) bytes.insert(b / 8);
  std::string s;
  int run_start = -1, prev = -2;
  auto flush = [&](int end) {
    if (run_start < 0) return;
    if (!s.empty()) s += ",";
    s += run_start == end ? std::to_string(run_start) : std::to_string(run_start) + "-" + std::to_string(end);
  };
  for (int b : bytes) {
    if (b != prev + 1) {
      flush(prev);
      run_start = b;
    }
    prev = b;
  }
  flush(prev);
  return s;
}

bool is_unverified(const std::string& base, const DecodedTensorMap& d) {
  if (base == "swizzleAtomicity" || base == "swizzleMode96B") return true;
  if (base == "tensorDataType") return is_packed(d.params.dtype);
  return false;
}

std::string describe_value(const TensorMapBytes& m, const DecodedTensorMap& d, const Logical& f) {
  std::string v = value_in_words(f, d);
  if (v.empty()) {
    const auto raw = raw_bits(m, f);
    if (std::string(f.base) == "swizzleAtomicity") {
      v = "unknown " + std::to_string(raw);
      for (std::uint32_t s = 0; s < kSwizzleCount; ++s) {
        const SwizzleMode mode = swizzle_mode_row(static_cast<Swizzle>(s));
        if (mode.hw_atomicity == raw) {
          v = mode.atomicity_name;
          break;
        }
      }
    } else {
      v = raw ? "1 (PTX 96B swizzle; no CUtensorMapSwizzle value)" : "0";
    }
  }
  return v;
}

}  // namespace

std::vector<DescribedField> describe_fields(const TensorMapBytes& m, const DecodedTensorMap& d) {
  std::vector<DescribedField> out;
  const std::uint32_t rank = d.params.rank > kMaxRank ? kMaxRank : d.params.rank;
  for (const auto& f : logical_fields(d.params.kind != MapKind::tiled, rank)) {
    DescribedField df;
    df.name = f.name;
    df.value = describe_value(m, d, f);
    df.raw = hex_text(raw_bits(m, f));
    df.bytes = byte_span(f);
    df.derived = f.field == Field::none;
    df.unverified = is_unverified(f.base, d);
    out.push_back(std::move(df));
  }
  return out;
}

namespace {

std::vector<int> set_bytes(const TensorMapBytes& m) {
  std::vector<int> v;
  for (int i = 0; i < 128; ++i)
    if (m.byte(i)) v.push_back(i);
  return v;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

std::vector<std::string> notes(const DecodedTensorMap& d) {
  std::vector<std::string> n;
  if (d.params.kind != MapKind::tiled)
    n.push_back("im2col and im2col-wide maps are stored alike (the wide map's W offsets sit in corner slot 0; "
                "its W/W128 mode leaves no trace on sm_90)");
  if (!d.dtype_known) n.push_back("the element-type bits name no CUtensorMapDataType");
  if (!d.swizzle_known) n.push_back("the swizzle bits name no CUtensorMapSwizzle");
  if (!d.interleave_known) n.push_back("the interleave bits hold 3, which no CUtensorMapInterleave has");
  if (!d.derived_consistent)
    n.push_back("stored boxBytes/smemAlignment differ from what the fields imply (" +
                std::to_string(box_bytes(d.params)) + " B, " + std::to_string(smem_alignment(d.params.swizzle)) +
                " B): not written by the driver from these fields");
  if (d.params.rank > kMaxRank) n.push_back("rank bits say " + std::to_string(d.params.rank) + ": more than 5");
  if (!verified_on_hardware(d.params.arch))
    n.push_back("uses fields that only sm_100+ has; their positions come from the PTX ISA and ptxas output for "
                "tensormap.replace and are unverified on hardware");
  return n;
}

// Why the bytes a copy delivers differ from the stored boxBytes field, naming only the cause these
// bytes show: a field the driver did not write from these parameters (a packed type counted at its
// global width is the usual one), or element strides that skip elements the field still counts.
std::string box_bytes_cause(const DecodedTensorMap& d) {
  const TensorMapParams& p = d.params;
  const std::uint64_t implied = box_bytes(p);
  if (d.stored_box_bytes != implied) {
    const std::uint32_t global_bits = element_bits(p.dtype), smem_bits = smem_element_bits(p.dtype);
    std::string why = "the driver stores " + std::to_string(implied) + " B for these fields";
    if (global_bits != smem_bits && d.stored_box_bytes * smem_bits == implied * global_bits)
      why += "; " + std::to_string(d.stored_box_bytes) + " B is the box counted at " + std::to_string(global_bits) +
             " bits per value, as the type is packed in global memory, while " + std::string(name_of(p.dtype)) +
             " takes " + std::to_string(smem_bits) + " bits per value in shared memory (each 16 values padded to "
             "16 bytes): the encoder that wrote it counted the type as packed";
    else
      why += ": the map was not written by the driver from these fields";
    return why;
  }
  std::string which;
  const std::uint32_t rank = p.rank > kMaxRank ? kMaxRank : p.rank;
  if (p.kind == MapKind::tiled && p.interleave == Interleave::none && p.elem_strides[0] != 1)
    which = "elementStrides[0] = " + std::to_string(p.elem_strides[0]) + ", which a copy ignores (it delivers every "
            "element of box dimension 0) and boxBytes divides by";
  for (std::uint32_t i = 1; i < rank; ++i)
    if (p.elem_strides[i] > 1 && p.box[i] % p.elem_strides[i] != 0)
      which += (which.empty() ? "" : "; ") + std::string("elementStrides[") + std::to_string(i) + "] = " +
               std::to_string(p.elem_strides[i]) + " does not divide boxDim[" + std::to_string(i) + "] = " +
               std::to_string(p.box[i]) + " (a copy delivers the partial step, boxBytes rounds it down)";
  return which.empty() ? "the interleaved copy delivers whole chunks and skips one dimension" : which;
}

}  // namespace

std::string decode_text(const TensorMapBytes& m) {
  const DecodedTensorMap d = decode(m);
  std::ostringstream os;
  os << (d.params.kind == MapKind::tiled ? "tiled" : "im2col") << " tensor map, rank " << d.params.rank << "\n";
  for (const auto& f : describe_fields(m, d)) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-22s %-26s bytes %-9s%s%s", f.name.c_str(), f.value.c_str(),
                  f.bytes.c_str(), f.derived ? " (derived)" : "", f.unverified ? " (unverified on hardware)" : "");
    std::string l = line;
    l.erase(l.find_last_not_of(' ') + 1);
    os << l << "\n";
  }
  if (d.dtype_known && d.params.rank >= 1 && d.params.rank <= kMaxRank) {
    const auto tx = transaction_bytes(d.params);
    os << "a copy delivers " << tx << " B to shared memory (the mbarrier expect_tx per copy)";
    if (tx != d.stored_box_bytes) os << "; note: not the boxBytes field (" << d.stored_box_bytes << " B): " << box_bytes_cause(d);
    os << "\n";
  }
  if (d.has_unexplained_bits()) {
    os << "unexplained bits (set, but no field of a " << (d.params.kind == MapKind::tiled ? "tiled" : "im2col")
       << " rank-" << d.params.rank << " map holds them): bytes " << join(set_bytes(d.unexplained)) << "\n";
    for (int w = 0; w < 16; ++w)
      if (d.unexplained.words[w]) os << "  word " << w << " (bytes " << 8 * w << "-" << 8 * w + 7 << "): mask " << hex_text(d.unexplained.words[w]) << "\n";
  } else {
    os << "unexplained bits: none\n";
  }
  for (const auto& n : notes(d)) os << "note: " << n << "\n";
  os << (d.round_trips() ? "encode(decode(x)) == x: yes\n" : "encode(decode(x)) == x: no (see above)\n");
  return os.str();
}

nlohmann::ordered_json decode_json(const TensorMapBytes& m) {
  const DecodedTensorMap d = decode(m);
  nlohmann::ordered_json j;
  j["kind"] = d.params.kind == MapKind::tiled ? "tiled" : "im2col";
  j["rank"] = d.params.rank;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const auto& f : describe_fields(m, d)) {
    fields[f.name] = {{"value", f.value}, {"raw", f.raw}, {"bytes", f.bytes}, {"derived", f.derived},
                      {"unverified", f.unverified}};
  }
  j["fields"] = fields;
  const TensorMapParams& p = d.params;
  j["params"] = jsonl::params_json(p);  // the schema of `tmakit encode --jsonl` (arch included), so a decode can be re-encoded
  if (d.dtype_known && p.rank >= 1 && p.rank <= kMaxRank) j["transaction_bytes"] = transaction_bytes(p);
  j["unexplained_bytes"] = set_bytes(d.unexplained);
  std::vector<std::string> masks;
  for (int w = 0; w < 16; ++w) masks.push_back(hex_text(d.unexplained.words[w]));
  j["unexplained_word_masks"] = masks;
  j["notes"] = notes(d);
  j["round_trips"] = d.round_trips();
  return j;
}

std::vector<FieldDifference> diff(const TensorMapBytes& a, const TensorMapBytes& b) {
  const DecodedTensorMap da = decode(a), db = decode(b);
  auto clamp_rank = [](std::uint32_t r) { return r > kMaxRank ? kMaxRank : r; };
  const auto fa = logical_fields(da.params.kind != MapKind::tiled, clamp_rank(da.params.rank));
  const auto fb = logical_fields(db.params.kind != MapKind::tiled, clamp_rank(db.params.rank));
  TensorMapBytes x{};
  for (int w = 0; w < 16; ++w) x.words[w] = a.words[w] ^ b.words[w];
  std::vector<FieldDifference> out;
  std::vector<bool> claimed(1024, false);
  auto take = [&](const std::vector<Logical>& fields, bool from_a) {
    for (const auto& f : fields) {
      std::set<int> bytes;
      for (auto r : f.ranges)
        for (int bit = r.lo; bit < r.lo + r.width; ++bit)
          if (!claimed[bit] && x.bits(bit, 1)) {
            claimed[bit] = true;
            bytes.insert(bit / 8);
          }
      if (bytes.empty()) continue;
      FieldDifference fd;
      fd.name = f.name;
      // Values in words from each side's own decoding where that side has the field.
      auto in = [&](const std::vector<Logical>& fs, const TensorMapBytes& m, const DecodedTensorMap& d) {
        for (const auto& g : fs)
          if (g.name == f.name) return describe_value(m, d, g);
        return std::string("(not a field of this map: raw ") + hex_text(raw_bits(m, f)) + ")";
      };
      fd.a = in(fa, a, da);
      fd.b = in(fb, b, db);
      if (fd.a == fd.b) {  // e.g. both out of their own range: show the raw bits
        fd.a += " (raw " + hex_text(raw_bits(a, f)) + ")";
        fd.b += " (raw " + hex_text(raw_bits(b, f)) + ")";
      }
      fd.byte_offsets.assign(bytes.begin(), bytes.end());
      out.push_back(std::move(fd));
    }
    (void)from_a;
  };
  take(fa, true);
  take(fb, false);
  std::set<int> reserved;
  for (int bit = 0; bit < 1024; ++bit)
    if (!claimed[bit] && x.bits(bit, 1)) reserved.insert(bit / 8);
  if (!reserved.empty()) {
    FieldDifference fd;
    fd.name = "reserved";
    for (int byte : reserved) {
      char s[16];
      std::snprintf(s, sizeof s, "%02x", a.byte(byte));
      fd.a += (fd.a.empty() ? "" : " ") + std::string(s);
      std::snprintf(s, sizeof s, "%02x", b.byte(byte));
      fd.b += (fd.b.empty() ? "" : " ") + std::string(s);
    }
    fd.a = "bytes " + fd.a;
    fd.b = "bytes " + fd.b;
    fd.byte_offsets.assign(reserved.begin(), reserved.end());
    out.push_back(std::move(fd));
  }
  return out;
}

std::string diff_text(const TensorMapBytes& a, const TensorMapBytes& b) {
  const auto d = diff(a, b);
  if (d.empty()) return "identical\n";
  std::ostringstream os;
  std::set<int> all;
  for (const auto& f : d) all.insert(f.byte_offsets.begin(), f.byte_offsets.end());
  os << d.size() << " field(s) differ; differing bytes: " << join(std::vector<int>(all.begin(), all.end())) << "\n";
  for (const auto& f : d) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-24s %s  ->  %s   (bytes %s)\n", f.name.c_str(), f.a.c_str(), f.b.c_str(),
                  join(f.byte_offsets).c_str());
    os << line;
  }
  return os.str();
}

nlohmann::ordered_json diff_json(const TensorMapBytes& a, const TensorMapBytes& b) {
  nlohmann::ordered_json j;
  j["identical"] = a == b;
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& f : diff(a, b)) arr.push_back({{"field", f.name}, {"a", f.a}, {"b", f.b}, {"bytes", f.byte_offsets}});
  j["differences"] = arr;
  return j;
}

bool parse_hex(const std::string& text, TensorMapBytes& out, std::string* error) {
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') && digits.empty()) {
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) || c == ':' || c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      if (error) *error = "not a hex digit: " + quote_user_text(std::string_view(&c, 1)) + " at position " + std::to_string(i);
      return false;
    }
    digits.push_back(c);
  }
  if (digits.size() != 256) {
    if (error) *error = "a tensor map is 128 bytes = 256 hex digits; got " + std::to_string(digits.size());
    return false;
  }
  out = TensorMapBytes{};
  for (int i = 0; i < 128; ++i) out.set_byte(i, static_cast<std::uint8_t>(std::stoi(digits.substr(2 * i, 2), nullptr, 16)));
  return true;
}

}  // namespace tmakit
