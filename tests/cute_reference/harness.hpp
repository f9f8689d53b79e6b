// The C++ side of the CuTe reference data (see README.md): included by the batch files that
// make_reference.py writes. Each case is one function that evaluates one operation of CuTe's layout
// algebra on static layouts and prints "<id>\t<result>" on stdout:
//   a layout        as shape:stride with plain integers, e.g. ((2,2),3):((1,4),2)
//   an integer      (size, cosize, max_common_vector) as a decimal number
//   print           the offsets layout(i) for every index i < size, separated by spaces
// Built only against NVIDIA/cutlass's headers (include/cute), never by the project's build.
#pragma once

#include <cstdio>
#include <string>

#include <cute/layout.hpp>

namespace cute_reference {

template <class T>
void put(std::string& s, const T& t) {
  if constexpr (cute::is_tuple<T>::value) {
    s += '(';
    cute::for_each(cute::make_seq<cute::tuple_size<T>::value>{}, [&](auto i) {
      if (i) s += ',';
      put(s, cute::get<i>(t));
    });
    s += ')';
  } else {
    s += std::to_string(static_cast<long long>(t));
  }
}

template <class S, class D>
std::string text(const cute::Layout<S, D>& l) {
  std::string s;
  put(s, l.shape());
  s += ':';
  put(s, l.stride());
  return s;
}

template <class T>
std::string text(const T& v) {
  static_assert(cute::is_integral<T>::value, "a layout or an integer");
  return std::to_string(static_cast<long long>(v));
}

template <class R>
void emit(int id, const R& r) {
  std::printf("%d\t%s\n", id, text(r).c_str());
}

template <class L>
void emit_offsets(int id, const L& l) {
  std::string s;
  for (int i = 0; i < int(cute::size(l)); ++i) {
    if (i) s += ' ';
    s += std::to_string(static_cast<long long>(l(i)));
  }
  std::printf("%d\t%s\n", id, s.c_str());
}

}  // namespace cute_reference
