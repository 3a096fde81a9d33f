#include "cli/completion.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// A command line of the same shape as ergobench's: nested subcommands, flags with short and
// long names, positional files.
struct Fixture {
  CLI::App app{"test", "tool"};
  std::vector<std::string> files;
  std::string to;
  bool quiet = false;
  Fixture() {
    CLI::App* run = app.add_subcommand("run", "");
    run->add_option("files", files, "");
    run->add_flag("-q,--quiet", quiet, "");
    CLI::App* results = app.add_subcommand("results", "");
    results->add_subcommand("export", "")->add_option("--to", to, "");
  }
};

TEST(CompletionTest, BashNamesEveryCommandPathAndItsWords) {
  Fixture f;
  const StatusOr<std::string> script = CompletionScript(f.app, "bash", {{"results", {"extra"}}});
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_NE(script->find("    '') words='run results --help -h'; files=0 ;;\n"), std::string::npos) << *script;
  EXPECT_NE(script->find("    'run') words='--help -h --quiet -q'; files=1 ;;\n"), std::string::npos) << *script;
  EXPECT_NE(script->find("    'results') words='export --help -h extra'; files=0 ;;\n"), std::string::npos) << *script;
  EXPECT_NE(script->find("    'results export') words='--help -h --to'; files=0 ;;\n"), std::string::npos) << *script;
  EXPECT_NE(script->find("      'run'|'results'|'results export') path="), std::string::npos) << *script;
  EXPECT_NE(script->find("complete -F _tool tool\n"), std::string::npos) << *script;
}

TEST(CompletionTest, ZshLoadsTheBashScriptThroughBashcompinit) {
  Fixture f;
  const StatusOr<std::string> zsh = CompletionScript(f.app, "zsh");
  ASSERT_TRUE(zsh.ok());
  EXPECT_EQ(zsh->rfind("#compdef tool\n", 0), 0u) << *zsh;
  EXPECT_NE(zsh->find("autoload -U +X bashcompinit && bashcompinit\n"), std::string::npos);
  EXPECT_NE(zsh->find(*CompletionScript(f.app, "bash")), std::string::npos);
}

TEST(CompletionTest, AnotherShellIsRefused) {
  Fixture f;
  EXPECT_EQ(CompletionScript(f.app, "fish").status().message(), "completion fish: the shells are bash and zsh");
}

}  // namespace
}  // namespace ergobench
