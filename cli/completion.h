// `ergobench completion bash|zsh`: a shell completion script made from the command line's own
// definition (CLI11's tree of subcommands and flags), so that it never falls behind a new
// subcommand or flag. Subcommands and flags complete at every level; where a command takes
// files (run, validate, report's folders), file names complete too. zsh loads the bash script
// through its bashcompinit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/status.h"

namespace ergobench {

// `extra_words`: words a subcommand takes that CLI11 does not define, by its path ("cluster":
// the subcommands of the tool it hands over to). InvalidArgument for a shell other than bash or zsh.
StatusOr<std::string> CompletionScript(CLI::App& app, const std::string& shell,
                                       const std::map<std::string, std::vector<std::string>>& extra_words = {});

}  // namespace ergobench
