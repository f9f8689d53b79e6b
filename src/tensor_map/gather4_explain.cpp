// A gather4 / scatter4 check in words (tensor_map/gather4_explain.hpp): each finding's line with
// its numbers, the copy's description and the shared JSON object.
#include "tmakit/tensor_map/gather4_explain.hpp"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit {
namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

const char* target_name(Target t) { return target_info(t).name; }

// The shared-memory side of a form, as the PTX spells it.
const char* shared_side(Gather4Form f) {
  switch (f) {
    case Gather4Form::gather4_cluster: return ".shared::cluster";
    case Gather4Form::gather4_multicast: return ".shared::cluster with .multicast::cluster";
    default: return ".shared::cta";
  }
}

// The CLI's and Python's name of a gather form's destination; nullptr for scatter4.
const char* dst_key(Gather4Form f) {
  switch (f) {
    case Gather4Form::gather4_cta: return "cta";
    case Gather4Form::gather4_cluster: return "cluster";
    case Gather4Form::gather4_multicast: return "multicast";
    case Gather4Form::scatter4: return nullptr;
  }
  return nullptr;
}

// "4 rows x 64 BFLOAT16 (128 B each) = 512 B"
std::string rows_words(const TensorMapParams& p, const Gather4Check& c) {
  return num(kGather4Rows) + " rows x " + num(p.box[0]) + " " + to_name(p.dtype) + " (" + num(c.row_bytes) +
         " B each) = " + num(c.copy_bytes) + " B";
}

// gather4.rank's fix: fold the outer dimensions of a rank-3..5 tiled map into its rows when each
// one's stride is the row pitch times the rows inside it, as one rank-2 map.
std::string rank_fix(const TensorMapParams& p) {
  const std::string general = rule_fix(Gather4Rule::rank);
  if (p.kind != MapKind::tiled || p.rank < 3 || p.rank > kMaxRank) return general;
  std::uint64_t rows = p.dims[1];
  for (std::uint32_t i = 2; i < p.rank; ++i) {
    if (p.strides[i - 1] != p.strides[i - 2] * p.dims[i - 1]) {
      return general + "; dimension " + num(i) + " does not fold into rows (globalStrides[" + num(i - 1) + "] = " +
             num(p.strides[i - 1]) + ", not " + num(p.strides[i - 2] * p.dims[i - 1]) +
             "): one rank-2 map per index of the outer dimensions, its address advanced by their strides";
    }
    rows *= p.dims[i];
  }
  return "encode it as rank 2: globalDim {" + num(p.dims[0]) + ", " + num(rows) + "}, globalStrides {" +
         num(p.strides[0]) + "}, boxDim {" + num(p.box[0]) +
         ", 1} (the outer dimensions fold into the rows: each one's stride is the row pitch times the rows inside "
         "it)";
}

// gather4.armed_bytes's rule in words: what the copies deliver, the mistake the numbers show, what
// the difference does.
std::string armed_words(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c) {
  std::string w =
      r.copies == 1 ? "1 gather4 copy per phase delivers " : num(r.copies) + " gather4 copies per phase deliver ";
  w += num(c.expect_bytes) + " B, " + (r.copies == 1 ? "" : "each ") + num(kGather4Rows) + " rows of " + num(p.box[0]) +
       " " + to_name(p.dtype) + " (" + num(c.row_bytes) + " B each)";
  const std::uint64_t per_box = std::uint64_t{r.copies} * c.box_bytes;
  if (r.armed_bytes == per_box && c.box_bytes == c.row_bytes) {
    w += ": " + num(r.armed_bytes) + " B is the map's box, one row" + (r.copies == 1 ? "" : " per copy") +
         ", where a gather4 copy delivers four";
  } else if (r.armed_bytes == per_box) {
    w += ": " + num(r.armed_bytes) + " B is the map's box as a tiled copy delivers it (boxDim[1] = " + num(p.box[1]) +
         "), where a gather4 copy delivers four rows of one";
  }
  if (r.armed_bytes < c.expect_bytes)
    return w + "; the phase completes once " + num(r.armed_bytes) + " B have landed, while " +
           num(c.expect_bytes - r.armed_bytes) +
           " B are still arriving: the consumer can read rows that are not there yet, and the late bytes count "
           "against the next phase";
  return w + "; the barrier waits for " + num(r.armed_bytes - c.expect_bytes) +
         " B more than arrive, and its wait never completes (the hang)";
}

// The "<rule>" part of one finding's line (after "<input> = <value>: ").
std::string finding_words(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c,
                          const Gather4Finding& f) {
  switch (f.rule) {
    case Gather4Rule::gather4_arch:
      return std::string(rule_text(f.rule)) + "; CCCL's cp_async_bulk_tensor_tile_gather4 is 'not supported before "
             "SM_100'";
    case Gather4Rule::cluster_destination:
      return std::string(rule_text(f.rule)) + ", and " + target_name(r.target) +
             " is neither: its gather4 writes .shared::cta only (ptxas refuses '.tile::gather4 with destination "
             "state space as .shared::cluster' there)";
    case Gather4Rule::scatter4_arch:
      if (r.target == Target::sm_120a)
        return std::string(rule_text(f.rule)) + "; " + target_name(r.target) +
               " has gather4 but not scatter4 (ptxas: Feature '.tile::scatter4' not supported on .target '" +
               target_name(r.target) + "')";
      return rule_text(f.rule);
    case Gather4Rule::armed_bytes: return armed_words(p, r, c);
    case Gather4Rule::scatter4_armed:
      return std::string(rule_text(f.rule)) + ": a wait on that barrier never completes (the hang)";
    default: return rule_text(f.rule);
  }
}

