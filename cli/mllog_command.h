// `ergobench mllog check FILE...`: MLPerf Training 4.0.0's log rules (api/contract/
// mlperf_log_rules.h) applied to rank 0's mllog of each run, so that a log is known to pass
// MLPerf's compliance checker before it is submitted. `ergobench mllog score FILE...`: the runs'
// score as MLPerf's result summarizer computes it from the same logs (api/analysis/mlperf_score.h).
#pragma once

#include <string>
#include <vector>

namespace ergobench {

// Each file's findings, as text (a line each, then a verdict) or json. Exit code
// (cli/exit_codes.h): kExitOk when every log passes, kExitFailed when one does not,
// kExitBadInput when a file cannot be read.
int MllogCheckCommand(const std::vector<std::string>& files, const std::string& output);

// One log per run of one benchmark. A run counts as converged when its log passes the rules
// (a task MLPerf does not have: all but its name) and run_stop's status is success, as the
// summarizer drops a log that fails its checker. Each run and the score, as text or json. Exit
// code: kExitOk with a score, kExitFailed without one (too many runs did not converge, or too
// few ran), kExitBadInput when a file cannot be read or the logs are of several benchmarks.
int MllogScoreCommand(const std::vector<std::string>& files, const std::string& output);

}  // namespace ergobench
