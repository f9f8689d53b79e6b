// Argument parsing of the tmakit CLI (see cli_parse.hpp).
#include "cli_parse.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "cli_app.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

// Option values as given; converted (with messages naming the option) after CLI11 has parsed.
struct RawOptions {
  std::string dtype, dims, strides, box, elem_strides, interleave = "NONE", swizzle = "NONE", l2 = "NONE",
                                                        oob = "NONE", address = "0", arch = "sm_90";
  std::string lower, upper, channels, pixels, mode;
  CLI::Option* strides_opt = nullptr;
  CLI::Option* elem_strides_opt = nullptr;
  CLI::Option* lower_opt = nullptr;
  CLI::Option* upper_opt = nullptr;
};

struct UsageError {
  std::string message;
};

template <class T>
const char* range_words() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "an unsigned integer below 2^32 (decimal or 0x hex)";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "an unsigned integer below 2^64 (decimal or 0x hex)";
  return "an integer in -2^31..2^31-1 (decimal or 0x hex)";
}

template <class T>
T number(const char* opt, std::string_view text) {
  const std::string_view t = trim_space(text);
  bool ok = false;
  T v{};
  if constexpr (std::is_signed_v<T>) {
    std::int64_t x = 0;
    ok = parse_i64(t, x) && x >= std::numeric_limits<T>::min() && x <= std::numeric_limits<T>::max();
    v = static_cast<T>(x);
  } else {
    std::uint64_t x = 0;
    ok = parse_u64(t, x) && x <= std::numeric_limits<T>::max();
    v = static_cast<T>(x);
  }
  if (!ok) throw UsageError{std::string(opt) + ": " + quote_user_text(t) + " is not " + range_words<T>()};
  return v;
}

template <class T>
std::vector<T> list(const char* opt, const std::string& text) {
  std::vector<T> out;
  if (trim_space(text).empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (trim_space(item).empty()) throw UsageError{std::string(opt) + ": empty value in list " + quote_user_text(text) + " (use a,b,c)"};
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
    throw UsageError{std::string(opt) + ": expected " + plural(expected, "value") + " (" + why + "), got " +
                     std::to_string(given)};
  }
}

template <class E>
E enum_value(const char* opt, const std::string& text) {
  E v{};
  std::string why;
  if (!parse_name(text, v, &why)) throw UsageError{std::string(opt) + ": " + why};
  return v;
}

void add_common(CLI::App& sub, RawOptions& o, bool& json) {
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
  sub.add_flag("--json", json, "print JSON");
}

