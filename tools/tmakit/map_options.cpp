// The tensor-map parameters on the command line (see map_options.hpp).
#include "map_options.hpp"

#include <cstdint>
#include <limits>
#include <ostream>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "options.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

struct UsageError {
  std::string option, message;  // message names the option
  UsageRule rule = UsageRule::value;
};

template <class T>
T number(const char* opt, std::string_view text) {
  T v{};
  std::string why;
  if (!parse_number(text, v, why)) throw UsageError{opt, std::string(opt) + ": " + why};
  return v;
}

template <class T>
std::vector<T> list(const char* opt, const std::string& text) {
  std::vector<T> out;
  if (trim_space(text).empty()) {
    if (std::string_view(opt) == "--dims")  // the rank is the number of dims: at least one
      throw UsageError{opt, std::string(opt) + ": empty list; expected d0,d1,... (innermost first, one per dim)"};
    return out;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (trim_space(item).empty()) throw UsageError{opt, std::string(opt) + ": empty value in list " + quote_user_text(text) + " (use a,b,c)"};
    out.push_back(number<T>(opt, item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

template <class T, std::size_t N>
void store(const std::vector<T>& v, T (&dst)[N]) {
  for (std::size_t i = 0; i < N; ++i) dst[i] = i < v.size() ? v[i] : T{};
}

std::string plural(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

void expect_count(const char* opt, std::size_t given, std::size_t expected, const std::string& why) {
  if (given != expected) {
    throw UsageError{opt, std::string(opt) + ": expected " + plural(expected, "value") + " (" + why + "), got " +
                     std::to_string(given)};
  }
}

template <class E>
E enum_value(const char* opt, const std::string& text) {
  E v{};
  std::string why;
  if (!parse_name(text, v, &why)) throw UsageError{opt, std::string(opt) + ": " + why};
  return v;
}

void add_common(CLI::App& sub, MapKinds::Raw& o, bool& json) {
  sub.add_option("--dtype", o.dtype, "element type: bf16, f16, f32, u8, ... or a cuda.h name (BFLOAT16)")
      ->required()
      ->type_name("NAME");
  sub.add_option("--dims", o.dims, "global dims, innermost first: d0,d1,... (rank = their number)")
      ->required()
      ->type_name("LIST");
  o.strides_opt = sub.add_option("--strides", o.strides, "byte strides of dims 1..rank-1: s1,s2,...")
                      ->type_name("LIST");
  o.elem_strides_opt = sub.add_option("--elem-strides", o.elem_strides, "element strides e0,e1,... (default all 1)")
                           ->type_name("LIST");
  sub.add_option("--interleave", o.interleave, "NONE, 16B, 32B")->type_name("NAME")->capture_default_str();
  sub.add_option("--swizzle", o.swizzle, "NONE, 32B, 64B, 128B, 128B_ATOM_32B, 128B_ATOM_32B_FLIP_8B, 128B_ATOM_64B")
      ->type_name("NAME")
      ->capture_default_str();
  sub.add_option("--l2", o.l2, "L2 promotion: NONE, 64B, 128B, 256B")->type_name("NAME")->capture_default_str();
  sub.add_option("--oob", o.oob, "OOB fill: NONE, NAN_REQUEST_ZERO_FMA (nan)")->type_name("NAME")->capture_default_str();
  sub.add_option("--address", o.address, "global address (decimal or 0x hex)")->type_name("N")->capture_default_str();
  sub.add_option("--arch", o.arch, "target: sm_90, sm_100, sm_120")->type_name("ARCH")->capture_default_str();
  add_json_flag(sub, json);
}

TensorMapParams convert(MapKind kind, const MapKinds::Raw& o) {
  TensorMapParams p;
  p.kind = kind;
  p.arch = enum_value<Arch>("--arch", o.arch);
  p.dtype = enum_value<DataType>("--dtype", o.dtype);
  const auto dims = list<std::uint64_t>("--dims", o.dims);
  const std::size_t rank = dims.size();
  p.rank = static_cast<std::uint32_t>(rank);
  store(dims, p.dims);
  p.address = number<std::uint64_t>("--address", o.address);

  const std::size_t nstrides = rank > 0 ? rank - 1 : 0;
  if (o.strides_opt->count() == 0 && nstrides > 0) {
    throw UsageError{"--strides", "--strides is required for rank " + std::to_string(rank) + " (" + plural(nstrides, "byte stride") +
                     ", for dims 1.." + std::to_string(rank - 1) + ")"};
  }
  const auto strides = list<std::uint64_t>("--strides", o.strides);
  expect_count("--strides", strides.size(), nstrides, "byte strides of dims 1..rank-1 for rank " + std::to_string(rank));
  store(strides, p.strides);

  if (o.elem_strides_opt->count() > 0) {
    const auto es = list<std::uint32_t>("--elem-strides", o.elem_strides);
    expect_count("--elem-strides", es.size(), rank, "one per dim for rank " + std::to_string(rank));
    store(es, p.elem_strides);
  }
  p.interleave = enum_value<Interleave>("--interleave", o.interleave);
  p.swizzle = enum_value<Swizzle>("--swizzle", o.swizzle);
  p.l2 = enum_value<L2Promotion>("--l2", o.l2);
  p.oob = enum_value<OobFill>("--oob", o.oob);

  if (kind == MapKind::tiled) {
    const auto box = list<std::uint32_t>("--box", o.box);
    expect_count("--box", box.size(), rank, "one per dim for rank " + std::to_string(rank));
    store(box, p.box);
  } else {
    p.channels = number<std::uint32_t>("--channels", o.channels);
    p.pixels = number<std::uint32_t>("--pixels", o.pixels);
    if (kind == MapKind::im2col) {
      const std::size_t spatial = rank > 2 ? rank - 2 : 0;
      const std::string why = "one per spatial dim (dims 1..rank-2) for rank " + std::to_string(rank);
      for (auto [opt, raw, given, dst] : {std::tuple{"--lower", &o.lower, o.lower_opt->count(), p.lower},
                                          std::tuple{"--upper", &o.upper, o.upper_opt->count(), p.upper}}) {
        if (given == 0 && spatial > 0) throw UsageError{opt, std::string(opt) + " is required (" + why + ")", UsageRule::syntax};
        const auto v = list<std::int32_t>(opt, *raw);
        expect_count(opt, v.size(), spatial, why);
        for (std::size_t i = 0; i < kMaxRank - 2; ++i) dst[i] = i < v.size() ? v[i] : 0;
      }
    } else {
      p.lower[0] = number<std::int32_t>("--lower", o.lower);
      p.upper[0] = number<std::int32_t>("--upper", o.upper);
      p.wide_mode = enum_value<Im2colWideMode>("--mode", o.mode);
    }
  }
  return p;
}

}  // namespace

ParseResult usage_result(const std::string& cmd, const std::string& what, UsageRule rule, const std::string& option) {
  ParseResult r;
  r.status = ParseResult::Status::usage_error;
  r.message = cmd + ": " + what + "\nRun '" + cmd + " --help' for usage.";
  r.command = cmd;
  r.what = what;
  r.option = option;
  r.rule = rule;
  return r;
}

int report(const ParseResult& r, std::ostream& out, std::ostream& err, bool json) {
  if (r.status == ParseResult::Status::help) return Reporter{r.command, json, out, err}.help(r.message);
  return Reporter{r.command, json, out, err}.usage(r.rule, r.what, r.option, r.help_hint);
}

void MapKinds::add_to(CLI::App& app, bool& json) {
  CLI::App* tiled = app.add_subcommand("tiled", "cuTensorMapEncodeTiled")->ignore_case();
  Raw& ot = raw_[0];
  add_common(*tiled, ot, json);
  tiled->add_option("--box", ot.box, "box dims b0,b1,... (one per dim)")->required()->type_name("LIST");

  CLI::App* im2col = app.add_subcommand("im2col", "cuTensorMapEncodeIm2col")->ignore_case();
  Raw& oi = raw_[1];
  add_common(*im2col, oi, json);
  oi.lower_opt = im2col->add_option("--lower", oi.lower, "pixelBoxLowerCorner, one per spatial dim: a,b,...")
                     ->type_name("LIST");
  oi.upper_opt = im2col->add_option("--upper", oi.upper, "pixelBoxUpperCorner, one per spatial dim: a,b,...")
                     ->type_name("LIST");
  im2col->add_option("--channels", oi.channels, "channelsPerPixel")->required()->type_name("N");
  im2col->add_option("--pixels", oi.pixels, "pixelsPerColumn")->required()->type_name("N");

  CLI::App* wide = app.add_subcommand("im2col-wide", "cuTensorMapEncodeIm2colWide")->ignore_case()->alias("im2col_wide");
  Raw& ow = raw_[2];
  add_common(*wide, ow, json);
  ow.lower_opt = wide->add_option("--lower", ow.lower, "pixelBoxLowerCornerWidth (one value)")->required()->type_name("N");
  ow.upper_opt = wide->add_option("--upper", ow.upper, "pixelBoxUpperCornerWidth (one value)")->required()->type_name("N");
  wide->add_option("--channels", ow.channels, "channelsPerPixel")->required()->type_name("N");
  wide->add_option("--pixels", ow.pixels, "pixelsPerColumn")->required()->type_name("N");
  wide->add_option("--mode", ow.mode, "W or W128")->required()->type_name("MODE");

  kinds_[0] = tiled;
  kinds_[1] = im2col;
  kinds_[2] = wide;
}

const CLI::App* MapKinds::given() const {
  for (const CLI::App* k : kinds_)
    if (k && k->parsed()) return k;
  return nullptr;
}

ParseResult MapKinds::request(const std::string& name, bool json) const {
  const CLI::App* sub = given();
  const int k = sub == kinds_[0] ? 0 : sub == kinds_[1] ? 1 : 2;
  const MapKind kind = k == 0 ? MapKind::tiled : k == 1 ? MapKind::im2col : MapKind::im2col_wide;
  ParseResult r;
  try {
    r.request.params = convert(kind, raw_[k]);
  } catch (const UsageError& e) {
    return usage_result(name + " " + sub->get_name(), e.message, e.rule, e.option);
  }
  r.request.json = json;
  r.status = ParseResult::Status::ok;
  return r;
}

bool parse_map_command(CLI::App& app, std::vector<std::string> args, const std::string& name, ParseResult& r) {
  std::string cmd = name;
  const CliParse p = parse_cli(app, std::move(args), cmd);
  if (p.rc < 0) return true;
  if (p.rc == kExitOk) {
    r.status = ParseResult::Status::help;
    r.message = p.text;
    r.command = cmd;
  } else {
    r = usage_result(cmd, p.text, p.rule, p.option);
  }
  return false;
}

}  // namespace tmakit::cli
