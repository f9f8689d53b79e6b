// The TMA planner from Python: plan() of a global tensor (the CLI's text form, or any DLPack
// object: a torch tensor, a numpy array, a CuPy array ...), a shared layout and a tiler, as the
// CLI's `tmakit plan` does; tensor_map_for() (the descriptor of a box of a tensor, planned), and
// check_against_plan() (a descriptor made elsewhere, field by field against the plan).
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/dlpack.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::py {
namespace {

// Refused with every issue, in explain_plan()'s words (the CLI's).
[[noreturn]] void refuse_issues(const PlanIssues& issues, const TileProblem& problem, const std::vector<std::string>& names = {}) {
  std::vector<PyViolation> v;
  for (const PlanDiagnostic& d : explain_plan(issues, problem, names)) v.push_back(violation_of(d));
  refuse(v);
}

// A plan as Python holds it: the planner's result, what it was made from, and its descriptor.
struct PlanObject {
  PlanResult result{};
  GlobalTensor gmem{};
  SwizzledLayout smem{};
  std::vector<std::string> names;
  TensorMapBytes descriptor{};

  nb::dict json() const {
    nlohmann::json j;
    j["gmem"] = to_string(gmem);
    j["smem"] = to_string(smem);
    j["plan"] = plan_json(result.plan, names);
    j["descriptor"] = {{"bytes", jsonl::to_hex(descriptor)}, {"decoded", nlohmann::json(decode_json(descriptor))}};
    return nb::borrow<nb::dict>(to_python(j));
  }
  std::string text() const {
    return "gmem: " + to_string(gmem) + "\nsmem: " + to_string(smem) + "\n" + describe_plan(result.plan, names) +
           "descriptor: " + jsonl::to_hex(descriptor) + "\n" + decode_text(descriptor);
  }
  nb::dict instruction(std::uint32_t k, const std::vector<std::int32_t>& tile) const {
    const TmaPlan& p = result.plan;
    if (k >= p.instructions) usage_error("instruction " + std::to_string(k) + ": the plan has " + std::to_string(p.instructions));
    if (tile.size() != static_cast<std::size_t>(p.tile_modes))
      usage_error("tile coordinate: expected " + std::to_string(p.tile_modes) + " entries (one per global mode), got " +
                  std::to_string(tile.size()));
    std::int32_t t[kMaxTileModes] = {};
    for (std::size_t i = 0; i < tile.size(); ++i) t[i] = tile[i];
    const std::array<std::int64_t, kMaxRank> wide = coords_in_64_bits(p, k, t);
    const PlanInstruction in = p.instruction(k, t);
    nb::list coord;
    for (std::uint32_t j = 0; j < p.params.rank; ++j) {
      if (wide[j] != in.coord[j]) {  // the 32-bit sum wrapped: refused, never a wrong coordinate
        PlanIssues is;
        is.add(PlanIssue{.rule = PlanRule::coord_range, .value = wide[j], .index = static_cast<std::int32_t>(k),
                         .dim = static_cast<std::int32_t>(j)});
        refuse_issues(is, result.problem);
      }
      coord.append(in.coord[j]);
    }
    nb::dict d;
    d["coord"] = coord;
    d["smem_offset"] = in.smem_offset;
    return d;
  }

  // Instruction k's TMA coordinates computed in 64 bits (TmaPlan::instruction's sums, without the
  // 32-bit wrap): where they differ from the plan's, the tile coordinate is out of TMA's range.
  static std::array<std::int64_t, kMaxRank> coords_in_64_bits(const TmaPlan& p, std::uint32_t k, const std::int32_t* t) {
    std::array<std::int64_t, kMaxRank> c{};
    for (std::uint32_t j = 0; j < p.params.rank && j < kMaxRank; ++j)
      for (std::int32_t m = 0; m < p.tile_modes; ++m) c[j] += std::int64_t{p.coef[j][m]} * t[m];
    std::uint32_t rest = k;
    for (std::uint32_t l = 0; l < p.loops && l < kMaxPlanLoops; ++l) {
      const PlanLoop& loop = p.loop[l];
      const std::uint32_t i = loop.extent ? rest % loop.extent : 0;
      rest = loop.extent ? rest / loop.extent : 0;
      if (loop.dim >= 0 && loop.dim < static_cast<std::int32_t>(kMaxRank)) c[loop.dim] += std::int64_t{i} * loop.coord_step;
    }
    return c;
  }
};

// The element type a CUDA Array Interface typestr names ("<f2", "|u1", ...): kinds f, i, u and b of
// 1 to 8 bytes, little-endian (or without byte order). The interface has no bf16 or fp8 names: such
// tensors come through DLPack.
dlpack::DLDataType cai_dtype(const std::string& typestr) {
  const auto refuse_type = [&](const std::string& why) {
    usage_error("gmem: __cuda_array_interface__ typestr '" + typestr + "': " + why +
                "; fix: pass the tensor through DLPack (__dlpack__), which also names bf16 and fp8");
  };
  const bool sized = typestr.size() >= 3 && typestr.size() <= 4 &&
                     typestr.find_first_not_of("0123456789", 2) == std::string::npos;
  if (!sized || (typestr[0] != '<' && typestr[0] != '|' && typestr[0] != '>'))
    refuse_type("expected a byte order, a kind and a size in bytes (e.g. '<f2')");
  const char kind = typestr[1];
  const int bytes = std::stoi(typestr.substr(2));
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) refuse_type("an element of 1, 2, 4 or 8 bytes");
  if (typestr[0] == '>' && bytes > 1) refuse_type("big-endian elements (TMA copies little-endian bytes)");
  const auto bits = static_cast<std::uint8_t>(8 * bytes);
  switch (kind) {
    case 'f': if (bytes >= 2) return {dlpack::kDLFloat, bits, 1}; break;
    case 'i': return {dlpack::kDLInt, bits, 1};
    case 'u': return {dlpack::kDLUInt, bits, 1};
    case 'b': if (bytes == 1) return {dlpack::kDLBool, 8, 1}; break;
    default: break;
  }
  refuse_type("no element type TMA copies has this kind and size");
  return {};
}

// The CUDA Array Interface (version 2 or 3: CuPy, Numba, PyTorch) read into `t`: shape, the
// element type, the data pointer and strides (bytes there, elements here: each must be a whole
// number of elements; none given: C-contiguous). A mask is refused (TMA copies every element).
void cai_tensor(const nb::dict& d, dlpack::DLTensor& t, std::vector<std::int64_t>& shape,
                std::vector<std::int64_t>& strides) {
  if (!d.contains("shape") || !d.contains("typestr") || !d.contains("data"))
    usage_error("gmem: __cuda_array_interface__ needs 'shape', 'typestr' and 'data'");
  if (d.contains("mask") && !d["mask"].is_none())
    usage_error("gmem: __cuda_array_interface__ with a mask: TMA copies every element; fix: pass the unmasked array");
  shape = nb::cast<std::vector<std::int64_t>>(d["shape"]);
  t.dtype = cai_dtype(nb::cast<std::string>(d["typestr"]));
  const std::int64_t bytes = t.dtype.bits / 8;
  const nb::tuple data = nb::cast<nb::tuple>(d["data"]);
  if (data.size() < 1) usage_error("gmem: __cuda_array_interface__ 'data' must be (pointer, read_only)");
  t.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  strides.assign(shape.size(), 0);
  if (!d.contains("strides") || d["strides"].is_none()) {
    std::int64_t pitch = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = pitch;
      if (!checked_mul(pitch, std::max<std::int64_t>(shape[i], 1), &pitch))
        usage_error("gmem: __cuda_array_interface__ shape holds more than 2^63 elements");
    }
  } else {
    const std::vector<std::int64_t> byte_strides = nb::cast<std::vector<std::int64_t>>(d["strides"]);
    if (byte_strides.size() != shape.size())
      usage_error("gmem: __cuda_array_interface__ has " + std::to_string(shape.size()) + " extents and " +
                  std::to_string(byte_strides.size()) + " strides");
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (byte_strides[i] % bytes != 0)
        usage_error("gmem: __cuda_array_interface__ stride " + std::to_string(i) + " is " +
                    std::to_string(byte_strides[i]) + " bytes, not a whole number of " + std::to_string(bytes) +
                    "-byte elements; fix: give TMA a tensor whose strides are whole elements");
      strides[i] = byte_strides[i] / bytes;
    }
  }
  t.device = {dlpack::kDLCUDA, 0};
  t.ndim = static_cast<std::int32_t>(shape.size());
}

