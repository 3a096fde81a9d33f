// ergobench-runner: one rank of a Benchmark. Started by `ergobench run`, by mpirun, or as
// a pod by ergobench-operator; see runner.h for what it does.
#include <malloc.h>

#include <CLI/CLI.hpp>

#include "runner/runner.h"
#include "runner/runner_flags.h"

// A training step allocates and frees the same large activation and gradient tensors
// every step. Above glibc's mmap threshold each one is a fresh mmap, page-faulted in and
// unmapped again: on ResNet-20 that was a fifth of the run spent in the kernel. Serving
// them from a heap that keeps its memory makes the steady state fault-free.
void KeepLargeAllocationsInTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

int main(int argc, char** argv) {
  KeepLargeAllocationsInTheHeap();
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
