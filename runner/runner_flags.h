// The runner's command line, parsed from the one declaration of its flags
// (api/contract/runner_invocation.h), with CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "api/contract/runner_invocation.h"

namespace ergobench {

// Adds every flag of RunnerFlags() to `app`, each writing its field of `invocation`.
void AddRunnerFlags(CLI::App& app, RunnerInvocation* invocation);

}  // namespace ergobench
