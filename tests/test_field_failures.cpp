// docs/field_failures.md, replayed: every `$ tmakit ...` line of its console blocks runs through
// the built binary, and what it prints (stdout, then stderr) and its exit status (the `$ echo $?`
// line after it) must be what the page shows. A failure's line must name a rule id.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

struct DocCommand {
  int line = 0;            // where the page shows it (1-based)
  std::string args;        // what follows "$ tmakit "
  std::string output;      // the lines the page shows under it
  int exit = -1;           // the `$ echo $?` that follows it; -1 when the page gives none
};

// The `$ tmakit` lines of the page's ```console blocks, each with the output shown under it.
std::vector<DocCommand> doc_commands(const std::string& page) {
  std::vector<DocCommand> out;
  std::istringstream in(page);
  std::string line;
  bool console = false, after_echo = false;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!console) {
      console = line == "```console";
      continue;
    }
    if (line == "```") {
      console = after_echo = false;
      continue;
    }
    if (line.rfind("$ tmakit ", 0) == 0) {
      out.push_back({n, line.substr(9), "", -1});
      after_echo = false;
    } else if (line == "$ echo $?") {
      after_echo = true;
    } else if (after_echo && !out.empty()) {
      out.back().exit = std::stoi(line);
      after_echo = false;
    } else if (!out.empty()) {
      out.back().output += line + "\n";
    }
  }
  return out;
}

TEST(FieldFailures, EveryDocumentedCommandPrintsWhatThePageShows) {
  const std::string page = tmakit_test::read_file(std::string(TMAKIT_SOURCE_DIR) + "/docs/field_failures.md");
  const std::vector<DocCommand> commands = doc_commands(page);
  ASSERT_GE(commands.size(), 4u) << "docs/field_failures.md lost its console blocks";
  const std::regex rule_id(R"(\[[a-z0-9_]+\.[a-z0-9_]+\])");
  for (const DocCommand& c : commands) {
    SCOPED_TRACE("docs/field_failures.md:" + std::to_string(c.line) + ": tmakit " + c.args);
    ASSERT_NE(c.exit, -1) << "every documented command shows its exit status";
    const tmakit_test::CliRun r = tmakit_test::run_binary(c.args);
    EXPECT_EQ(r.rc, c.exit);
    EXPECT_EQ(r.out + r.err, c.output);
    if (c.exit == 1) {
      EXPECT_TRUE(std::regex_search(c.output, rule_id)) << "a failure names its rule id";
    }
  }
}

}  // namespace
