// Cluster plans from Python: multicast of one operand's tile across a cluster (plan_multicast),
// SM-to-SM copies between two shared layouts (plan_dsmem_copy) and a stage's copies added up per
// CTA (plan_cluster_stage, as `tmakit cluster-stage`), with a kernel's own ctaMasks and armed bytes
// checked against it (cluster/stage_check.hpp). A refusal raises tmakit.Refused with every cluster
// rule violated (explain() of cluster/explain.hpp: "error [expect.fan_in] CTA 1: ...; fix: ...",
// or a StageFinding's message); the plans become dicts of the plan's own fields.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/cluster/dsmem_layout.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/stage.hpp"
#include "tmakit/cluster/stage_check.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::py {
namespace {

// Errors (each `where`-prefixed: which copy of a stage) are gathered into `errors`; notes
// (decisions) are returned.
nb::list gather_diagnostics(const ClusterDiagnostics& ds, std::vector<PyViolation>& errors, const std::string& where = "") {
  nb::list notes;
  for (const ClusterViolation& v : ds) {
    PyViolation pv = violation_of(to_finding(v), std::to_string(v.value));
    if (v.cta < 0) pv.field = where;
    if (!where.empty()) pv.message = where + ": " + pv.message;
    if (is_note(v.rule)) notes.append(pv.message);
    else errors.push_back(pv);
  }
  return notes;
}
// A check's findings, gathered as gather_diagnostics gathers a plan's errors.
void gather_findings(const std::vector<StageFinding>& fs, std::vector<PyViolation>& errors, const std::string& where = "") {
  for (const StageFinding& f : fs) {
    PyViolation pv = violation_of(f);
    if (f.cta < 0) pv.field = where;
    if (!where.empty()) pv.message = where + ": " + pv.message;
    errors.push_back(std::move(pv));
  }
}
// Errors refuse; notes (decisions) are returned with the plan.
nb::list check_diagnostics(const ClusterDiagnostics& ds) {
  std::vector<PyViolation> errors;
  nb::list notes = gather_diagnostics(ds, errors);
  if (!errors.empty()) refuse(errors);
  return notes;
}

// One operand's multicast plan from the words the CLI takes (parse_multicast_share / _mode).
MulticastPlan plan_multicast_of(nb::handle box, const ClusterShape& cluster, const std::string& share,
                                const std::string& mode, std::optional<std::uint32_t> slice_dim) {
  MulticastSpec s;
  s.cluster = cluster;
  std::string why;
  if (!parse_multicast_share(share, s.share, why)) usage_error(why);
  if (!parse_multicast_mode(mode, s.mode, why)) usage_error(why);
  s.box = decode(map_from_buffer(box, "box")).params;
  if (slice_dim) s.slice_dim = *slice_dim;
  return plan_multicast(s);
}

// An SM-to-SM copy's plan from two layouts in CuTe notation and the element type's name.
DsmemPlan plan_dsmem_of(const std::string& src, const std::string& dst, const std::string& dtype, std::uint32_t threads) {
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(src), t = parse_swizzled_layout(dst);
  if (!s.ok) usage_error("src: " + s.error.message);
  if (!t.ok) usage_error("dst: " + t.error.message);
  DataType type{};
  std::string why;
  if (!parse_name(dtype, type, &why)) usage_error("dtype: " + why);
  if (element_bits(type) < 8) usage_error("dtype " + dtype + ": sub-byte types have no byte offsets");
  if (threads < 1 || threads > 1024) usage_error("threads: " + std::to_string(threads) + " is not a CTA's thread count (1..1024)");
  return plan_dsmem_copy(s.value, t.value, element_bits(type) / 8, threads);
}

nb::dict multicast(nb::handle box, std::array<std::uint32_t, 3> cluster, const std::string& share, const std::string& mode,
                   std::optional<std::uint32_t> slice_dim) {
  const ClusterShape shape{cluster[0], cluster[1], cluster[2]};
  const MulticastPlan p = plan_multicast_of(box, shape, share, mode, slice_dim);
  const MulticastSpec& s = p.spec;
  nb::dict d;
  d["notes"] = check_diagnostics(p.diagnostics);
  d["decision"] = decision_name(p.decision);
  d["tile_bytes"] = p.tile_bytes;
  d["buffer_bytes"] = p.buffer_bytes;
  d["slice_dim"] = p.slice_dim;
  nb::list ctas;
  for (std::uint32_t r = 0; r < s.cluster.size() && r < kMaxClusterSize; ++r) {
    const MulticastCta& c = p.cta[r];
    const ClusterCoord xyz = s.cluster.coord_of(r);
    nb::dict e;
    e["rank"] = r;
    e["coord"] = nb::make_tuple(xyz.x, xyz.y, xyz.z);
    e["active"] = c.active;
    e["issues"] = c.issues;
    e["mask"] = c.issue.mask;
    e["multicast"] = c.issue.multicast;
    e["slice"] = c.issue.slice;
    e["slices"] = c.issue.slices;
    e["coord_offset"] = c.issue.coord_offset;
    e["smem_offset"] = c.issue.smem_offset;
    e["bytes"] = c.issue.bytes;
    e["sharers"] = c.sharers;
    e["senders"] = c.senders;
    e["fan_in"] = c.fan_in;
    e["expect_bytes"] = c.expect_bytes;
    ctas.append(e);
  }
  d["ctas"] = ctas;
  return d;
}

nb::dict dsmem_copy(const std::string& src, const std::string& dst, const std::string& dtype, std::uint32_t threads) {
  const DsmemPlan p = plan_dsmem_of(src, dst, dtype, threads);
  nb::dict d;
  d["notes"] = check_diagnostics(p.diagnostics);
  d["path"] = dsmem_path_name(p.path);
  d["reason"] = rule_id(p.reason);
  d["reason_text"] = rule_text(p.reason);
  d["elements"] = p.elements;
  d["total_bytes"] = p.total_bytes;
  d["min_pieces"] = p.min_pieces;
  nb::list pieces;
  for (std::uint32_t i = 0; i < p.piece_count; ++i) pieces.append(nb::make_tuple(p.pieces[i].src, p.pieces[i].dst, p.pieces[i].bytes));
  d["pieces"] = pieces;
  d["unit_bytes"] = p.unit_bytes;
  d["units"] = p.units;
  d["tx_bytes"] = p.tx_bytes;
  d["remote_arrivals"] = p.remote_arrivals;
  d["issuing_threads"] = p.issuing_threads;
  d["receiver_init_count"] = p.receiver_init_count();
  return d;
}

// A multicast copy of a stage: (box, share, mode, slice_dim, the kernel's ctaMasks as (cta, mask),
// cta -1 for every issuing CTA); a DSMEM copy: (src, dst, dtype, threads, from, to); the kernel's
// armed bytes: (cta, bytes) (tmakit/__init__.py's cluster_stage builds them from the caller's
// arguments and checks their types and ranges).
using KernelMaskArgs = std::vector<std::tuple<std::int32_t, std::uint16_t>>;
using StageMulticastArgs = std::tuple<nb::object, std::string, std::string, std::optional<std::uint32_t>, KernelMaskArgs>;
using StageDsmemArgs = std::tuple<std::string, std::string, std::string, std::uint32_t, std::uint32_t, std::uint32_t>;
using KernelArmedArgs = std::vector<std::tuple<std::uint32_t, std::uint64_t>>;

StageOptions stage_options(std::uint32_t cta_group, const std::string& arch) {
  StageOptions o;
  if (cta_group != 1 && cta_group != 2) usage_error("cta_group: " + std::to_string(cta_group) + "; expected 1 or 2");
  o.cta_group = cta_group == 1 ? CtaGroup::one : CtaGroup::two;
  std::string why;
  if (!parse_name(arch, o.arch, &why)) usage_error("arch: " + why);
  return o;
}

nb::dict cluster_stage(std::array<std::uint32_t, 3> cluster, const std::vector<StageMulticastArgs>& multicasts,
                       const std::vector<StageDsmemArgs>& dsmem, std::uint32_t cta_group, const std::string& arch,
                       const KernelArmedArgs& armed_args) {
  const ClusterShape shape{cluster[0], cluster[1], cluster[2]};
  if (shape.size() < 1 || shape.size() > kMaxClusterSize)
    usage_error("cluster: " + std::to_string(shape.size()) + " CTAs; a cluster holds 1.." + std::to_string(kMaxClusterSize));
  if (multicasts.empty() && dsmem.empty()) usage_error("give the stage's copies: multicast=[...] and/or dsmem=[...]");
  const StageOptions options = stage_options(cta_group, arch);
  std::vector<MulticastPlan> plans;
  std::vector<std::vector<KernelMask>> masks;
  std::vector<StageDsmemCopy> copies;
  std::vector<PyViolation> errors;
  nb::list notes;
  for (const auto& [box, share, mode, slice_dim, kernel_masks] : multicasts) {
    plans.push_back(plan_multicast_of(box, shape, share, mode, slice_dim));
    masks.emplace_back();
    for (const auto& [cta, mask] : kernel_masks) masks.back().push_back(KernelMask{cta, mask});
    notes.extend(gather_diagnostics(plans.back().diagnostics, errors, "multicast " + std::to_string(plans.size())));
  }
  for (const auto& [src, dst, dtype, threads, from, to] : dsmem) {
    copies.push_back(StageDsmemCopy{plan_dsmem_of(src, dst, dtype, threads), from, to});
    notes.extend(gather_diagnostics(copies.back().plan.diagnostics, errors, "dsmem " + std::to_string(copies.size())));
  }
  if (!errors.empty()) refuse(errors);  // a copy refused alone: no sum to take
  const ClusterStage st = plan_cluster_stage(shape.size(), plans.data(), static_cast<int>(plans.size()), copies.data(),
                                             static_cast<int>(copies.size()), options);
  notes.extend(gather_diagnostics(st.diagnostics, errors));
  for (std::size_t i = 0; i < plans.size(); ++i)
    gather_findings(check_kernel_masks(plans[i], masks[i].data(), static_cast<int>(masks[i].size())), errors,
                    "multicast " + std::to_string(i + 1));
  std::vector<KernelArmed> armed;
  for (const auto& [cta, bytes] : armed_args) armed.push_back(KernelArmed{cta, bytes});
  gather_findings(check_kernel_armed(st, armed.data(), static_cast<int>(armed.size())), errors);
  if (!errors.empty()) refuse(errors);
  nb::dict d;
  d["cluster"] = nb::make_tuple(cluster[0], cluster[1], cluster[2]);
  d["cta_group"] = cta_group;
  d["arch"] = to_name(options.arch);
  d["ctas"] = to_python(cluster_stage_ctas_json(st));
  d["notes"] = notes;
  d["text"] = describe_cluster_stage(st);
  return d;
}

// The `mask=` text of the CLI's multicast SPEC as (cta, mask) pairs (cta -1: every issuing CTA).
KernelMaskArgs kernel_masks(const std::string& text) {
  std::vector<KernelMask> masks;
  std::string why;
  if (!parse_kernel_masks(text, masks, why)) usage_error(why);
  KernelMaskArgs out;
  for (const KernelMask& k : masks) out.emplace_back(k.cta, k.mask);
  return out;
}

}  // namespace

void bind_cluster(nb::module_& m) {
  m.def("multicast", &multicast, nb::arg("box"), nb::arg("cluster"), nb::arg("share"), nb::arg("mode"),
        nb::arg("slice_dim").none(),
        "one operand's tile (the descriptor of the WHOLE tile) shared across a cluster: per CTA what it issues and expects");
  m.def("dsmem_copy", &dsmem_copy, nb::arg("src"), nb::arg("dst"), nb::arg("dtype"), nb::arg("threads") = 128,
        "an SM-to-SM copy from a shared layout of this CTA to one of a peer: path, pieces, bytes to expect");
  m.def("cluster_stage", &cluster_stage, nb::arg("cluster"), nb::arg("multicasts"), nb::arg("dsmem"),
        nb::arg("cta_group"), nb::arg("arch"), nb::arg("armed"),
        "every copy that lands in one stage of a cluster, added up per CTA: bytes to arm, senders, issuers; the "
        "kernel's ctaMasks and armed bytes checked against it");
  m.def("kernel_masks", &kernel_masks, nb::arg("text"),
        "a kernel's ctaMasks as the CLI's mask= reads them: [(cta, mask)], cta -1 for every issuing CTA");
}

}  // namespace tmakit::py
