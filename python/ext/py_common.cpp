// JSON <-> Python, the 128 bytes, refusals and usage errors (see py_common.hpp).
#include "py_common.hpp"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <utility>

namespace tmakit::py {

PyViolation violation_of(const Finding& f, std::string value) {
  return {f.rule_id, f.where, std::move(value), f.message(), f.fix, f.what};
}

nb::dict violation_dict(const PyViolation& v) {
  nb::dict d;
  d["rule"] = v.rule;
  d["field"] = v.field;
  d["value"] = v.value;
  d["message"] = v.message;
  d["fix"] = v.fix;
  d["what"] = v.what;
  return d;
}

void refuse(const std::vector<PyViolation>& violations) {
  nb::list items;
  for (const PyViolation& v : violations) items.append(violation_dict(v));
  const nb::object cls = nb::module_::import_("tmakit._errors").attr("Refused");
  const nb::object exc = cls(items);
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw nb::python_error();
}

void usage_error(const std::string& message) { throw nb::value_error(message.c_str()); }

namespace {
template <class Json>
nb::object to_python_impl(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return nb::none();
    case nlohmann::json::value_t::boolean: return nb::bool_(j.template get<bool>());
    case nlohmann::json::value_t::number_integer: return nb::int_(j.template get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return nb::steal(PyLong_FromUnsignedLongLong(j.template get<std::uint64_t>()));
    case nlohmann::json::value_t::number_float: return nb::float_(j.template get<double>());
    case nlohmann::json::value_t::string: return nb::str(j.template get_ref<const std::string&>().c_str());
    case nlohmann::json::value_t::array: {
      nb::list l;
      for (const auto& e : j) l.append(to_python_impl(e));
      return l;
    }
    case nlohmann::json::value_t::object: {
      nb::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[nb::str(it.key().c_str())] = to_python_impl(it.value());
      return d;
    }
    default: return nb::none();
  }
}
}  // namespace

nb::object to_python(const nlohmann::json& j) { return to_python_impl(j); }
nb::object to_python(const nlohmann::ordered_json& j) { return to_python_impl(j); }

namespace {

// The deepest nesting from_python follows: the schema nests two levels (a dict of lists of
// integers); a list that contains itself would recurse without end.
constexpr int kMaxDepth = 8;

[[noreturn]] void wrong_type(const std::string& what, const std::string& why) {
  throw nb::type_error((what + ": " + why).c_str());
}

std::string py_type_name(nb::handle h) { return nb::cast<std::string>(nb::str(h.type().attr("__name__"))); }

// An int beyond 64 bits: refused as the library refuses a value out of range (input.range).
[[noreturn]] void refuse_beyond_64_bits(const nb::object& n, const std::string& what) {
  std::string digits = nb::cast<std::string>(nb::str(n));
  if (digits.size() > 64) digits = digits.substr(0, 64) + "...";
  const std::string words = what + " = " + digits + ": must be an integer in -2^63..2^64-1 (64 bits)";
  refuse({{"input.range", what, digits, "error [input.range] " + words, "", words}});
}

nlohmann::json integer_from_python(nb::handle h, const std::string& what) {
  PyObject* index = PyNumber_Index(h.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    wrong_type(what, "expected an integer, a string or a list, not " + py_type_name(h));
  }
  const nb::object n = nb::steal(index);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(n.ptr(), &overflow);
  if (overflow == 0) return static_cast<std::int64_t>(v);
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(n.ptr());
    if (!PyErr_Occurred()) return static_cast<std::uint64_t>(u);
    PyErr_Clear();
  }
  refuse_beyond_64_bits(n, what);
}

nlohmann::json from_python_at(nb::handle h, const std::string& what, int depth) {
  if (depth > kMaxDepth) wrong_type(what, "nested more than " + std::to_string(kMaxDepth) + " levels deep (a list that holds itself?)");
  // None, bool and float are values of no parameter: refused here, not read as "missing" (None, and
  // a NaN or infinity, which JSON writes as null) or turned into something else.
  if (h.is_none()) wrong_type(what, "None is not a value (leave the key out for its default)");
  if (nb::isinstance<nb::bool_>(h) || nb::isinstance<nb::float_>(h))
    wrong_type(what, "expected an integer, a string or a list, not " + py_type_name(h) + " " + nb::cast<std::string>(nb::repr(h)));
  if (nb::isinstance<nb::str>(h)) return nb::cast<std::string>(h);
  if (nb::isinstance<nb::dict>(h)) {
    nlohmann::json j = nlohmann::json::object();
    for (auto [k, v] : nb::borrow<nb::dict>(h)) {
      if (!nb::isinstance<nb::str>(k)) wrong_type(what.empty() ? "fields" : what, "keys are names (str), not " + py_type_name(k));
      const std::string key = nb::cast<std::string>(k);
      j[key] = from_python_at(v, what.empty() ? key : what + "." + key, depth + 1);
    }
    return j;
  }
  if (nb::isinstance<nb::list>(h) || nb::isinstance<nb::tuple>(h)) {
    nlohmann::json j = nlohmann::json::array();
    std::size_t i = 0;
    for (nb::handle e : h) j.push_back(from_python_at(e, what + "[" + std::to_string(i++) + "]", depth + 1));
    return j;
  }
  return integer_from_python(h, what);  // int, numpy integers, anything with __index__
}

}  // namespace

nlohmann::json from_python(nb::handle h, const std::string& what) { return from_python_at(h, what, 0); }

TensorMapBytes map_from_buffer(nb::handle h, const char* what) {
  Py_buffer view;
  if (PyObject_GetBuffer(h.ptr(), &view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    usage_error(std::string(what) + ": expected 128 bytes (bytes, bytearray, memoryview, a uint8 array or tensor, "
                                    "a TensorMap) or 256 hex digits");
  }
  const Py_ssize_t n = view.len;
  TensorMapBytes m;
  if (n == 128) std::memcpy(m.words, view.buf, 128);
  PyBuffer_Release(&view);
  if (n != 128) usage_error(std::string(what) + ": a descriptor is 128 bytes, got " + std::to_string(n));
  return m;
}

nb::bytes map_to_bytes(const TensorMapBytes& m) { return nb::bytes(reinterpret_cast<const char*>(m.words), 128); }

}  // namespace tmakit::py
