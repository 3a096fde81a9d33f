// `ergobench run FILE...`: runs every Benchmark in the files on this machine, one after
// another, with a live progress line, and prints each one's result table.
#pragma once

#include <string>
#include <vector>

#include "cli/local/local_executor.h"

namespace ergobench {

struct RunCommandOptions {
  std::vector<std::string> files;
  LocalRunOptions local;
  bool quiet = false;  // no progress line
};

// A run that succeeded but fell outside its baseline's bands (spec.baseline): what a CI
// pipeline gates on. `ergobench report --baseline` exits with it too.
inline constexpr int kExitRegressed = 3;

// Exit code: 0 when every Benchmark succeeded, 130 after Ctrl-C, 2 for bad input,
// kExitRegressed when all succeeded but one regressed, else 1.
int RunCommand(const RunCommandOptions& options);

// ergobench-runner next to this executable, else $ERGOBENCH_RUNNER, else the PATH.
std::string FindRunner();

}  // namespace ergobench
