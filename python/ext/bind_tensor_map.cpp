// The tensor-map codec from Python: encode, validate, decode, diff, hex. Parameters arrive as a dict
// in the schema of `tmakit encode --jsonl` (jsonl.hpp: names or cuda.h integers, dims innermost
// first, byte strides), so the library's own parser checks them (input.type / input.range /
// input.name) and every answer is the library's: explain()'s words, decode_json, diff_json.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/explain.hpp"
#include "tmakit/tensor_map/im2col_conv.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/smem_base.hpp"
#include "tmakit/tensor_map/storage.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit::py {
namespace {

// The parameters of a dict, or Refused with every input error.
TensorMapParams params_of(const nb::dict& fields) {
  const std::string line = from_python(fields, "").dump();
  TensorMapParams p;
  std::vector<jsonl::Error> errors;
  if (!jsonl::parse_params(line, p, errors)) {
    std::vector<PyViolation> v;
    for (const jsonl::Error& e : errors) v.push_back({e.rule, e.field, e.value, e.message, "", ""});
    refuse(v);
  }
  return p;
}

std::vector<PyViolation> violations_of(const TensorMapParams& p, const Violations& found) {
  std::vector<PyViolation> v;
  for (const Diagnostic& d : explain(p, found)) v.push_back(violation_of(d, d.value));
  return v;
}

nb::bytes encode_fields(const nb::dict& fields) {
  const TensorMapParams p = params_of(fields);
  const EncodeResult r = encode_host(p);
  if (!r.ok()) refuse(violations_of(p, r.violations));
  return map_to_bytes(r.map);
}

nb::list validate_fields(const nb::dict& fields) {
  const TensorMapParams p = params_of(fields);
  nb::list out;
  for (const PyViolation& v : violations_of(p, validate(p))) out.append(violation_dict(v));
  return out;
}

nb::object decode_bytes(nb::handle b) {
  const TensorMapBytes m = map_from_buffer(b, "decode");
  nb::dict d = nb::borrow<nb::dict>(to_python(decode_json(m)));
  d["text"] = decode_text(m);
  return d;
}

nb::object diff_bytes(nb::handle a, nb::handle b) {
  const TensorMapBytes x = map_from_buffer(a, "diff (first descriptor)");
  const TensorMapBytes y = map_from_buffer(b, "diff (second descriptor)");
  nb::dict d = nb::borrow<nb::dict>(to_python(diff_json(x, y)));
  d["text"] = diff_text(x, y);
  return d;
}

// The storage check of a map at `address` (tensor_map/storage.hpp): {"address", "ok", "errors", "notes"},
// each finding {"rule", "field", "value", "message", "fix"} (tmakit.Violation's fields).
nb::object map_storage(std::uint64_t address) {
  const MapStorageCheck c = check_map_storage(address);
  nb::list errors, notes;
  for (const MapStorageFinding& f : explain_map_storage(c)) {
    PyViolation v = violation_of(f, std::to_string(c.address));
    v.field = "address";  // the argument's name
    (f.is_error() ? errors : notes).append(violation_dict(v));
  }
  nb::dict out;
  out["address"] = c.address;
  out["ok"] = c.ok();
  out["errors"] = errors;
  out["notes"] = notes;
  return out;
}

// A copy's shared tile at `address`, checked against the descriptor's swizzle
// (tensor_map/smem_base.hpp): {"address", "needed", "ok", "errors"}, each error tmakit.Violation's fields.
nb::object smem_base(std::uint64_t address, nb::handle descriptor) {
  const TensorMapBytes m = map_from_buffer(descriptor, "check_smem_base");
  const SmemBaseCheck c = check_smem_base(address, decode(m).params.swizzle);
  nb::list errors;
  for (const SmemBaseFinding& f : explain_smem_base(c))
    errors.append(violation_dict(violation_of(f, f.actual)));
  nb::dict out;
  out["address"] = c.address;
  out["needed"] = c.needed;
  out["ok"] = c.ok();
  out["errors"] = errors;
  return out;
}

// An im2col descriptor's walk against a convolution (tensor_map/im2col_conv.hpp): the findings, each
// tmakit.Violation's fields; ValueError where the pair cannot be checked (the CLI's exit 2).
nb::list im2col_conv(nb::handle descriptor, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
                     const std::vector<std::int64_t>& pad, const std::vector<std::int64_t>& dilation) {
  const TensorMapParams p = decode(map_from_buffer(descriptor, "check_im2col_conv")).params;
  Im2colConv conv;
  std::string why;
  if (!make_im2col_conv(p.rank >= 2 ? p.rank - 2 : 0, kernel, stride, pad, dilation, conv, why)) usage_error(why);
  if (const std::string e = im2col_conv_usage_error(p, conv); !e.empty()) usage_error(e);
  nb::list out;
  for (const Im2colConvFinding& f : explain_im2col_conv(p, conv, check_im2col_conv(p, conv)))
    out.append(violation_dict(violation_of(f)));
  return out;
}

nb::bytes from_hex(const std::string& text) {
  TensorMapBytes m;
  std::string why;
  if (!parse_hex(text, m, &why)) usage_error("not a descriptor: " + why);
  return map_to_bytes(m);
}

}  // namespace

void bind_tensor_map(nb::module_& m) {
  m.def("encode", &encode_fields, nb::arg("fields"),
        "The 128 bytes of the parameters in `fields` (the schema of `tmakit encode --jsonl`); raises "
        "tmakit.Refused with every violated rule.");
  m.def("validate", &validate_fields, nb::arg("fields"),
        "Every rule the parameters violate, as dicts (rule, field, value, message, fix); empty when valid.");
  m.def("decode", &decode_bytes, nb::arg("descriptor"),
        "The fields of 128 descriptor bytes: `tmakit decode --json`'s object plus 'text'.");
  m.def("diff", &diff_bytes, nb::arg("a"), nb::arg("b"),
        "Every differing field of two descriptors: `tmakit diff --json`'s object plus 'text'.");
  m.def("check_map_storage", &map_storage, nb::arg("address"),
        "A tensor map stored at `address`, checked for what reads it: `tmakit decode --stored-at`'s \"storage\" "
        "object (errors: map.storage_align; notes: map.storage_abi).");
  m.def("check_smem_base", &smem_base, nb::arg("address"), nb::arg("descriptor"),
        "A copy's shared tile starting at `address`, checked against the descriptor's swizzle: `tmakit decode "
        "--smem-base`'s \"smem_base\" object (errors: smem.base_align128, smem.base_align).");
  m.def("check_im2col_conv", &im2col_conv, nb::arg("descriptor"), nb::arg("kernel"), nb::arg("stride"), nb::arg("pad"),
        nb::arg("dilation"),
        "An im2col descriptor's pixel walk against a convolution (`tmakit check im2col --conv`): every "
        "im2col.conv_* finding; ValueError where the two cannot be checked.");
  m.def("from_hex", &from_hex, nb::arg("text"),
        "The 128 bytes of 256 hex digits (whitespace, 0x and ':'/'-' separators ignored).");
  m.def("encode_fast_host_form", []() { return std::string(encode_fast_host_form()); },
        "Which SIMD form of the encoder's fast path this CPU runs.");
}

}  // namespace tmakit::py
