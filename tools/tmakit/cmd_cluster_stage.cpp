// tmakit cluster-stage --cluster X[,Y[,Z]] [--multicast SPEC]... [--dsmem SPEC]... [--cta-group 1|2]
//                      [--arch A] [--armed R=BYTES]... [--json]
// Every copy that lands in one pipeline stage of a cluster, added up per CTA (plan_cluster_stage,
// cluster/stage.hpp): the bytes each CTA arms its full barrier with (TMA and DSMEM parts), the
// remote arrivals DSMEM stores add, the CTAs whose copies land in it and those it issues into.
// A copy is one SPEC, `key=value` pairs separated by ';' (layouts hold ':' and spaces, not ';'):
//   --multicast 'box=HEX|@FILE; share=x|y|z|xy...; mode=sliced|leader_broadcast; slice_dim=N; mask=M'
//       one operand's tile, `box` the descriptor of the WHOLE tile, shared by the CTAs along
//       `share` (mode: sliced unless given, as `tmakit plan --cluster` plans it); `mask`, the
//       kernel's own ctaMask, checked against the plan's (cluster/stage_check.hpp): one for every
//       issuing CTA or R:MASK per CTA, each 0b..., 0x..., decimal or a CTA list [0,2]
//   --dsmem 'from=R; to=R; dtype=T; src=LAYOUT; dst=LAYOUT; threads=N'
//       an SM-to-SM copy from CTA `from`'s shared layout into CTA `to`'s (threads: 128)
// Each of these may be given any number of times. --cta-group 2 (sm_100 only: --arch) counts each
// CTA pair's TMA bytes on its even CTA's barrier; --armed R=BYTES checks what the kernel arms CTA
// R's barrier with against the stage's sum. Exit 0 with one line per CTA; 1 when a copy's own
// plan, the sum or a check is refused (every rule, with its fix: a CTA past the mbarrier's
// transaction count, expect.tx_limit; a copy naming a CTA outside the cluster; a ctaMask or armed
// count that is not the plan's; cta_group::2 for a target without CTA pairs); 2 for bad usage.
#include <ostream>
#include <string_view>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/cluster/dsmem_layout.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/stage.hpp"
#include "tmakit/cluster/stage_check.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

