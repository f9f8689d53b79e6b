// Regression: the store planner's results (every field of the plan, the CLI's text, JSON and SVG)
// for a broad set of sources x destinations, compared with tests/data/smem_store_golden.txt.gz, which
// was recorded before the planner was optimized (speed work must not change any plan).
// To re-record after an INTENDED change: TMAKIT_RECORD_GOLDEN=1 build-dev/tests/tmakit_test_smem_store_golden
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"

using namespace tmakit;

namespace {

const std::string kGolden = std::string(TMAKIT_TEST_DATA_DIR) + "/smem_store_golden.txt.gz";

struct Case {
  std::string src, dst;
  std::uint64_t base = 0;
  bool elements = false, no_stmatrix = false;
};

std::vector<Case> cases() {
  const std::vector<std::string> srcs = {
      "wgmma m64n128 f32->bf16", "wgmma m64n128 f32",       "wgmma m64n64 f32->bf16",
      "wgmma m64n8 f32->bf16",   "wgmma m64n256 f32->fp8",  "wgmma m64n64 f16->f16",
      "mma m16n8 f32->bf16",     "mma m16n8 n64 warps4 f32->bf16", "mma m16n8 n32 warps2 f32",
      "tcgen05 32x32b.x1 n128 f32->bf16", "tcgen05 32x32b.x2 n128 f32->bf16",
      "tcgen05 32x32b.x4 n128 f32->bf16", "tcgen05 32x32b.x8 n128 f32->bf16",
      "tcgen05 32x32b.x128 n128 f32->bf16", "tcgen05 32x32b.x4 n64 f32",
      "tcgen05 16x64b.x4 n64 f32->bf16", "tcgen05 16x128b.x2 n64 f32->bf16",
      "tcgen05 16x256b.x1 n64 f32->bf16", "tcgen05 16x256b.x4 n128 f32->fp8",
  };
  const std::vector<std::string> dsts = {
      "kmajor none", "kmajor sw32", "kmajor sw64", "kmajor sw128", "kmajor sw128-atom32",
      "mnmajor none", "mnmajor sw32", "mnmajor sw64", "mnmajor sw128",
  };
  std::vector<Case> out;
  for (const auto& s : srcs)
    for (const auto& d : dsts) out.push_back({s, d});
  // Layouts in notation, bases, unit mistakes, --elements, --no-stmatrix, tv sources, refusals.
  const std::vector<Case> more = {
      {"wgmma m64n128 f32", "(64,128):(128,1)"},
      {"wgmma m64n128 f32->bf16", "(64,128):(128,1)"},
      {"wgmma m64n128 f32->bf16", "(64,128):(1,64)"},
      {"wgmma m64n128 f32->bf16", "Sw<3,4,3> o (64,128):(128,1)"},
      {"wgmma m64n128 f32", "Sw<3,4,3> o (64,128):(128,1)"},
      {"wgmma m64n128 f32", "Sw<2,4,3> o (64,128):(128,1)"},
      {"wgmma m64n128 f32->bf16", "Sw<3,3,3> o (64,128):(128,1)"},
      {"wgmma m64n128 f32->bf16", "Sw<3,3,3> o (64,128):(128,1)", 0, true},
      {"wgmma m64n128 f32->bf16", "Sw<3,4,3> o ((8,8),(64,2)):((64,512),(1,4096))"},
      {"wgmma m64n128 f32->bf16", "kmajor sw128", 512},
      {"wgmma m64n128 f32->bf16", "kmajor sw128", 1024},
      {"wgmma m64n128 f32->bf16", "kmajor sw128", 0, false, true},
      {"wgmma m64n128 f32->bf16", "mnmajor sw64", 0, false, true},
      {"wgmma m64n128 f32->bf16", "(64,128):(130,1)"},
      {"wgmma m64n128 f32->bf16", "(64,128):(64,1)"},
      {"wgmma m64n128 f32->bf16", "(64,100):(100,1)"},
      {"tcgen05 32x32b.x8 n128 f32->bf16", "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))"},
      {"tcgen05 32x32b.x8 n128 f32->bf16", "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))", 0, true},
      {"tcgen05 32x32b.x4 n128 f32->bf16", "Sw<3,4,3> o (128,128):(128,1)"},
      {"tcgen05 32x32b.x4 n128 f32->bf16", "Sw<1,4,3> o (128,128):(128,1)"},
      {"tcgen05 32x32b.x4 n128 f32->bf16", "(128,128):(128,1)", 4},
      {"tcgen05 32x32b.x4 n128 f32->bf16", "(128,128):(128,1)", 2},
      {"tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32->bf16", "(16,8):(8,1)"},
      {"tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32->bf16", "kmajor none"},
      {"tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32", "(16,8):(8,1)"},
      {"tv ((4,8),(2,2)):((0,1),(16,8)) 16x8 f32->bf16", "(16,8):(8,1)"},
      {"tv (32,2,2):(1,32,64) 16x8 f32->bf16", "kmajor none"},
      {"tv (32,4):(4,1) 16x8 f32->bf16", "(16,8):(8,1)"},
      {"tv (32,4):(4,1) 16x8 f32->bf16", "(16,8):(1,16)"},
      {"tv (32,4):(1,32) 16x8 f32->fp8", "(16,8):(8,1)"},
      {"tv (64,4):(1,64) 16x16 f32->bf16", "(16,16):(16,1)"},
      {"tv (32,8):(8,1) 32x8 f32->bf16", "Sw<1,4,3> o (32,8):(8,1)"},
      {"mma m16n8 f32->bf16", "(16,8):(8,1)"},
      {"mma m16n8 f32->bf16", "(16,8):(1,16)"},
      {"mma m16n8 n64 warps4 f32->bf16", "Sw<3,4,3> o (64,64):(64,1)"},
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

void dump_slot(std::ostream& o, const char* name, const SlotRef& s) {
  o << ' ' << name << "=(" << s.thread << ',' << s.value << ',' << s.elem.row << ',' << s.elem.col << ',' << s.addr
    << ')';
}
void dump_width(std::ostream& o, const WidthFinding& f) {
  o << " why=" << int(f.why) << " bytes=" << f.bytes;
  dump_slot(o, "a", f.a);
  dump_slot(o, "b", f.b);
}

// Every field of a plan, one block of lines.
std::string dump(const SmemStorePlan& p) {
  std::ostringstream o;
  const SmemStoreRefusal& r = p.refusal;
  o << "ok=" << p.ok << " rule=" << rule_id(r.rule) << " n=" << r.n0 << ',' << r.n1 << ',' << r.n2 << ','
    << r.n3;
  dump_slot(o, "ra", r.a);
  dump_slot(o, "rb", r.b);
  o << "\nop=" << int(p.op.kind) << ',' << p.op.bytes << ',' << p.op.matrices << ',' << p.op.trans
    << " E=" << p.elem_bytes << " T=" << p.threads << " W=" << p.warps << " V=" << p.values
    << " vpi=" << p.values_per_instruction << " instr=" << p.instructions << "\norder=";
  for (int i = 0; i < SmemStorePlan::kMaxValues; ++i) o << p.order[i] << ' ';
  o << "\nwavefronts=";
  for (int i = 0; i < SmemStorePlan::kMaxWarps; ++i) o << p.wavefronts[i] << ' ';
  o << " ideal=" << p.ideal_wavefronts << " total=" << p.total_wavefronts << '/' << p.total_ideal
    << "\nwidest=" << p.widest_st_bytes;
  dump_width(o, p.width_limit);
  const ConflictFinding& c = p.conflict;
  o << "\nconflict=" << c.warp << ',' << c.instruction << ',' << c.wavefronts << ',' << c.ideal << ',' << c.lane_a
    << ',' << c.lane_b;
  dump_slot(o, "a", c.a);
  dump_slot(o, "b", c.b);
  o << "\ncandidates=" << p.num_candidates << '\n';
  for (int i = 0; i < SmemStorePlan::kMaxCandidates; ++i) {
    const StoreCandidate& k = p.candidates[i];
    o << "  " << int(k.op.kind) << ',' << k.op.bytes << ',' << k.op.matrices << ',' << k.op.trans
      << " feasible=" << k.feasible << " instr=" << k.instructions << " wf=" << k.wavefronts
      << " ideal=" << k.ideal;
    dump_width(o, k.why_not);
    o << '\n';
  }
  o << "fixes rep=" << p.better_rep << ',' << p.better_rep_bytes << " sw=" << p.has_better_swizzle << ','
    << p.better_swizzle.bits << ',' << p.better_swizzle.base << ',' << p.better_swizzle.shift << ','
    << p.better_swizzle.supported << ',' << int(p.better_swizzle_mode) << ',' << p.better_swizzle_wavefronts
    << " unswizzled=" << p.unswizzled_bytes << '\n';
  return o.str();
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::string run_cli(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code = tmakit::cli::run_cli(args, in, out, err);
  std::ostringstream o;
  o << "exit " << code << "\n--- stdout\n" << out.str() << "--- stderr\n" << err.str();
  return o.str();
}

// The record of one case: CLI text, JSON, SVG hash, and the raw plan under four option sets.
std::string record(const Case& c, int index) {
  std::ostringstream o;
  o << "=== case " << index << ": --src '" << c.src << "' --dst '" << c.dst << "' --base " << c.base
    << (c.elements ? " --elements" : "") << (c.no_stmatrix ? " --no-stmatrix" : "") << '\n';
  std::vector<std::string> args = {"smem-store", "--src", c.src, "--dst", c.dst, "--base", std::to_string(c.base)};
  if (c.elements) args.push_back("--elements");
  if (c.no_stmatrix) args.push_back("--no-stmatrix");
  o << run_cli(args);
  std::vector<std::string> j = args;
  j.push_back("--json");
  o << run_cli(j);
  const ParsedSource ps = parse_store_source(c.src);
  if (!ps.ok) return o.str() + "source error " + ps.error + '\n';
  const StoreSource& s = ps.value.source;
  const ParsedDestination pd = parse_store_destination(c.dst, s.rows(), s.cols(), ps.value.elem_bytes, c.base, c.elements);
  if (!pd.ok) return o.str() + "destination error " + pd.error + '\n';
  const StoreDestination& d = pd.value;
  for (int variant = 0; variant < 4; ++variant) {
    SmemStoreOptions opts;
    opts.allow_stmatrix = !c.no_stmatrix;
    if (variant >= 1) opts.suggest = false;
    if (variant >= 2) opts.check_units = false;
    if (variant == 3) opts.widths_only = true;
    auto p = std::make_unique<SmemStorePlan>(plan_smem_store(s, d, opts));
    o << "--- plan variant " << variant << '\n' << dump(*p);
    if (variant == 0) o << "svg fnv1a " << fnv1a(plan_svg(*p, s, d)) << '\n';
  }
  return o.str();
}

std::string all_records() {
  std::string all;
  const std::vector<Case> cs = cases();
  for (std::size_t i = 0; i < cs.size(); ++i) all += record(cs[i], static_cast<int>(i));
  return all;
}

}  // namespace

TEST(SmemStoreGolden, EveryPlanAndReportIsUnchanged) {
  const std::string now = all_records();
  if (std::getenv("TMAKIT_RECORD_GOLDEN")) {
    gzFile w = gzopen(kGolden.c_str(), "wb9");
    ASSERT_TRUE(w != nullptr);
    ASSERT_EQ(gzwrite(w, now.data(), static_cast<unsigned>(now.size())), static_cast<int>(now.size()));
    gzclose(w);
    GTEST_SKIP() << "recorded " << kGolden;
  }
  gzFile f = gzopen(kGolden.c_str(), "rb");
  ASSERT_TRUE(f != nullptr) << "missing " << kGolden;
  std::string want;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) want.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  ASSERT_FALSE(want.empty());
  // Compare case by case so that a failure names the first case that differs.
  std::size_t pos = 0;
  while (pos < want.size() || pos < now.size()) {
    const std::size_t next_want = want.find("=== case", pos + 1), next_now = now.find("=== case", pos + 1);
    const std::string a = want.substr(pos, next_want == std::string::npos ? std::string::npos : next_want - pos);
    const std::string b = now.substr(pos, next_now == std::string::npos ? std::string::npos : next_now - pos);
    ASSERT_EQ(a, b);
    if (next_want == std::string::npos || next_now == std::string::npos) {
      ASSERT_EQ(next_want, next_now);
      break;
    }
    pos = next_want;
  }
}
