// ergobench-runner: one rank of a Benchmark. Started by `ergobench run`, by mpirun, or as
// a pod by ergobench-operator; see runner.h for what it does.
#include <malloc.h>

#include <CLI/CLI.hpp>

#include "runner/runner.h"

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
  ergobench::RunnerOptions options;
  CLI::App app{"ergobench-runner: runs one rank of an ergobench Benchmark"};
  app.add_option("--config", options.config_path, "Benchmark YAML or resolved JSON (env ERGOBENCH_CONFIG)")
      ->envname("ERGOBENCH_CONFIG")
      ->required();
  app.add_option("--result-file", options.result_file,
                 "where to write this rank's result JSON; {rank} is replaced (Kubernetes: /dev/termination-log)")
      ->envname("ERGOBENCH_RESULT_FILE");
  app.add_option("--output-dir", options.output_dir, "where rank 0 writes result tables")
      ->envname("ERGOBENCH_OUTPUT_DIR");
  app.add_option("--progress-file", options.progress_file, "append progress events here; {rank} is replaced");
  app.add_option("--log-file", options.log_file, "send stdout and stderr here; {rank} is replaced");
  app.add_option("--mllog-file", options.mllog_file, "write MLPerf :::MLLOG lines here; {rank} is replaced")
      ->envname("ERGOBENCH_MLLOG_FILE");
  app.add_option("--metrics-port", options.metrics_port, "Prometheus /metrics and /healthz port; -1 disables, 0 picks")
      ->envname("ERGOBENCH_METRICS_PORT");
  app.add_flag("--metrics-port-per-rank", options.metrics_port_per_rank, "serve on metrics-port + rank");
  app.add_option("--metrics-bind", options.metrics_bind, "address the metrics server binds");
  app.add_option("--bind-address", options.bind_address, "address this rank's gloo transport binds (default: hostname)")
      ->envname("ERGOBENCH_BIND_ADDRESS");
  app.add_option("--rendezvous-timeout", options.rendezvous_timeout_seconds, "seconds to wait for every rank to join")
      ->envname("ERGOBENCH_RENDEZVOUS_TIMEOUT")
      ->check(CLI::PositiveNumber);
  app.add_option("--collective-timeout", options.collective_timeout_seconds, "seconds before a collective is abandoned")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", options.threads, "torch threads; 0 derives them from the CPU quota")
      ->envname("ERGOBENCH_THREADS")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--ranks-per-host", options.ranks_per_host, "ranks sharing this host's CPUs, for the thread count")
      ->check(CLI::PositiveNumber);
  app.add_option("--stop-grace", options.stop_grace_seconds, "seconds between SIGTERM and a forced exit")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--energy-interval", options.energy_interval_ms,
                 "milliseconds between energy samples; 0 lists the meters but reads none")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--sysfs-root", options.sysfs_root, "prefix of /sys for the energy meters (testing)")
      ->envname("ERGOBENCH_SYSFS_ROOT");
  app.add_option("--nvml-library", options.nvml_library, "the NVML library to load");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ergobench::kExitBadConfig;
  }
  return ergobench::RunRunner(options);
}
