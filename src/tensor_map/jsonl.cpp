// JSON lines in and out (see tmakit/tensor_map/jsonl.hpp).
#include "tmakit/tensor_map/jsonl.hpp"

#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/explain.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::jsonl {
namespace {

using json = nlohmann::json;
using nlohmann::ordered_json;

constexpr std::size_t kValueCap = 64;  // characters of an offending value echoed back

// The offending value as short text (never the dump of a whole nested structure).
std::string value_text(const json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return s.size() > kValueCap ? s.substr(0, kValueCap) + "..." : s;
  }
  if (j.is_number() || j.is_boolean() || j.is_null()) return j.dump();
  return std::string("<") + j.type_name() + ">";
}

// An input error: no fix, the rule in words is `what` (message() formats it like a violation's).
void add(std::vector<Error>& errors, const char* rule, std::string field, std::string value, std::string what) {
  const Diagnostic d = make_diagnostic(rule, std::move(field), std::move(value), std::move(what), "");
  errors.push_back(Error{d.rule_id, d.where, d.value, d.message()});
}

template <class T>
const char* range_words() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "must be an integer in 0..4294967295 (32 bits, unsigned)";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "must be an integer in 0..18446744073709551615 (64 bits, unsigned)";
  if constexpr (std::is_same_v<T, std::int32_t>) return "must be an integer in -2147483648..2147483647 (32 bits, signed)";
  return "out of range";
}

// Reads an integer of type T; refuses wrong types and values that do not fit.
template <class T>
bool get_int(const json& j, const char* field, int index, T& out, std::vector<Error>& errors) {
  if (j.is_number_unsigned()) {
    const std::uint64_t v = j.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      add(errors, "input.range", indexed_name(field, index), value_text(j), range_words<T>());
      return false;
    }
    out = static_cast<T>(v);
    return true;
  }
  if (j.is_number_integer()) {  // negative
    const std::int64_t v = j.get<std::int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (v >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
          v <= static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
        out = static_cast<T>(v);
        return true;
      }
    }
    add(errors, "input.range", indexed_name(field, index), value_text(j), range_words<T>());
    return false;
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    // Integers beyond 64 bits arrive as floating point: a range error, not a type error.
    if (std::isfinite(d) && std::trunc(d) == d && (d >= 18446744073709551616.0 || d < -9223372036854775808.0)) {
      add(errors, "input.range", indexed_name(field, index), value_text(j), range_words<T>());
    } else {
      add(errors, "input.type", indexed_name(field, index), value_text(j), "must be an integer (no fraction or exponent)");
    }
    return false;
  }
  add(errors, "input.type", indexed_name(field, index), value_text(j), std::string("must be an integer, not ") + j.type_name());
  return false;
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

template <class T>
void get_scalar(const json& obj, const char* key, const char* field, T& out, std::vector<Error>& errors) {
  if (const json* j = find(obj, key)) get_int(*j, field, -1, out, errors);
}

// Reads an array (or a single number as an array of one) into dst; entries past N are checked and
// dropped. Returns the number of entries given (0 when missing).
template <class T, std::size_t N>
std::size_t get_array(const json& obj, const char* key, const char* field, T (&dst)[N], std::vector<Error>& errors) {
  const json* j = find(obj, key);
  if (!j) return 0;
  for (auto& d : dst) d = T{};
  if (j->is_number()) {
    T v{};
    if (get_int(*j, field, 0, v, errors)) dst[0] = v;
    return 1;
  }
  if (!j->is_array()) {
    add(errors, "input.type", field, value_text(*j), std::string("must be an array of integers, not ") + j->type_name());
    return 0;
  }
  std::size_t i = 0;
  for (const json& e : *j) {
    T v{};
    if (get_int(e, field, static_cast<int>(i), v, errors) && i < N) dst[i] = v;
    ++i;
  }
  return i;
}

// An enum given as its cuda.h integer (any uint32) or as a name.
template <class E>
void get_enum(const json& obj, const char* key, const char* field, NameSet set, E& out, std::vector<Error>& errors) {
  const json* j = find(obj, key);
  if (!j) return;
  if (j->is_string()) {
    std::uint32_t v = 0;
    std::string why;
    if (parse_name(set, j->get_ref<const std::string&>(), v, &why)) {
      out = static_cast<E>(v);
    } else {
      add(errors, "input.name", field, value_text(*j), why);
    }
    return;
  }
  std::uint32_t v = 0;
  if (get_int(*j, field, -1, v, errors)) out = static_cast<E>(v);
}

template <class T>
ordered_json array_json(const T* a, std::uint32_t n) {
  ordered_json out = ordered_json::array();
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(a[i]);
  return out;
}

// An enum by its name, or its integer when it is outside the enum.
template <class E>
ordered_json enum_json(E v) {
  if (const char* n = name_of(v)) return n;
  return static_cast<std::uint32_t>(v);
}

