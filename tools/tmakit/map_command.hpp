// The command line that states a tensor map's parameters: the inverse of map_options.hpp, for
// reports that hand the user a map to re-run (`tmakit capture` prints one per descriptor):
//   tmakit check tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 64,128 --swizzle 128B
// Options equal to their default (elem-strides all 1, NONE, address 0, sm_90) are left out.
#pragma once

#include <string>

#include "tmakit/tensor_map/params.hpp"

namespace tmakit::cli {

// "tmakit <verb> <kind> --dtype ... " for verb "encode" or "check".
std::string map_command(const TensorMapParams& p, const std::string& verb);

}  // namespace tmakit::cli
