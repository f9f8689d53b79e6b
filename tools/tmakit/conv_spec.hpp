// `tmakit check im2col ... --conv SPEC`: the convolution an im2col map gathers for, as text.
// SPEC is "kernel=K[,K..] [stride=S[,S..]] [pad=P[,P..]] [dilation=D[,D..]]", keys separated by
// spaces or ';', each key at most once: one value per spatial dim (W first, as --lower), or one for
// all. Read once the map's rank is known (tensor_map/im2col_conv.hpp checks it against the map).
#pragma once

#include <cstdint>
#include <string>

#include "tmakit/tensor_map/im2col_conv.hpp"

namespace tmakit::cli {

// False with `why` (naming the key) when SPEC does not parse or does not fit `spatial` dims.
bool parse_conv_spec(const std::string& spec, std::uint32_t spatial, Im2colConv& out, std::string& why);

}  // namespace tmakit::cli
