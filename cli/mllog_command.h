// `ergobench mllog check FILE...`: MLPerf Training 4.0.0's log rules (api/contract/
// mlperf_log_rules.h) applied to rank 0's mllog of each run, so that a log is known to pass
// MLPerf's compliance checker before it is submitted.
#pragma once

#include <string>
#include <vector>

namespace ergobench {

// Each file's findings, as text (a line each, then a verdict) or json. Exit code
// (cli/exit_codes.h): kExitOk when every log passes, kExitFailed when one does not,
// kExitBadInput when a file cannot be read.
int MllogCheckCommand(const std::vector<std::string>& files, const std::string& output);

}  // namespace ergobench