// One output line (ending in '\n') appended to `out`: {"result","bytes","errors"}.
// The line object is kept from one call to the next and its values overwritten: building a fresh
// object per line (three keys, a 256-character string, an array of error objects) made
// `encode --jsonl` 1.6 times as slow as writing the line by hand; reused, 1.2 times (100,000
// generated lines on a 2-core machine, 2026-11-27).
void append_result(bool ok, const TensorMapBytes* map, const std::vector<Error>& errors, std::string& out) {
  thread_local ordered_json j = [] {
    ordered_json t;
    t["result"] = 0;
    t["bytes"] = std::string();
    t["errors"] = ordered_json::array();
    return t;
  }();
  j["result"] = ok ? 0 : 1;
  std::string& bytes = j["bytes"].get_ref<std::string&>();
  if (ok && map) to_hex_into(*map, bytes);
  else bytes.clear();
  // The error objects are reused too: their strings keep their capacity from line to line.
  auto& errs = j["errors"].get_ref<ordered_json::array_t&>();
  if (errs.size() > errors.size()) errs.resize(errors.size());
  for (std::size_t i = 0; i < errors.size(); ++i) {
    const Error& e = errors[i];
    if (i == errs.size()) errs.push_back(ordered_json{{"rule", ""}, {"field", ""}, {"value", ""}, {"message", ""}});
    ordered_json& o = errs[i];
    o["rule"].get_ref<std::string&>() = e.rule;
    o["field"].get_ref<std::string&>() = e.field;
    o["value"].get_ref<std::string&>() = e.value;
    o["message"].get_ref<std::string&>() = e.message;
  }
  append_json_text(j, out);
  out += '\n';
}

// std::getline, but never more than kMaxLineBytes + 1 bytes into `line` (the rest of a longer
// line is left unread: `line` is then one byte over the bound). False at the end of the input.
bool read_line(std::istream& in, std::string& line) {
  thread_local std::vector<char> buf(kMaxLineBytes + 2);
  in.getline(buf.data(), static_cast<std::streamsize>(buf.size()));  // stores at most kMaxLineBytes + 1
  const std::size_t got = static_cast<std::size_t>(in.gcount());
  if (got == 0) return false;  // the end of the input (an empty line counts its newline)
  const bool newline = !in.fail() && !in.eof();  // the newline was read (and counted), not stored
  line.assign(buf.data(), newline ? got - 1 : got);
  if (in.fail() && !in.eof()) in.clear(in.rdstate() & ~std::ios::failbit);  // a long line, not an error
  return true;
}

bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

}  // namespace

bool parse_params(std::string_view line, TensorMapParams& out, std::vector<Error>& errors) {
  const std::size_t before = errors.size();
  out = TensorMapParams{};
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {
    add(errors, "input.json", "", "", std::string("not valid JSON: ") + e.what());
    return false;
  }
  if (!j.is_object()) {
    add(errors, "input.json", "", "", std::string("expected a JSON object, got ") + j.type_name());
    return false;
  }
  get_enum(j, "kind", "kind", NameSet::map_kind, out.kind, errors);
  if (const json* a = find(j, "arch")) {
    std::uint32_t v = 0;
    std::string why;
    const std::string text = a->is_string() ? a->get_ref<const std::string&>() : a->is_number_unsigned() ? a->dump() : "";
    if (parse_name(NameSet::arch, text, v, &why)) {
      out.arch = static_cast<Arch>(v);
    } else {
      add(errors, "input.name", "arch", value_text(*a), a->is_string() || a->is_number_unsigned() ? why : "must be a name such as \"sm_90\" or 90, 100, 120");
    }
  }
  get_enum(j, "dtype", "tensorDataType", NameSet::data_type, out.dtype, errors);
  get_scalar(j, "address", "globalAddress", out.address, errors);
  const std::size_t ndims = get_array(j, "dims", "globalDim", out.dims, errors);
  if (find(j, "rank")) {
    get_scalar(j, "rank", "tensorRank", out.rank, errors);
  } else {
    out.rank = static_cast<std::uint32_t>(ndims);
  }
  get_array(j, "strides", "globalStrides", out.strides, errors);
  get_array(j, "box", "boxDim", out.box, errors);
  get_array(j, "elem_strides", "elementStrides", out.elem_strides, errors);  // missing: all 1 (default)
  get_enum(j, "interleave", "interleave", NameSet::interleave, out.interleave, errors);
  get_enum(j, "swizzle", "swizzle", NameSet::swizzle, out.swizzle, errors);
  get_enum(j, "l2", "l2Promotion", NameSet::l2_promotion, out.l2, errors);
  get_enum(j, "oob", "oobFill", NameSet::oob_fill, out.oob, errors);
  get_array(j, "lower", "pixelBoxLowerCorner", out.lower, errors);
  get_array(j, "upper", "pixelBoxUpperCorner", out.upper, errors);
  get_scalar(j, "channels", "channelsPerPixel", out.channels, errors);
  get_scalar(j, "pixels", "pixelsPerColumn", out.pixels, errors);
  get_enum(j, "mode", "mode", NameSet::wide_mode, out.wide_mode, errors);
  return errors.size() == before;
}