// How many elements past the start of its allocation a tensor object begins, when the object
// says (0 otherwise): torch's storage_offset(); for numpy, the distance from the array that owns
// the memory (the end of the .base chain). Only for gmem.base_align's message.
std::int64_t view_offset_of(nb::handle h, std::uint64_t data, std::uint64_t elem_bits) {
  try {
    if (nb::hasattr(h, "storage_offset")) {
      const nb::object f = h.attr("storage_offset");
      std::int64_t n = 0;
      if (PyCallable_Check(f.ptr()) && nb::try_cast(f(), n, false) && n > 0) return n;
      return 0;
    }
    if (!nb::hasattr(h, "__array_interface__") || !nb::hasattr(h, "base")) return 0;
    nb::object root = nb::borrow(h);
    for (int depth = 0; depth < 64; ++depth) {
      const nb::object base = root.attr("base");
      if (base.is_none() || !nb::hasattr(base, "__array_interface__")) break;
      root = base;
    }
    if (root.is(h)) return 0;
    const nb::dict ai = nb::cast<nb::dict>(root.attr("__array_interface__"));
    const std::uint64_t start = nb::cast<std::uint64_t>(nb::cast<nb::tuple>(ai["data"])[0]);
    if (data <= start || elem_bits == 0 || (data - start) * 8 % elem_bits != 0) return 0;
    return static_cast<std::int64_t>((data - start) * 8 / elem_bits);
  } catch (const std::exception&) {  // an object whose attributes say something else: no offset known
    return 0;
  }
}

