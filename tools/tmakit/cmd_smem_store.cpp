// tmakit smem-store --src SOURCE --dst DEST [--base N] [--elements] [--no-stmatrix] [--any-swizzle]
//                   [--instruction INSN] [--json] [--svg FILE]
// Exit status: 0 planned, 1 refused (the reason and a fix on stderr, once; or in the JSON), 2 bad usage.
// --instruction plans with that store instruction too and shows it next to the best plan.
#include <fstream>
#include <memory>
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

// Every store instruction the planner knows, as store_op_ptx spells it.
constexpr StoreOp kOps[] = {
    {StoreOpKind::st_shared, 1, 0, false},  {StoreOpKind::st_shared, 2, 0, false}, {StoreOpKind::st_shared, 4, 0, false},
    {StoreOpKind::st_shared, 8, 0, false},  {StoreOpKind::st_shared, 16, 0, false}, {StoreOpKind::stmatrix, 4, 1, false},
    {StoreOpKind::stmatrix, 4, 2, false},   {StoreOpKind::stmatrix, 4, 4, false},   {StoreOpKind::stmatrix, 4, 1, true},
    {StoreOpKind::stmatrix, 4, 2, true},    {StoreOpKind::stmatrix, 4, 4, true},
};

// The short spelling: "b32", "v2.b32" for st.shared; "stmatrix.x4", "stmatrix.x4.trans".
std::string short_op_name(const StoreOp& op) {
  const std::string full = store_op_ptx(op);
  if (op.kind == StoreOpKind::st_shared) return full.substr(std::string("st.shared.").size());
  return "stmatrix.x" + std::to_string(op.matrices) + (op.trans ? ".trans" : "");
}

// --instruction: the PTX name or the short one, in any case.
bool parse_store_op(const std::string& text, StoreOp& out, std::string& why) {
  std::string valid;
  for (const StoreOp& op : kOps) {
    const std::string full = store_op_ptx(op), brief = short_op_name(op);
    if (parse_choice(text, {full.c_str(), brief.c_str()}) >= 0) {
      out = op;
      return true;
    }
    valid += (valid.empty() ? "" : ", ") + brief;
  }
  why = quote_user_text(text) + ": expected a store instruction: " + valid + " (or the PTX name, st.shared.v2.b32)";
  return false;
}

// The forced plan next to the best one: instructions and wavefronts, and why it costs more.
std::string compare_text(const SmemStorePlan& best, const SmemStorePlan& forced, const StoreDestination& d) {
  const auto ratio = [](std::int32_t a, std::int32_t b) {
    return b > 0 ? std::to_string(a / b) + (a % b ? "." + std::to_string(a * 100 / b % 100) : std::string()) + "x"
                 : std::string("-");
  };
  std::string r = "forced       " + std::string(store_op_ptx(forced.op)) + ": " + std::to_string(forced.instructions) +
                  " instructions per thread (best " + std::to_string(best.instructions) + ", " +
                  ratio(forced.instructions, best.instructions) + "), " + std::to_string(forced.total_wavefronts) +
                  " wavefronts in all (best " + std::to_string(best.total_wavefronts) + ", " +
                  ratio(forced.total_wavefronts, best.total_wavefronts) + "; ideal " + std::to_string(forced.total_ideal) +
                  ")\n";
  if (forced.conflict.any()) r += "forced why   " + conflict_reason(forced, d) + "\n";
  return r;
}

}  // namespace