std::vector<Error> describe(const TensorMapParams& p, const Violations& v) {
  std::vector<Error> out;
  for (const Diagnostic& d : explain(p, v)) {
    Error e;
    e.rule = d.rule_id;
    e.field = d.where;
    e.value = d.value;
    e.message = d.message();
    out.push_back(std::move(e));
  }
  return out;
}

bool process_line(std::string_view line, std::string& out) {
  TensorMapParams p;
  std::vector<Error> errors;
  if (!parse_params(line, p, errors)) {
    append_result(false, nullptr, errors, out);
    return false;
  }
  const EncodeResult r = encode_host(p);
  if (r.ok()) {
    append_result(true, &r.map, errors, out);
    return true;
  }
  append_result(false, nullptr, describe(p, r.violations), out);
  return false;
}

StreamStats process_stream(std::istream& in, std::ostream& out) {
  // Lines are parsed as they come and encoded kBatch at a time by encode_many (the same decisions
  // and bytes as process_line's encode_host()); results go out in input order.
  constexpr std::size_t kBatch = 256, kFlushAt = 1 << 16, kUnparsed = static_cast<std::size_t>(-1);
  struct Pending {
    std::size_t param = kUnparsed;  // index into params, or kUnparsed with parse errors
    std::vector<Error> errors;
  };
  std::vector<Pending> pending;
  std::vector<TensorMapParams> params;
  std::vector<TensorMapBytes> maps(kBatch);
  bool ok[kBatch];
  StreamStats stats;
  std::string line, buf;
  buf.reserve(kFlushAt + 4096);
  auto flush_batch = [&] {
    encode_many(params.data(), maps.data(), ok, params.size());
    for (const Pending& pd : pending) {
      if (pd.param == kUnparsed) {
        append_result(false, nullptr, pd.errors, buf);
      } else if (ok[pd.param]) {
        append_result(true, &maps[pd.param], pd.errors, buf);
        ++stats.accepted;
      } else {
        const TensorMapParams& p = params[pd.param];
        append_result(false, nullptr, describe(p, validate(p)), buf);
      }
      ++stats.lines;
      if (buf.size() >= kFlushAt) {
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
    pending.clear();
    params.clear();
  };
  for (std::size_t number = 1; read_line(in, line); ++number) {
    if (line.size() > kMaxLineBytes) {
      stats.too_long = number;
      break;
    }
    if (blank(line)) continue;
    Pending pd;
    TensorMapParams p;
    if (parse_params(line, p, pd.errors)) {
      pd.param = params.size();
      params.push_back(p);
    }
    pending.push_back(std::move(pd));
    if (params.size() == kBatch || pending.size() >= 4 * kBatch) flush_batch();
  }
  flush_batch();
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  out.flush();
  return stats;
}

void to_hex_into(const TensorMapBytes& b, std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  s.resize(256);
  for (int i = 0; i < 128; ++i) {
    const std::uint8_t v = b.byte(i);
    s[2 * i] = kHex[v >> 4];
    s[2 * i + 1] = kHex[v & 15];
  }
}

std::string to_hex(const TensorMapBytes& b) {
  std::string s;
  to_hex_into(b, s);
  return s;
}

ordered_json errors_json(const std::vector<Error>& errors) {
  ordered_json out = ordered_json::array();
  for (const Error& e : errors)
    out.push_back(ordered_json{{"rule", e.rule}, {"field", e.field}, {"value", e.value}, {"message", e.message}});
  return out;
}

ordered_json params_json(const TensorMapParams& p) {
  const std::uint32_t rank = p.rank < kMaxRank ? p.rank : kMaxRank;
  ordered_json j;
  j["kind"] = enum_json(p.kind);
  j["arch"] = enum_json(p.arch);
  j["dtype"] = enum_json(p.dtype);
  j["rank"] = p.rank;
  j["address"] = p.address;
  j["dims"] = array_json(p.dims, rank);
  j["strides"] = array_json(p.strides, rank > 1 ? rank - 1 : 0);
  if (p.kind == MapKind::tiled) j["box"] = array_json(p.box, rank);
  j["elem_strides"] = array_json(p.elem_strides, rank);
  j["interleave"] = enum_json(p.interleave);
  j["swizzle"] = enum_json(p.swizzle);
  j["l2"] = enum_json(p.l2);
  j["oob"] = enum_json(p.oob);
  if (p.kind != MapKind::tiled) {
    const std::uint32_t corners = p.kind == MapKind::im2col_wide ? 1 : (rank > 2 ? rank - 2 : 0);
    j["lower"] = array_json(p.lower, corners);
    j["upper"] = array_json(p.upper, corners);
    j["channels"] = p.channels;
    j["pixels"] = p.pixels;
    if (p.kind == MapKind::im2col_wide) j["mode"] = enum_json(p.wide_mode);
  }
  return j;
}

}  // namespace tmakit::jsonl