// The fix of one finding, computed where the numbers say more than the table's words.
std::string finding_fix(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c,
                        const Gather4Finding& f) {
  switch (f.rule) {
    case Gather4Rule::rank: return rank_fix(p);
    case Gather4Rule::box_rows:
      return "encode boxDim {" + num(p.box[0]) + ", 1}: the copy then moves " + rows_words(p, c);
    case Gather4Rule::armed_bytes:
      return "arm " + num(c.expect_bytes) + " B: copies x 4 x boxDim[0] x element bytes (" +
             (r.copies == 1 ? num(c.copy_bytes) + " B per gather4 copy)"
                            : num(r.copies) + " copies x " + num(c.copy_bytes) + " B)");
    default: return rule_fix(f.rule);
  }
}

// The input a finding concerns and its value as text.
std::pair<std::string, std::string> finding_input(const TensorMapParams& p, const Gather4Request& r,
                                                  const Gather4Finding& f) {
  switch (f.rule) {
    case Gather4Rule::gather4_arch: case Gather4Rule::scatter4_arch: return {"target", target_name(r.target)};
    case Gather4Rule::cluster_destination: return {"destination", shared_side(r.form)};
    case Gather4Rule::mode: return {"kind", to_name(p.kind)};
    case Gather4Rule::rank: return {"tensorRank", num(p.rank)};
    case Gather4Rule::box_rows: return {"boxDim[1]", num(p.box[1])};
    case Gather4Rule::interleave: return {"interleave", to_name(p.interleave)};
    case Gather4Rule::armed_bytes: case Gather4Rule::scatter4_armed: return {"armed bytes", num(r.armed_bytes)};
  }
  return {"", ""};
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

std::vector<Diagnostic> explain_gather4(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c) {
  std::vector<Diagnostic> out;
  for (const Gather4Finding& f : c.findings) {
    auto [field, value] = finding_input(p, r, f);
    out.push_back(make_diagnostic(rule_id(f.rule), field, value, finding_words(p, r, c, f), finding_fix(p, r, c, f)));
  }
  TensorMapParams on_target = p;
  on_target.arch = target_arch(r.target);
  for (Diagnostic& d : explain(on_target, c.tile_mode)) out.push_back(std::move(d));
  return out;
}

std::string describe_gather4(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c) {
  const bool gather = is_gather(r.form);
  std::string s = std::string(gather ? "gather4" : "scatter4") + " on " + target_name(r.target) +
                  (gather ? " into " : " from ") + shared_side(r.form) + " (per the PTX ISA; unverified on hardware)\n";
  s += "instruction  " + std::string(gather4_ptx(r.form)) + "\n";
  s += "one copy     " + rows_words(p, c) + (gather ? " delivered" : " written") + "; the map's box is " +
       (c.box_bytes == c.row_bytes ? "one row, " : "") + num(c.box_bytes) + " B\n";
  if (gather) {
    s += "expect_tx    " + num(c.expect_bytes) + " B per phase (" + num(r.copies) + (r.copies == 1 ? " copy" : " copies") +
         (r.form == Gather4Form::gather4_multicast ? ", on the barrier of each CTA in the ctaMask" : "") + ")\n";
  } else {
    s += "completion   the bulk async-group: cp.async.bulk.commit_group, then cp.async.bulk.wait_group.read 0 before "
         "the shared rows are written again (no mbarrier, no expect_tx)\n";
  }
  return s;
}

nlohmann::ordered_json gather4_json(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c) {
  const bool gather = is_gather(r.form);
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  std::string text = c.ok() ? describe_gather4(p, r, c) : std::string();
  for (const Diagnostic& d : explain_gather4(p, r, c)) {
    errors.push_back(finding_json(d, nlohmann::ordered_json{{"field", d.where}, {"value", d.value}}));
    text += d.message() + "\n";
  }
  const char* dst = dst_key(r.form);
  nlohmann::ordered_json j{{"op", gather ? "gather4" : "scatter4"},
                           {"target", target_name(r.target)},
                           {"dst", dst ? nlohmann::ordered_json(dst) : nlohmann::ordered_json(nullptr)},
                           {"instruction", gather4_ptx(r.form)},
                           {"row_bytes", c.row_bytes},
                           {"copy_bytes", c.copy_bytes},
                           {"box_bytes", c.box_bytes},
                           {"copies", r.copies},
                           {"expect_tx", gather ? nlohmann::ordered_json(c.expect_bytes) : nlohmann::ordered_json(nullptr)},
                           {"armed_bytes", r.armed ? nlohmann::ordered_json(r.armed_bytes) : nlohmann::ordered_json(nullptr)},
                           {"result", c.ok() ? 0 : 1},
                           {"errors", errors},
                           {"text", text}};
  return j;
}

bool parse_gather4_form(std::string_view op, std::string_view dst, Gather4Form& out, std::string& why) {
  const std::string o = lower(op), d = lower(dst);
  if (o == "scatter4") {
    if (!d.empty()) {
      why = "scatter4 reads .shared::cta and writes global memory: it takes no destination in shared memory";
      return false;
    }
    out = Gather4Form::scatter4;
    return true;
  }
  if (o != "gather4") {
    why = quote_user_text(op) + " is not gather4 or scatter4";
    return false;
  }
  if (d.empty() || d == "cta") out = Gather4Form::gather4_cta;
  else if (d == "cluster") out = Gather4Form::gather4_cluster;
  else if (d == "multicast") out = Gather4Form::gather4_multicast;
  else {
    why = quote_user_text(dst) + " is not cta, cluster or multicast";
    return false;
  }
  return true;
}

}  // namespace tmakit
