#include "operator/controller/benchmark/benchmark_setup.h"

#include "operator/controller/benchmark/dataset_ref.h"
#include "operator/controller/benchmark/worker_pods.h"
#include "operator/controller/common/labels.h"

namespace ergobench::controller {

std::unique_ptr<BenchmarkController> SetupBenchmarkController(const ControllerContext& context, BenchmarkSetup setup) {
  auto controller = std::make_unique<BenchmarkController>();
  BenchmarkController* self = controller.get();
  runtime::Manager& manager = *context.manager;
  runtime::WorkQueue* queue = manager.AddController(
      "benchmark", [self](const std::string& key) { return self->reconciler->Reconcile(key); }, setup.workers);
  self->benchmarks = manager.AddCache("benchmarks", context.Watch(kube::Benchmarks(), ""), runtime::ObjectKey, {{queue, nullptr}});
  self->pods = manager.AddCache("pods", context.Watch(kube::Pods(), kBenchmarkLabel), WorkerPodOwnerKey, {{queue, nullptr}},
                                TrimWorkerPod);
  if (setup.deps.datasets != nullptr) {
    const runtime::Store* benchmarks = self->benchmarks;
    manager.AddRoute(setup.deps.datasets,
                     {queue, [benchmarks](const std::string& key) { return BenchmarksReading(*benchmarks, key); }});
  }
  if (setup.rank_zero != nullptr) {
    manager.AddRunnable([self, queue, rank_zero = setup.rank_zero, interval = setup.progress_interval](
                            runtime::StopFlag& stop) {
      PollRankZero(stop, *self->benchmarks, *self->pods, *rank_zero, {&self->progress, &self->artifacts},
                   [queue](const std::string& key) { queue->Add(key); }, interval);
    });
  }
  ReconcilerDeps deps = std::move(setup.deps);
  deps.client = context.client;
  deps.time = context.time;
  deps.benchmarks = self->benchmarks;
  deps.pods = self->pods;
  deps.progress = &self->progress;
  deps.artifacts = &self->artifacts;
  deps.record_event = context.record_event;
  self->reconciler = std::make_unique<BenchmarkReconciler>(std::move(deps));
  return controller;
}

}  // namespace ergobench::controller
