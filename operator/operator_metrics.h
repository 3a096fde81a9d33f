// The operator's Prometheus metrics, named as DESIGN.md §Metrics says:
// ergobench_operator_reconcile_total{result}, ergobench_operator_reconcile_duration_seconds,
// ergobench_operator_workqueue_depth, ergobench_operator_benchmarks{phase},
// ergobench_operator_api_requests_total{verb}, and per finished Benchmark
// ergobench_benchmark_time_to_accuracy_seconds, _energy_joules and _cost_usd.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "api/benchmark.h"

namespace ergobench {

class OperatorMetrics {
 public:
  OperatorMetrics();
  ~OperatorMetrics();

  void ObserveReconcile(const std::string& result, double seconds);
  void SetQueueDepth(size_t depth);
  void SetPhaseCounts(const std::map<std::string, int>& by_phase);
  void SetApiRequests(const std::map<std::string, uint64_t>& by_verb);
  void RecordFinished(const Benchmark& benchmark);

  std::string Render() const;

 private:
  struct Families;
  std::unique_ptr<Families> families_;
};

}  // namespace ergobench
