// The operator's Prometheus metrics, named as docs/architecture.md ("Metrics") says:
// ergobench_operator_reconcile_total{controller,result},
// ergobench_operator_reconcile_duration_seconds{controller},
// ergobench_operator_workqueue_depth{controller}, ergobench_operator_benchmarks{phase},
// ergobench_operator_api_requests_total{verb}, and per finished Benchmark
// ergobench_benchmark_{time_to_accuracy_seconds, samples_per_second, workers, energy_joules,
// energy_to_accuracy_joules, cost_usd, cost_to_accuracy_usd}.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/v1alpha1/benchmark.h"

namespace ergobench {

class OperatorMetrics {
 public:
  // `controllers`: the names of the Manager's controllers, whose series exist from the start.
  explicit OperatorMetrics(const std::vector<std::string>& controllers);
  ~OperatorMetrics();

  // One reconcile of `controller`: result is success | requeue_after | error.
  void ObserveReconcile(const std::string& controller, const std::string& result, double seconds);
  void SetQueueDepths(const std::vector<std::pair<std::string, size_t>>& by_controller);
  void SetPhaseCounts(const std::map<std::string, int>& by_phase);
  void SetApiRequests(const std::map<std::string, uint64_t>& by_verb);
  // Exports a finished Benchmark's results, in place of any its namesake exported before.
  void RecordFinished(const Benchmark& benchmark);
  // Drops the series of Benchmarks not in `live` ("namespace/name"): deleted ones.
  void RetainBenchmarks(const std::vector<std::string>& live);

  std::string Render() const;

 private:
  struct Families;
  std::unique_ptr<Families> families_;
};

}  // namespace ergobench
