// LocalExecutor: runs a Benchmark on this machine, as `ergobench run` does, with k local
// ranks: gloo as k runner processes meeting over a TCPStore on loopback, mpi as one
// mpirun. It follows rank 0's progress, stops every rank on Ctrl-C, and folds the rank
// results with the same AggregateRankResults the operator uses. Everything lands in
// <results_root>/<name>/: benchmark.json (resolved spec and final status), rank-<i>.json,
// rank-<i>.log, and the task's tables.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "api/analysis/aggregate.h"
#include "api/contract/progress_event.h"
#include "api/pricing/cost.h"
#include "api/v1alpha1/benchmark.h"
#include "base/status.h"

namespace ergobench {

struct LocalRunOptions {
  std::string runner_path;  // ergobench-runner
  std::string mpirun_path = "mpirun";
  std::string results_root = "ergobench-results";
  int metrics_port = 0;  // rank i serves on metrics_port + i; 0 picks free ports; -1 disables
  double rendezvous_timeout_seconds = 60;
  double stop_grace_seconds = 10;
  // After one rank fails, how long the others get to fail on their own (with their own
  // message) before they are stopped.
  double failure_grace_seconds = 5;
  // Called for each progress event of rank 0, and about once a second without one.
  std::function<void(const ProgressEvent&)> on_progress;
  // Called before each repeat, with spec.repeats above 1: (0-based repeat, repeats).
  std::function<void(int64_t, int64_t)> on_repeat;
  // Polled; true asks every rank to stop (Ctrl-C).
  std::function<bool()> stop_requested;
  // The price catalog folder (price_catalog.h); empty: the built-in catalog.
  std::string price_catalog_dir;
  int64_t price_max_age_days = kDefaultPriceMaxAgeDays;
};

struct LocalRunReport {
  Benchmark benchmark;  // with status: phase, conditions, workers, results
  RunOutcome outcome;
  std::string results_dir;
  bool cancelled = false;
};

StatusOr<LocalRunReport> RunLocally(const Benchmark& benchmark, const LocalRunOptions& options);

}  // namespace ergobench
