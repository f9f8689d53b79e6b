// Words for peer-plan and collective-plan findings (host only): one line per finding,
//   error [peer.window_bounds] the tensor ends at byte 8392704 of a 8388608-byte window; fix: ...
// naming the peer rank where the finding concerns one.
#pragma once

#include <string>
#include <vector>

#include "tmakit/peer/rules.hpp"

namespace tmakit {

std::string explain(const PeerIssue& issue);
std::vector<std::string> explain_all(const PeerIssues& issues);

}  // namespace tmakit
