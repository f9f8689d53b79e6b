#include "conv_spec.hpp"

#include <vector>

#include "options.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

bool parse_conv_spec(const std::string& spec, std::uint32_t spatial, Im2colConv& out, std::string& why) {
  std::vector<std::int64_t> lists[4];
  bool seen[4] = {};
  constexpr const char* kKeys[4] = {"kernel", "stride", "pad", "dilation"};
  std::string text = spec;
  for (char& ch : text)
    if (ch == ';') ch = ' ';
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string item = text.substr(start, end - start);
    at = end;
    const std::size_t eq = item.find('=');
    int key = -1;
    for (int k = 0; k < 4; ++k)
      if (eq != std::string::npos && item.compare(0, eq, kKeys[k]) == 0) key = k;
    if (key < 0) {
      why = quote_user_text(item) + ": expected kernel=, stride=, pad= or dilation=";
      return false;
    }
    if (seen[key]) {
      why = std::string(kKeys[key]) + ": given twice";
      return false;
    }
    seen[key] = true;
    std::size_t from = eq + 1;
    while (true) {
      const std::size_t comma = item.find(',', from);
      const std::string value = item.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      std::int64_t v = 0;
      std::string bad;
      if (!parse_number(value, v, bad)) {
        why = std::string(kKeys[key]) + ": " + bad;
        return false;
      }
      lists[key].push_back(v);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return make_im2col_conv(spatial, lists[0], lists[1], lists[2], lists[3], out, why);
}

}  // namespace tmakit::cli