int run_smem_store(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit smem-store", wants_json(args), out, err};
  CLI::App app{"Plan a register -> shared-memory store: instruction, register order, wavefronts, and why.", rep.command};
  std::string src_text, dst_text, svg_path, base_text = "0", insn_text;
  bool elements = false, no_stmatrix = false, any_swizzle = false, json = false;
  app.add_option("--src", src_text,
                 "register fragment: 'wgmma m64n128 f32->bf16', 'mma m16n8 f32->bf16', "
                 "'tcgen05 32x32b.x4 n128 f32->bf16', 'tv LAYOUT ROWSxCOLS f32->bf16'")
      ->required();
  app.add_option("--dst", dst_text,
                 "shared-memory tile: 'kmajor|mnmajor none|sw32|sw64|sw128|sw128-atom32' or a layout "
                 "'Sw<3,4,3> o ((8,8),(64,2)):((64,512),(1,4096))' (swizzle in bytes)")
      ->required();
  CLI::Option* base_opt = app.add_option(
      "--base", base_text,
      "shared address of the tile's first element modulo the swizzle repeat (bytes, any multiple of the element "
      "size; default 0): e.g. 8 for a tile that starts 4 bf16 columns into a swizzled row")->type_name("N");
  app.add_flag("--elements", elements, "the --dst swizzle is in element units (CuTe's recast form): convert to bytes");
  app.add_flag("--no-stmatrix", no_stmatrix, "plan with st.shared only");
  app.add_flag("--any-swizzle", any_swizzle,
               "plan a --dst swizzle that is none of TMA's/WGMMA's/UMMA's modes (a tile only your own code reads)");
  CLI::Option* insn_opt = app.add_option(
      "--instruction", insn_text,
      "also plan with this store instruction (b8, b16, b32, v2.b32, v4.b32, stmatrix.x1|x2|x4[.trans]) and show it "
      "next to the best plan")->type_name("INSN");
  add_json_flag(app, json);
  CLI::Option* svg_opt =
      app.add_option("--svg", svg_path, "write a picture of warp 0's first instructions (lanes, bytes, banks)")->type_name("FILE");
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  std::uint64_t base = 0;
  std::string why;
  if (base_opt->count() > 0 && !parse_number(base_text, base, why)) return rep.bad_value("--base", why);
  if (svg_opt->count() > 0 && svg_path.empty()) return rep.bad_value("--svg", "an empty file name");
  StoreOp forced_op{};
  if (insn_opt->count() > 0 && !parse_store_op(insn_text, forced_op, why)) return rep.bad_value("--instruction", why);
  const ParsedSource ps = parse_store_source(src_text);
  if (!ps.ok) return rep.bad_value("--src", ps.error);
  const StoreSource& s = ps.value.source;
  const ParsedDestination pd =
      parse_store_destination(dst_text, s.rows(), s.cols(), ps.value.elem_bytes, base, elements);
  if (!pd.ok) return rep.bad_value("--dst", pd.error);
  const StoreDestination& d = pd.value;
  if (no_stmatrix && ps.value.elem_bytes != 2)
    return rep.usage(UsageRule::conflict,
                     "--no-stmatrix changes nothing: stmatrix stores 2-byte elements only, these are " +
                         std::to_string(ps.value.elem_bytes) + "-byte",
                     "--no-stmatrix");
  if (!pd.elements_no_effect.empty())
    return rep.usage(UsageRule::conflict, "--elements changes nothing: " + pd.elements_no_effect, "--elements");
  if (any_swizzle && (d.tile.swizzle.bits == 0 || smem_store_detail::is_hardware_swizzle(d.tile.swizzle)))
    return rep.usage(UsageRule::conflict,
                     "--any-swizzle changes nothing: the --dst swizzle is " +
                         std::string(d.tile.swizzle.bits == 0 ? "none" : "one of TMA's/WGMMA's/UMMA's modes"),
                     "--any-swizzle");
  SmemStoreOptions opts;
  opts.allow_stmatrix = !no_stmatrix;
  opts.check_units = !any_swizzle;
  const auto p = std::make_unique<SmemStorePlan>(plan_smem_store(s, d, opts));
  std::unique_ptr<SmemStorePlan> f;  // the forced plan
  if (p->ok && insn_opt->count() > 0) {
    opts.force = forced_op;
    opts.allow_stmatrix = true;  // the instruction asked for is the one planned
    f = std::make_unique<SmemStorePlan>(plan_smem_store(s, d, opts));
  }
  const SmemStorePlan& shown = f && !f->ok ? *f : *p;  // a refused forced plan is the outcome
  if (!svg_path.empty()) {
    std::ofstream file(svg_path);
    if (file) file << plan_svg(f && f->ok ? *f : shown, s, d);
    if (file) file.close();  // a full disk shows here, when the buffer goes out
    if (!file) return rep.usage(UsageRule::input, "--svg: cannot write " + quote_user_text(svg_path), "--svg");
  }
  const int rc = shown.ok ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::json j = plan_json(shown, s, d, src_text);
    if (f && f->ok) j["forced"] = plan_json(*f, s, d, src_text);
    return rep.json_result(j, rc, shown.ok);
  }
  if (!shown.ok) {
    err << refusal_message(shown, s, d) << "; fix: " << refusal_fix(shown, s, d) << '\n';
    return rc;
  }
  out << describe_plan(*p, s, d, src_text);
  if (f) out << compare_text(*p, *f, d);
  return rc;
}

}  // namespace tmakit::cli