// A tensor object as the library's DLTensor: through DLPack (anything nanobind's ndarray takes),
// else through the CUDA Array Interface.
GlobalTensor tensor_of(nb::handle h) {
  std::vector<std::int64_t> shape, strides;
  dlpack::DLTensor t{};
  nb::ndarray<> a;
  if (nb::try_cast(h, a, false)) {
    shape.resize(a.ndim());
    strides.resize(a.ndim());
    for (std::size_t i = 0; i < a.ndim(); ++i) {
      shape[i] = static_cast<std::int64_t>(a.shape(i));
      strides[i] = a.stride(i);
    }
    t.data = const_cast<void*>(a.data());
    t.device = {static_cast<dlpack::DLDeviceType>(a.device_type()), a.device_id()};
    t.ndim = static_cast<std::int32_t>(a.ndim());
    t.dtype = {a.dtype().code, a.dtype().bits, a.dtype().lanes};
  } else if (nb::hasattr(h, "__cuda_array_interface__")) {
    nb::dict d;
    if (!nb::try_cast(h.attr("__cuda_array_interface__"), d))
      usage_error("gmem: __cuda_array_interface__ is not a dict");
    cai_tensor(d, t, shape, strides);
  } else {
    usage_error("gmem: expected the text form ('bf16 (4096,4096):(4096,1)') or a tensor with __dlpack__ or "
                "__cuda_array_interface__, not " + nb::cast<std::string>(nb::str(h.type().attr("__name__"))));
  }
  t.shape = shape.data();
  t.strides = strides.data();
  t.byte_offset = 0;  // data already points at the first element
  const dlpack::FromDlpackResult r = dlpack::from_dlpack(t);
  if (!r.ok()) {
    std::vector<PyViolation> v;
    for (const PlanDiagnostic& d : explain_plan(r.issues, TileProblem{})) v.push_back(violation_of(d));
    refuse(v);
  }
  GlobalTensor g = r.tensor;
  if (is_valid(g.dtype)) g.view_offset = view_offset_of(h, g.address, static_cast<std::uint64_t>(element_bits(g.dtype)));
  return g;
}

GlobalTensor gmem_of(nb::handle h) {
  if (!nb::isinstance<nb::str>(h)) return tensor_of(h);
  const ParsedGlobalTensor g = parse_global_tensor(nb::cast<std::string>(h));
  if (!g.ok) usage_error("gmem: " + g.error);
  return g.value;
}

template <class E>
E name_of_arg(const char* what, const std::string& text) {
  E v{};
  std::string why;
  if (!parse_name(text, v, &why)) usage_error(std::string(what) + ": " + why);
  return v;
}

struct Options {
  std::array<std::uint32_t, 3> cluster{1, 1, 1};
  std::optional<std::string> multicast, reduce;
  std::string arch = "sm_90", l2 = "none", oob = "none";
  bool store = false;
};