TensorMapParams convert(MapKind kind, const RawOptions& o) {
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
    throw UsageError{"--strides is required for rank " + std::to_string(rank) + " (" + plural(nstrides, "byte stride") +
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
        if (given == 0 && spatial > 0) throw UsageError{std::string(opt) + " is required (" + why + ")"};
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

ParseResult parse_encode_args(std::vector<std::string> args, Command command) {
  const bool is_encode = command == Command::encode;
  const std::string name = is_encode ? "tmakit encode" : "tmakit check";
  ParseResult r;
  RawOptions raw[3];  // per map kind (option pointers differ per subcommand)
  bool json = false;
  std::string jsonl_path;

  CLI::App app{is_encode ? "Encode tensor-map parameters into the 128-byte CUtensorMap (memory order, hex)."
                         : "Check tensor-map parameters: print every violated rule, or \"ok\".",
               name};
  app.require_subcommand(0, 1);
  app.add_flag("--json", json, "print JSON");
  CLI::Option* jsonl_opt = nullptr;
  if (is_encode) {
    jsonl_opt = app.add_option("--jsonl", jsonl_path,
                               "encode JSON lines from FILE ('-' = stdin); one result line per input line")
                    ->type_name("FILE");
  }
  CLI::App* tiled = app.add_subcommand("tiled", "cuTensorMapEncodeTiled");
  RawOptions& ot = raw[0];
  add_common(*tiled, ot, json);
  tiled->add_option("--box", ot.box, "box dims b0,b1,... (one per dim)")->required()->type_name("LIST");

  CLI::App* im2col = app.add_subcommand("im2col", "cuTensorMapEncodeIm2col");
  RawOptions& oi = raw[1];
  add_common(*im2col, oi, json);
  oi.lower_opt = im2col->add_option("--lower", oi.lower, "pixelBoxLowerCorner, one per spatial dim: a,b,...")
                     ->type_name("LIST");
  oi.upper_opt = im2col->add_option("--upper", oi.upper, "pixelBoxUpperCorner, one per spatial dim: a,b,...")
                     ->type_name("LIST");
  im2col->add_option("--channels", oi.channels, "channelsPerPixel")->required()->type_name("N");
  im2col->add_option("--pixels", oi.pixels, "pixelsPerColumn")->required()->type_name("N");

  CLI::App* wide = app.add_subcommand("im2col-wide", "cuTensorMapEncodeIm2colWide");
  RawOptions& ow = raw[2];
  add_common(*wide, ow, json);
  ow.lower_opt = wide->add_option("--lower", ow.lower, "pixelBoxLowerCornerWidth (one value)")->required()->type_name("N");
  ow.upper_opt = wide->add_option("--upper", ow.upper, "pixelBoxUpperCornerWidth (one value)")->required()->type_name("N");
  wide->add_option("--channels", ow.channels, "channelsPerPixel")->required()->type_name("N");
  wide->add_option("--pixels", ow.pixels, "pixelsPerColumn")->required()->type_name("N");
  wide->add_option("--mode", ow.mode, "W or W128")->required()->type_name("MODE");

  const auto usage = [&](const std::string& msg, const std::string& cmd) {
    r.status = ParseResult::Status::usage_error;
    r.message = cmd + ": " + msg + "\nRun '" + cmd + " --help' for usage.";
    return r;
  };
  std::ostringstream help, error;
  if (const int rc = parse_app(app, std::move(args), name, help, error); rc >= 0) {
    r.status = rc == 0 ? ParseResult::Status::help : ParseResult::Status::usage_error;
    r.message = rc == 0 ? help.str() : error.str();
    if (rc != 0 && !r.message.empty() && r.message.back() == '\n') r.message.pop_back();
    return r;
  }

  const auto subs = app.get_subcommands();
  const bool want_jsonl = jsonl_opt && jsonl_opt->count() > 0;
  if (want_jsonl) {
    if (!subs.empty()) return usage("--jsonl takes no map kind (" + subs[0]->get_name() + ")", name);
    r.status = ParseResult::Status::ok;
    r.request.jsonl = true;
    r.request.jsonl_path = jsonl_path;
    r.request.json = json;
    return r;
  }
  if (subs.empty()) {
    return usage(std::string("a map kind is required: tiled, im2col or im2col-wide") +
                     (is_encode ? " (or --jsonl FILE)" : ""),
                 name);
  }
  const MapKind kind = subs[0] == tiled ? MapKind::tiled : subs[0] == im2col ? MapKind::im2col : MapKind::im2col_wide;
  try {
    r.request.params = convert(kind, raw[static_cast<int>(kind)]);
  } catch (const UsageError& e) {
    return usage(e.message, name + " " + subs[0]->get_name());
  }
  r.request.json = json;
  r.status = ParseResult::Status::ok;
  return r;
}

bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error) {
  text.clear();
  if (!arg.empty() && arg[0] == '@') {
    const std::string path = arg.substr(1);
    if (path == "-") {
      text.assign(std::istreambuf_iterator<char>(stdin_stream), std::istreambuf_iterator<char>());
    } else {
      std::ifstream f(path, std::ios::binary);
      if (!f) {
        error = "cannot read " + quote_user_text(path);
        return false;
      }
      std::ostringstream ss;
      ss << f.rdbuf();
      if (f.bad()) {
        error = "cannot read " + quote_user_text(path);
        return false;
      }
      text = ss.str();
    }
  } else {
    text = arg;
  }
  return true;
}

}  // namespace tmakit::cli
