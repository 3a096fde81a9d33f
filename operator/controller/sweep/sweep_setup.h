// The BenchmarkSweep controller on a Manager: its caches (the sweeps, and the Benchmarks that
// carry a sweep's label, routed to their sweep) and its reconciler.
#pragma once

#include <memory>

#include "kube/runtime/store.h"
#include "operator/controller/common/controller_context.h"
#include "operator/controller/sweep/sweep_reconciler.h"

namespace ergobench::controller {

struct SweepController {
  runtime::Store* sweeps = nullptr;  // what the Benchmark controller reads too
  std::unique_ptr<SweepReconciler> reconciler;
};

std::unique_ptr<SweepController> SetupSweepController(const ControllerContext& context);

}  // namespace ergobench::controller