PlanOptions plan_options(const Options& in) {
  PlanOptions o;
  for (int i = 0; i < 3; ++i) o.cluster[i] = in.cluster[i];
  if (in.multicast) {
    const std::string& mc = *in.multicast;
    if (mc == "x") o.multicast_dim = 0;
    else if (mc == "y") o.multicast_dim = 1;
    else if (mc == "z") o.multicast_dim = 2;
    else usage_error("multicast '" + mc + "': expected None, 'x', 'y' or 'z'");
  }
  o.arch = name_of_arg<Arch>("arch", in.arch);
  o.l2 = name_of_arg<L2Promotion>("l2", in.l2);
  o.oob = name_of_arg<OobFill>("oob", in.oob);
  if (in.store && in.reduce) usage_error("store and reduce: choose one (a reduction is a store that combines)");
  if (in.store) o.direction = PlanDirection::store;
  if (in.reduce) {
    const std::string& r = *in.reduce;
    if (!parse_reduce_op(r.data(), static_cast<std::uint32_t>(r.size()), o.reduce_op))
      usage_error("reduce '" + r + "': expected add, min, max, inc, dec, and, or or xor");
    o.direction = PlanDirection::reduce;
  }
  return o;
}

PlanObject run_plan(const GlobalTensor& g, const SwizzledLayout& s, const TileExtents& t, std::vector<std::string> names,
                    const Options& in) {
  PlanObject p;
  p.gmem = g;
  p.smem = s;
  p.names = std::move(names);
  p.result = plan_tile(g, s, t, plan_options(in));
  if (!p.result.ok()) {
    std::vector<PyViolation> v;
    for (const PlanDiagnostic& d : explain_plan(p.result.issues, p.result.problem, p.names))
      v.push_back(violation_of(d));
    refuse(v);
  }
  const EncodeResult e = encode_host(p.result.plan.params);
  if (!e.ok()) usage_error("internal error: the planned descriptor does not encode");  // the planner validated it
  p.descriptor = e.map;
  return p;
}

PlanObject plan(nb::handle gmem, const std::string& smem, const std::string& tile, const Options& o) {
  const GlobalTensor g = gmem_of(gmem);
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(smem);
  if (!s.ok) usage_error("smem: " + s.error.message);
  const ParsedTileExtents t = parse_tile_extents(tile);
  if (!t.ok) usage_error("tile: " + t.error);
  return run_plan(g, s.value, t.value, t.names, o);
}

// The descriptor of a box of a tensor: the plan of a row-major box (mode order as the tensor's:
// the last mode innermost) in a buffer with the given swizzle.
PlanObject plan_box(nb::handle gmem, const std::vector<std::int64_t>& box, const std::string& swizzle, const Options& o) {
  const GlobalTensor g = gmem_of(gmem);
  const int modes = g.layout.flatten().num_leaves();
  if (modes > kMaxTileModes) {  // the tile's tables hold kMaxTileModes modes
    PlanIssues is;
    is.add(PlanIssue{.rule = PlanRule::gmem_rank, .value = modes, .limit = kMaxTileModes});
    refuse_issues(is, TileProblem{});
  }
  if (static_cast<int>(box.size()) != modes)
    usage_error("box: expected " + std::to_string(modes) + " extents (one per tensor mode, in the tensor's order), got " +
                std::to_string(box.size()));
  IntTuple shape = IntTuple::tuple(), stride = IntTuple::tuple();
  std::vector<std::int64_t> strides(box.size());
  std::int64_t pitch = 1;
  TileExtents t;
  t.modes = modes;
  for (int i = modes - 1; i >= 0; --i) {
    const std::int64_t e = box[static_cast<std::size_t>(i)];
    PlanIssues is;
    if (e < 1) is.add(PlanIssue{.rule = PlanRule::tile_extent, .mode = i, .value = e});
    if (!is.empty()) refuse_issues(is, TileProblem{});
    strides[static_cast<std::size_t>(i)] = pitch;
    if (!checked_mul(pitch, e, &pitch) || pitch > kMaxLayoutSize) {  // the box's own row-major layout
      const LayoutDiagnostic d = make_diagnostic(LayoutRule::size_range, i, e, strides[static_cast<std::size_t>(i)]);
      refuse({{rule_id(d.rule), "box", "", message(d), fix(d), ""}});
    }
  }
  for (int i = 0; i < modes; ++i) {
    shape.append(IntTuple(box[static_cast<std::size_t>(i)]));
    stride.append(IntTuple(strides[static_cast<std::size_t>(i)]));
    t.extent[i] = box[static_cast<std::size_t>(i)];
  }
  SwizzledLayout s;
  s.layout = Layout(shape, stride);
  s.swizzle = swizzle_for(name_of_arg<Swizzle>("swizzle", swizzle));
  return run_plan(g, s, t, {}, o);
}

