// tmakit smem-store --src SOURCE --dst DEST [--base N] [--elements] [--no-stmatrix] [--json] [--svg FILE]
// Exit status: 0 planned, 1 refused (the reason and a fix on stderr, or in the JSON), 2 bad usage.
#include <fstream>
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"

namespace tmakit::cli {

int run_smem_store(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const std::string name = "tmakit smem-store";
  CLI::App app{"Plan a register -> shared-memory store: instruction, register order, wavefronts, and why.", name};
  std::string src_text, dst_text, svg_path;
  std::uint64_t base = 0;
  bool elements = false, no_stmatrix = false, json = false;
  app.add_option("--src", src_text,
                 "register fragment: 'wgmma m64n128 f32->bf16', 'mma m16n8 f32->bf16', "
                 "'tcgen05 32x32b.x4 n128 f32->bf16', 'tv LAYOUT ROWSxCOLS f32->bf16'")
      ->required();
  app.add_option("--dst", dst_text,
                 "shared-memory tile: 'kmajor|mnmajor none|sw32|sw64|sw128|sw128-atom32' or a layout "
                 "'Sw<3,4,3> o ((8,8),(64,2)):((64,512),(1,4096))' (swizzle in bytes)")
      ->required();
  app.add_option("--base", base, "the buffer's shared address modulo the swizzle repeat (bytes; default 0)");
  app.add_flag("--elements", elements, "the --dst swizzle is in element units (CuTe's recast form): convert to bytes");
  app.add_flag("--no-stmatrix", no_stmatrix, "plan with st.shared only");
  add_json_flag(app, json);
  app.add_option("--svg", svg_path, "write a picture of warp 0's first instructions (lanes, bytes, banks)");
  if (const int rc = parse_app(app, std::move(args), name, out, err); rc >= 0) return rc;
  const ParsedSource ps = parse_store_source(src_text);
  if (!ps.ok) return value_error(err, name, "--src: " + ps.error);
  const StoreSource& s = ps.value.source;
  const ParsedDestination pd =
      parse_store_destination(dst_text, s.rows(), s.cols(), ps.value.elem_bytes, base, elements);
  if (!pd.ok) return value_error(err, name, "--dst: " + pd.error);
  const StoreDestination& d = pd.value;
  SmemStoreOptions opts;
  opts.allow_stmatrix = !no_stmatrix;
  const SmemStorePlan p = plan_smem_store(s, d, opts);
  if (!svg_path.empty()) {
    std::ofstream f(svg_path);
    if (!f) return value_error(err, name, "cannot write '" + svg_path + "'");
    f << plan_svg(p, s, d);
  }
  if (json) {
    print_json(out, plan_json(p, s, d, src_text));
  } else if (p.ok) {
    out << describe_plan(p, s, d, src_text);
  } else {
    out << describe_plan(p, s, d, src_text);
    err << refusal_message(p, s, d) << "; fix: " << refusal_fix(p, s, d) << '\n';
  }
  return p.ok ? kExitOk : kExitRefused;
}

}  // namespace tmakit::cli
