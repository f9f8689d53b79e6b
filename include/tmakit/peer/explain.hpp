// Words for peer-plan and collective-plan findings (host only): one line per finding,
//   error [peer.window_bounds] the tensor ends at byte 8392704 of a 8388608-byte window; fix: ...
// naming the peer rank where the finding concerns one.
#pragma once

#include <string>
#include <vector>

#include "tmakit/core/finding.hpp"
#include "tmakit/peer/rules.hpp"

namespace tmakit {

// The finding in the library's one shape (core/finding.hpp): where "peer 3" ("" where it concerns no
// one peer), what "<where>: <the numbers in words>", fix the rule's fix.
Finding to_finding(const PeerIssue& issue);
// One line: to_finding(issue).message().
std::string explain(const PeerIssue& issue);
std::vector<std::string> explain_all(const PeerIssues& issues);

}  // namespace tmakit
