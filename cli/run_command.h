// `ergobench run FILE...`: runs every Benchmark in the files on this machine, one after
// another, with a live progress line, and prints each one's result table.
#pragma once

#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli/local/local_executor.h"

namespace ergobench {

struct RunCommandOptions {
  std::vector<std::string> files;
  LocalRunOptions local;
  bool quiet = false;  // no progress line
  std::string output = "text";  // each run's summary: text (a table), json or yaml (the Benchmark with its status)
};

// Exit code (cli/exit_codes.h): kExitOk when every Benchmark succeeded, kExitInterrupted after
// Ctrl-C, kExitBadInput for bad input, kExitRegressed when all succeeded but one regressed,
// else kExitFailed.
int RunCommand(const RunCommandOptions& options);

// ergobench-runner next to this executable, else $ERGOBENCH_RUNNER, else the PATH.
std::string FindRunner();

}  // namespace ergobench
