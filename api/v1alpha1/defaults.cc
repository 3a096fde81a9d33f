#include "api/v1alpha1/defaults.h"

#include "api/v1alpha1/catalog.h"

namespace ergobench {

const char* ErgobenchVersion() { return ERGOBENCH_VERSION; }
std::string DefaultRunnerImage() { return std::string("ergobench-runner:") + ErgobenchVersion(); }

int64_t DerivedSeed(int64_t seed, int64_t n) {
  constexpr int64_t kSeedLimit = 2147483648;  // the seed hyperparameter's range is 0 .. 2^31-1
  return (seed + n) % kSeedLimit;
}

void ApplyDefaults(Benchmark* benchmark) {
  BenchmarkSpec& spec = benchmark->spec;
  if (spec.backend.empty()) spec.backend = "gloo";
  if (spec.device.empty()) spec.device = "cpu";
  if (spec.image.empty()) spec.image = DefaultRunnerImage();
  if (spec.run_policy.clean_pod_policy.empty()) spec.run_policy.clean_pod_policy = "All";
  if (spec.pricing && spec.pricing->currency.empty()) spec.pricing->currency = "USD";

  // A Dataset or a volume holds files: the runner reads them as a path (inside the volume).
  const bool mounted = !spec.dataset.ref.empty() || !spec.dataset.volume.empty();
  if (mounted && spec.dataset.source.empty()) spec.dataset.source = "path";
  const TaskDef* task = FindTask(spec.task);
  if (task == nullptr) return;
  if (spec.dataset.source.empty() && !task->dataset_sources.empty()) {
    spec.dataset.source = task->dataset_sources.front();
  }
  if (spec.dataset.source == "path" && spec.dataset.path.empty() && !mounted) {
    spec.dataset.path = task->default_dataset_path;
  }
  if (spec.hyperparameters.is_object()) {
    for (const HyperparameterDef& h : task->hyperparameters) {
      if (!spec.hyperparameters.contains(h.name)) spec.hyperparameters[h.name] = h.default_value;
    }
  }
  if (!task->trains) return;
  if (!spec.goal) spec.goal = Goal{};
  if (spec.goal->metric.empty()) spec.goal->metric = task->goal_metric;
  if (!spec.goal->target) spec.goal->target = spec.goal->light ? task->light_target : task->reference_target;
  if (!spec.max_epochs) spec.max_epochs = task->default_max_epochs;
}

}  // namespace ergobench
