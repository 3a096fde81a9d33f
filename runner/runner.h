// The runner's whole life: read the config, connect to the other ranks, serve metrics,
// run the task, and write the rank's result, which on Kubernetes is the termination
// message. Every failure ends as a result with status Failed and a non-zero exit code.
#pragma once

#include <string>

#include "api/contract/runner_invocation.h"

namespace ergobench {

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadConfig = 2;
// Cancelled runs exit with 128 + the signal number, as a shell reports them.

int RunRunner(const RunnerInvocation& options);

// Replaces every "{rank}" in `pattern`.
std::string ExpandRank(const std::string& pattern, int rank);

}  // namespace ergobench