namespace {

// One SPEC as (key, value) pairs, in order; false with `why` when a part is not key=value, a key is
// not one of `keys` or is given twice.
struct SpecPart {
  std::string key, value;
};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool split_spec(std::string_view text, std::initializer_list<const char*> keys, std::vector<SpecPart>& parts,
                std::string& why) {
  while (!text.empty()) {
    const std::size_t end = text.find(';');
    const std::string_view part = trimmed(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (part.empty()) continue;
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      why = "'" + std::string(part) + "' is not key=value (the keys: " + choice_list(keys) + ")";
      return false;
    }
    SpecPart p{std::string(trimmed(part.substr(0, eq))), std::string(trimmed(part.substr(eq + 1)))};
    bool known = false;
    for (const char* k : keys) known = known || p.key == k;
    if (!known) {
      why = "unknown key '" + p.key + "' (the keys: " + choice_list(keys) + ")";
      return false;
    }
    for (const SpecPart& q : parts)
      if (q.key == p.key) {
        why = "key '" + p.key + "' given twice";
        return false;
      }
    parts.push_back(std::move(p));
  }
  return true;
}

const std::string* find_key(const std::vector<SpecPart>& parts, std::string_view key) {
  for (const SpecPart& p : parts)
    if (p.key == key) return &p.value;
  return nullptr;
}

// A stage finding's own JSON keys: "copy", which --multicast / --dsmem (null for the stage's sum);
// "cta", null where no one CTA is to blame; "message", the line with the copy's name first.
nlohmann::ordered_json stage_keys(const std::string& where, std::int32_t cta, const std::string& text) {
  return {{"copy", where.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(where)},
          {"cta", cta >= 0 ? nlohmann::ordered_json(cta) : nlohmann::ordered_json()},
          {"message", text}};
}

// Every error of a copy's own plan or of the sum, as "error [rule] ...; fix: ..." (notes kept apart).
void collect(const ClusterDiagnostics& ds, const std::string& where, std::vector<std::string>& errors,
             std::vector<std::string>& notes, nlohmann::ordered_json& json_errors) {
  for (const ClusterViolation& v : ds) {
    const Finding f = to_finding(v);
    const std::string text = (where.empty() ? "" : where + ": ") + f.message();
    if (is_note(v.rule)) {
      notes.push_back(text);
      continue;
    }
    errors.push_back(text);
    // "copy": which --multicast / --dsmem (null for the stage's sum); "cta": null where no one CTA is to blame
    json_errors.push_back(finding_json(f, stage_keys(where, v.cta, text)));
  }
}

// A check's findings, as collect() reports a plan's errors.
void collect_findings(const std::vector<StageFinding>& fs, const std::string& where, std::vector<std::string>& errors,
                      nlohmann::ordered_json& json_errors) {
  for (const StageFinding& f : fs) {
    const std::string text = (where.empty() ? "" : where + ": ") + f.message();
    errors.push_back(text);
    json_errors.push_back(finding_json(f, stage_keys(where, f.cta, text)));
  }
}

// --multicast SPEC -> its plan in `cluster`, and the kernel's ctaMasks its `mask` gives. Returns -1,
// or the exit status after reporting.
int plan_multicast_spec(const std::string& spec, const ClusterShape& cluster, std::istream& in, const Reporter& rep,
                        MulticastPlan& out, std::vector<KernelMask>& masks) {
  std::vector<SpecPart> parts;
  std::string why;
  if (!split_spec(spec, {"box", "share", "mode", "slice_dim", "mask"}, parts, why)) return rep.bad_value("--multicast", why);
  const std::string* box = find_key(parts, "box");
  const std::string* share = find_key(parts, "share");
  if (!box || !share) return rep.bad_value("--multicast", "give box=HEX|@FILE (the whole tile's descriptor) and share=x|y|z...");
  MulticastSpec s;
  s.cluster = cluster;
  s.mode = MulticastMode::sliced;
  if (!parse_multicast_share(*share, s.share, why)) return rep.bad_value("--multicast", why);
  if (const std::string* m = find_key(parts, "mode"); m && !parse_multicast_mode(*m, s.mode, why))
    return rep.bad_value("--multicast", why);
  if (const std::string* d = find_key(parts, "slice_dim"); d && !parse_number(*d, s.slice_dim, why))
    return rep.bad_value("--multicast", "slice_dim: " + why);
  if (const std::string* m = find_key(parts, "mask"); m && !parse_kernel_masks(*m, masks, why))
    return rep.bad_value("--multicast", why);
  TensorMapBytes m;
  if (int rc = 0; !read_descriptor_arg(*box, "--multicast box", in, rep, m, rc)) return rc;
  s.box = decode(m).params;
  out = plan_multicast(s);
  return -1;
}

// --dsmem SPEC -> its plan and CTAs. Returns -1, or the exit status after reporting.
int plan_dsmem_spec(const std::string& spec, const Reporter& rep, StageDsmemCopy& out) {
  std::vector<SpecPart> parts;
  std::string why;
  if (!split_spec(spec, {"from", "to", "dtype", "src", "dst", "threads"}, parts, why)) return rep.bad_value("--dsmem", why);
  const std::string *from = find_key(parts, "from"), *to = find_key(parts, "to"), *dtype = find_key(parts, "dtype"),
                    *src = find_key(parts, "src"), *dst = find_key(parts, "dst");
  if (!from || !to || !dtype || !src || !dst)
    return rep.bad_value("--dsmem", "give from=R; to=R; dtype=T; src=LAYOUT; dst=LAYOUT (threads=N optional)");
  if (!parse_number(*from, out.from, why)) return rep.bad_value("--dsmem", "from: " + why);
  if (!parse_number(*to, out.to, why)) return rep.bad_value("--dsmem", "to: " + why);
  std::uint32_t threads = 128;
  if (const std::string* t = find_key(parts, "threads"); t && !parse_number(*t, threads, why))
    return rep.bad_value("--dsmem", "threads: " + why);
  if (threads < 1 || threads > 1024)
    return rep.bad_value("--dsmem", "threads: " + std::to_string(threads) + " is not a CTA's thread count (1..1024)");
  DataType type{};
  if (!parse_name(*dtype, type, &why)) return rep.bad_value("--dsmem", "dtype: " + why);
  if (element_bits(type) < 8) return rep.bad_value("--dsmem", "dtype " + *dtype + ": sub-byte types have no byte offsets");
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(*src), d = parse_swizzled_layout(*dst);
  if (!s.ok) return rep.bad_value("--dsmem", "src: " + s.error.message);
  if (!d.ok) return rep.bad_value("--dsmem", "dst: " + d.error.message);
  out.plan = plan_dsmem_copy(s.value, d.value, element_bits(type) / 8, threads);
  return -1;
}

// --armed R=BYTES ... -> the kernel's armed counts, each CTA once. Returns -1, or the exit status.
int parse_armed(const std::vector<std::string>& texts, const Reporter& rep, std::vector<KernelArmed>& out) {
  for (const std::string& t : texts) {
    const std::size_t eq = t.find('=');
    KernelArmed a;
    std::string why;
    if (eq == std::string::npos)
      return rep.bad_value("--armed", quote_user_text(t) + " is not R=BYTES (a CTA rank and the bytes it arms)");
    if (!parse_number(std::string_view(t).substr(0, eq), a.cta, why)) return rep.bad_value("--armed", "CTA: " + why);
    if (!parse_number(std::string_view(t).substr(eq + 1), a.bytes, why)) return rep.bad_value("--armed", "bytes: " + why);
    for (const KernelArmed& b : out)
      if (b.cta == a.cta) return rep.bad_value("--armed", "CTA " + std::to_string(a.cta) + " given twice");
    out.push_back(a);
  }
  return -1;
}

// --cta-group and --arch -> the stage's options. Returns -1, or the exit status.
int parse_stage_options(const std::string& group, const std::string& arch, const Reporter& rep, StageOptions& o) {
  const int g = parse_choice(group, {"1", "2"});
  if (g < 0) return rep.bad_value("--cta-group", quote_user_text(group) + ": expected 1 or 2 (cta_group::1 or ::2)");
  o.cta_group = g == 0 ? CtaGroup::one : CtaGroup::two;
  if (std::string why; !parse_name(arch, o.arch, &why)) return rep.bad_value("--arch", why);
  return -1;
}

// The lines after the per-CTA ones: what the kernel's numbers were checked against, when given.
void print_checked(const std::vector<std::vector<KernelMask>>& masks, const std::vector<MulticastPlan>& plans,
                   const std::vector<KernelArmed>& armed, std::ostream& out) {
  for (std::size_t i = 0; i < masks.size(); ++i) {
    if (masks[i].empty()) continue;
    std::uint32_t ctas = 0;
    for (const KernelMask& k : masks[i])
      for (std::uint32_t r = 0; r < plans[i].spec.cluster.size(); ++r)
        if (k.cta == static_cast<std::int32_t>(r) || (k.cta < 0 && plans[i].cta[r].issues)) ctas |= 1u << r;
    out << "multicast " << i + 1 << ": the kernel's ctaMask is the plan's on "
        << cta_list_text(static_cast<std::uint16_t>(ctas)) << '\n';
  }
  if (armed.empty()) return;
  std::uint32_t ctas = 0;
  for (const KernelArmed& a : armed) ctas |= 1u << a.cta;
  out << "the kernel arms the stage's bytes on " << cta_list_text(static_cast<std::uint16_t>(ctas)) << '\n';
}

}  // namespace

