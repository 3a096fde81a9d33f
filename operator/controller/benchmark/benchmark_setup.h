// The Benchmark controller on a Manager: its caches (Benchmarks, and the worker pods indexed by
// their Benchmark), its queue, fed also by the Dataset cache (a Benchmark waits on the Dataset
// it reads), the poller of rank 0's progress and files, and its reconciler.
#pragma once

#include <chrono>
#include <memory>

#include "kube/runtime/store.h"
#include "operator/controller/benchmark/progress_poller.h"
#include "operator/controller/benchmark/reconciler.h"
#include "operator/controller/common/controller_context.h"

namespace ergobench::controller {

struct BenchmarkController {
  runtime::Store* benchmarks = nullptr;
  runtime::Store* pods = nullptr;
  ProgressCache progress;
  ArtifactCache artifacts;
  std::unique_ptr<BenchmarkReconciler> reconciler;
};

struct BenchmarkSetup {
  // All but the client, the caches, the progress and the files and where Events go, which
  // Setup fills in. deps.datasets, when set, is the Dataset controller's cache.
  ReconcilerDeps deps;
  int workers = 2;                       // concurrent reconciles
  RankZeroClient* rank_zero = nullptr;   // null: no progress or files are read from rank 0
  std::chrono::seconds progress_interval = kProgressInterval;
};

std::unique_ptr<BenchmarkController> SetupBenchmarkController(const ControllerContext& context, BenchmarkSetup setup);

}  // namespace ergobench::controller
