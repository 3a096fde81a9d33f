#include "operator/controller/sweep/sweep_setup.h"

#include "operator/controller/common/labels.h"

namespace ergobench::controller {

std::unique_ptr<SweepController> SetupSweepController(const ControllerContext& context) {
  auto controller = std::make_unique<SweepController>();
  SweepController* self = controller.get();
  runtime::Manager& manager = *context.manager;
  runtime::WorkQueue* queue =
      manager.AddController("sweep", [self](const std::string& key) { return self->reconciler->Reconcile(key); });
  runtime::Store* children =
      manager.AddCache("sweep children", context.Watch(kube::Benchmarks(), kSweepLabel), SweepOwnerKey, {{queue, nullptr}});
  self->sweeps = manager.AddCache("sweeps", context.Watch(kube::BenchmarkSweeps(), ""), runtime::ObjectKey, {{queue, nullptr}});
  self->reconciler = std::make_unique<SweepReconciler>(
      SweepReconcilerDeps{context.client, self->sweeps, children, context.time, context.record_event});
  return controller;
}

}  // namespace ergobench::controller