int run_cluster_stage(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit cluster-stage", wants_json(args), out, err};
  CLI::App app{"Every copy that lands in one stage of a cluster, added up per CTA: the bytes to arm, who sends, who issues.",
               rep.command};
  std::string cluster_text, group_text = "1", arch_text = "sm_90";
  std::vector<std::string> multicasts, dsmems, armed_texts;
  bool json = false;
  app.add_option("--cluster", cluster_text, "CTAs per cluster dimension: X[,Y[,Z]] (at most 16 in all)")->required();
  app.add_option("--multicast", multicasts,
                 "'box=HEX|@FILE; share=x|y|z|xy...; mode=sliced|leader_broadcast; slice_dim=N; mask=M' (any number "
                 "of times; mask: the kernel's ctaMask, 0b0101, 0x5, 5 or [0,2], or R:MASK,... per CTA)")
      ->allow_extra_args(false);
  app.add_option("--dsmem", dsmems, "'from=R; to=R; dtype=T; src=LAYOUT; dst=LAYOUT; threads=N' (any number of times)")
      ->allow_extra_args(false);
  app.add_option("--cta-group", group_text,
                 "1 (default) or 2: with 2, a CTA pair's TMA bytes complete on its even CTA's barrier (sm_100 only)");
  app.add_option("--arch", arch_text, "sm_90 (default), sm_100, sm_120: the target (cta_group::2 needs sm_100)");
  app.add_option("--armed", armed_texts,
                 "R=BYTES: what the kernel arms CTA R's full barrier with, checked against the stage (any number of times)")
      ->allow_extra_args(false);
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep, "\nSee docs/field_failures.md (cluster stages) for an example.\n");
      rc >= 0)
    return rc;
  std::uint32_t dims[3];
  if (std::string why; !parse_cluster(cluster_text, dims, why))
    return rep.bad_value("--cluster", quote_user_text(cluster_text) + ": " + why);
  const ClusterShape shape{dims[0], dims[1], dims[2]};
  if (multicasts.empty() && dsmems.empty())
    return rep.usage(UsageRule::value, "give the stage's copies: --multicast SPEC and/or --dsmem SPEC", "", true);
  StageOptions options;
  if (const int rc = parse_stage_options(group_text, arch_text, rep, options); rc >= 0) return rc;
  std::vector<KernelArmed> armed;
  if (const int rc = parse_armed(armed_texts, rep, armed); rc >= 0) return rc;

  std::vector<MulticastPlan> plans(multicasts.size());
  std::vector<std::vector<KernelMask>> masks(multicasts.size());
  std::vector<StageDsmemCopy> copies(dsmems.size());
  std::vector<std::string> errors, notes;
  nlohmann::ordered_json json_errors = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < multicasts.size(); ++i) {
    if (const int rc = plan_multicast_spec(multicasts[i], shape, in, rep, plans[i], masks[i]); rc >= 0) return rc;
    collect(plans[i].diagnostics, "multicast " + std::to_string(i + 1), errors, notes, json_errors);
  }
  for (std::size_t i = 0; i < dsmems.size(); ++i) {
    if (const int rc = plan_dsmem_spec(dsmems[i], rep, copies[i]); rc >= 0) return rc;
    collect(copies[i].plan.diagnostics, "dsmem " + std::to_string(i + 1), errors, notes, json_errors);
  }
  ClusterStage st;
  if (errors.empty()) {  // every copy planned: the sum, and the kernel's numbers against it
    st = plan_cluster_stage(shape.size(), plans.data(), static_cast<int>(plans.size()), copies.data(),
                            static_cast<int>(copies.size()), options);
    collect(st.diagnostics, "", errors, notes, json_errors);
    for (std::size_t i = 0; i < plans.size(); ++i)
      collect_findings(check_kernel_masks(plans[i], masks[i].data(), static_cast<int>(masks[i].size())),
                       "multicast " + std::to_string(i + 1), errors, json_errors);
    collect_findings(check_kernel_armed(st, armed.data(), static_cast<int>(armed.size())), "", errors, json_errors);
  }
  // A refused stage prints no sums: with a copy left out, they would not be the stage's.
  const int rc = errors.empty() ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::ordered_json j{{"cluster", {dims[0], dims[1], dims[2]}},
                             {"multicasts", multicasts.size()},
                             {"dsmem_copies", dsmems.size()},
                             {"cta_group", static_cast<std::uint32_t>(options.cta_group)},
                             {"arch", to_name(options.arch)},
                             {"ctas", errors.empty() ? cluster_stage_ctas_json(st) : nlohmann::ordered_json::array()},
                             {"errors", json_errors},
                             {"notes", notes}};
    return rep.json_result(j, rc, errors.empty());
  }
  for (const std::string& e : errors) err << e << '\n';
  if (!errors.empty()) return rc;
  out << "cluster " << dims[0] << "x" << dims[1] << "x" << dims[2] << " (" << shape.size() << " CTAs), per stage: "
      << multicasts.size() << " multicast operand" << (multicasts.size() == 1 ? "" : "s") << ", " << dsmems.size()
      << " DSMEM cop" << (dsmems.size() == 1 ? "y" : "ies");
  if (options.cta_group == CtaGroup::two)
    out << "; cta_group::2 on " << to_name(options.arch) << ": each CTA pair's TMA bytes complete on its even CTA's barrier";
  out << "\n" << describe_cluster_stage(st);
  print_checked(masks, plans, armed, out);
  for (const std::string& n : notes) out << n << '\n';
  return rc;
}

}  // namespace tmakit::cli
