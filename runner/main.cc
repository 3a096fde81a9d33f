// ergobench-runner: one rank of a Benchmark. Started by `ergobench run`, by mpirun, or as
// a pod by ergobench-operator; see runner.h for what it does.
#include <CLI/CLI.hpp>

#include "runner/metrics/tensor_memory.h"
#include "runner/runner.h"
#include "runner/runner_flags.h"

int main(int argc, char** argv) {
  ergobench::KeepLargeAllocationsInTheHeap();
  ergobench::RunnerInvocation invocation;
  CLI::App app{"ergobench-runner: runs one rank of an ergobench Benchmark"};
  ergobench::AddRunnerFlags(app, &invocation);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ergobench::kExitBadConfig;
  }
  return ergobench::RunRunner(invocation);
}
