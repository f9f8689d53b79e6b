// tmakit smem-store: plan a register -> shared-memory store and explain it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tmakit::cli {

int run_smem_store(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tmakit::cli