nb::dict check(nb::handle descriptor, const PlanObject& p, std::uint64_t armed_bytes, std::uint32_t copies,
               std::optional<std::uint64_t> smem_base) {
  const TensorMapBytes m = map_from_buffer(descriptor, "check_against_plan");
  PlanCheckOptions o;
  o.armed_bytes = armed_bytes;
  o.copies = copies;
  o.smem_base = smem_base;
  const PlanCheck c = check_against_plan(m, p.result.plan, o);
  nb::list findings;
  // A finding with the numbers both kinds keep (tmakit.PlanFinding's keys).
  const auto add = [&findings](const Finding& f, const std::string& expected, const std::string& actual,
                               const std::vector<int>& bytes, const std::string& effect) {
    nb::dict d = violation_dict(violation_of(f, actual));
    d["severity"] = f.is_error() ? "error" : "note";
    d["expected"] = expected;
    d["actual"] = actual;
    d["bytes"] = bytes;
    d["effect"] = effect;
    findings.append(d);
  };
  for (const PlanCheckFinding& f : c.findings) add(f, f.expected, f.actual, f.byte_offsets, f.effect);
  // the tile's address: errors, after the descriptor's
  for (const SmemBaseFinding& f : c.smem_base) add(f, f.expected, f.actual, {}, f.effect);
  nb::dict d;
  d["ok"] = c.ok();
  d["hangs"] = c.hangs;
  d["findings"] = findings;
  d["copy_bytes"] = c.copy_bytes;
  d["stage_bytes"] = c.stage_bytes;
  d["plan_expect_tx"] = c.plan_expect_tx;
  d["armed_bytes"] = c.armed_bytes;
  d["address_compared"] = c.address_compared;
  d["expected"] = map_to_bytes(c.expected);
  return d;
}

}  // namespace

void bind_plan(nb::module_& m) {
  nb::class_<PlanObject>(m, "Plan", "A TMA plan (tmakit.plan() wraps it)")
      .def("json", &PlanObject::json, "`tmakit plan --json`'s object without 'result'")
      .def("text", &PlanObject::text, "`tmakit plan`'s text")
      .def("descriptor", [](const PlanObject& p) { return map_to_bytes(p.descriptor); }, "the plan's 128 bytes")
      .def("instruction", &PlanObject::instruction, nb::arg("k"), nb::arg("tile"),
           "instruction k of the tile at `tile` (one coordinate per global mode): TMA coordinates and shared offset");

  const auto options = [](std::array<std::uint32_t, 3> cluster, std::optional<std::string> multicast, std::string arch,
                          std::string l2, std::string oob, bool store, std::optional<std::string> reduce) {
    return Options{cluster, std::move(multicast), std::move(reduce), std::move(arch), std::move(l2), std::move(oob), store};
  };
  m.def(
      "plan",
      [options](nb::handle gmem, const std::string& smem, const std::string& tile, std::array<std::uint32_t, 3> cluster,
                std::optional<std::string> multicast, std::string arch, std::string l2, std::string oob, bool store,
                std::optional<std::string> reduce) {
        return plan(gmem, smem, tile, options(cluster, std::move(multicast), std::move(arch), std::move(l2), std::move(oob), store, std::move(reduce)));
      },
      nb::arg("gmem"), nb::arg("smem"), nb::arg("tile"), nb::arg("cluster"), nb::arg("multicast").none(),
      nb::arg("arch"), nb::arg("l2"), nb::arg("oob"), nb::arg("store"), nb::arg("reduce").none(),
      "`tmakit plan`: raises tmakit.Refused with every violated rule, ValueError for notation that does not parse");
  m.def(
      "plan_box",
      [options](nb::handle gmem, const std::vector<std::int64_t>& box, const std::string& swizzle, std::string arch,
                std::string l2, std::string oob) {
        return plan_box(gmem, box, swizzle, options({1, 1, 1}, std::nullopt, std::move(arch), std::move(l2), std::move(oob), false, std::nullopt));
      },
      nb::arg("gmem"), nb::arg("box"), nb::arg("swizzle"), nb::arg("arch"), nb::arg("l2"), nb::arg("oob"),
      "the plan of a row-major box of a tensor (box in the tensor's mode order) in a buffer with `swizzle`");
  m.def("check_against_plan", &check, nb::arg("descriptor"), nb::arg("plan"), nb::arg("armed_bytes") = 0,
        nb::arg("copies") = 0, nb::arg("smem_base").none() = nb::none(),
        "a descriptor made elsewhere against a plan: every differing field and what it does to the copy, and the "
        "tile's shared address when given");
}

}  // namespace tmakit::py
