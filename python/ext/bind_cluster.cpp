// Cluster plans from Python: multicast of one operand's tile across a cluster (plan_multicast) and
// SM-to-SM copies between two shared layouts (plan_dsmem_copy). A refusal raises tmakit.Refused
// with every cluster rule violated (explain() of cluster/explain.hpp: "error [expect.fan_in] CTA 1:
// ...; fix: ..."); the plans become dicts of the plan's own fields.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/cluster/dsmem_layout.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::py {
namespace {

// Errors refuse; notes (decisions) are returned with the plan.
nb::list check_diagnostics(const ClusterDiagnostics& ds) {
  std::vector<PyViolation> errors;
  nb::list notes;
  for (const ClusterViolation& v : ds) {
    const PyViolation pv{rule_id(v.rule), v.cta >= 0 ? "CTA " + std::to_string(v.cta) : "", std::to_string(v.value),
                         explain(v), rule_fix(v.rule)};
    if (is_note(v.rule)) notes.append(pv.message);
    else errors.push_back(pv);
  }
  if (!errors.empty()) refuse(errors);
  return notes;
}

nb::dict multicast(nb::handle box, std::array<std::uint32_t, 3> cluster, const std::string& share, const std::string& mode,
                   std::optional<std::uint32_t> slice_dim) {
  MulticastSpec s;
  s.cluster = ClusterShape{cluster[0], cluster[1], cluster[2]};
  for (const char c : share) {
    if (c < 'x' || c > 'z') usage_error("share '" + share + "': the cluster dimensions the CTAs share the tile along, e.g. 'x', 'y' or 'xy'");
    if (s.share[c - 'x']) usage_error("share '" + share + "': each cluster dimension once (e.g. 'xy')");
    s.share[c - 'x'] = true;
  }
  if (mode == "leader_broadcast") s.mode = MulticastMode::leader_broadcast;
  else if (mode == "sliced") s.mode = MulticastMode::sliced;
  else usage_error("mode '" + mode + "': expected 'leader_broadcast' or 'sliced'");
  s.box = decode(map_from_buffer(box, "box")).params;
  if (slice_dim) s.slice_dim = *slice_dim;
  const MulticastPlan p = plan_multicast(s);
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
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(src), t = parse_swizzled_layout(dst);
  if (!s.ok) usage_error("src: " + s.error.message);
  if (!t.ok) usage_error("dst: " + t.error.message);
  DataType type{};
  std::string why;
  if (!parse_name(dtype, type, &why)) usage_error("dtype: " + why);
  if (element_bits(type) < 8) usage_error("dtype " + dtype + ": sub-byte types have no byte offsets");
  const DsmemPlan p = plan_dsmem_copy(s.value, t.value, element_bits(type) / 8, threads);
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

}  // namespace

void bind_cluster(nb::module_& m) {
  m.def("multicast", &multicast, nb::arg("box"), nb::arg("cluster"), nb::arg("share"), nb::arg("mode"),
        nb::arg("slice_dim").none(),
        "one operand's tile (the descriptor of the WHOLE tile) shared across a cluster: per CTA what it issues and expects");
  m.def("dsmem_copy", &dsmem_copy, nb::arg("src"), nb::arg("dst"), nb::arg("dtype"), nb::arg("threads") = 128,
        "an SM-to-SM copy from a shared layout of this CTA to one of a peer: path, pieces, bytes to expect");
}

}  // namespace tmakit::py
