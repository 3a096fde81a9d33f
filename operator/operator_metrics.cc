#include "operator/operator_metrics.h"

#include <mutex>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace ergobench {

struct OperatorMetrics::Families {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& reconciles = prometheus::BuildCounter()
      .Name("ergobench_operator_reconcile_total").Help("Reconciles by result.").Register(*registry);
  prometheus::Histogram& reconcile_duration =
      prometheus::BuildHistogram()
          .Name("ergobench_operator_reconcile_duration_seconds").Help("Time per reconcile.").Register(*registry)
          .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
  prometheus::Gauge& queue_depth = prometheus::BuildGauge()
      .Name("ergobench_operator_workqueue_depth").Help("Keys waiting in the work queue.").Register(*registry).Add({});
  prometheus::Family<prometheus::Gauge>& benchmarks = prometheus::BuildGauge()
      .Name("ergobench_operator_benchmarks").Help("Benchmarks by phase.").Register(*registry);
  prometheus::Family<prometheus::Counter>& api_requests = prometheus::BuildCounter()
      .Name("ergobench_operator_api_requests_total").Help("Kubernetes API requests by verb.").Register(*registry);
  prometheus::Family<prometheus::Gauge>& tta = prometheus::BuildGauge()
      .Name("ergobench_benchmark_time_to_accuracy_seconds").Help("Time to accuracy of a finished Benchmark.")
      .Register(*registry);
  prometheus::Family<prometheus::Gauge>& energy = prometheus::BuildGauge()
      .Name("ergobench_benchmark_energy_joules").Help("Energy of a finished Benchmark.").Register(*registry);
  prometheus::Family<prometheus::Gauge>& cost = prometheus::BuildGauge()
      .Name("ergobench_benchmark_cost_usd").Help("Cost of a finished Benchmark.").Register(*registry);
  std::mutex mutex;
  std::map<std::string, uint64_t> api_seen;
};

OperatorMetrics::OperatorMetrics() : families_(std::make_unique<Families>()) {}
OperatorMetrics::~OperatorMetrics() = default;

void OperatorMetrics::ObserveReconcile(const std::string& result, double seconds) {
  families_->reconciles.Add({{"result", result}}).Increment();
  families_->reconcile_duration.Observe(seconds);
}

void OperatorMetrics::SetQueueDepth(size_t depth) { families_->queue_depth.Set(static_cast<double>(depth)); }

void OperatorMetrics::SetPhaseCounts(const std::map<std::string, int>& by_phase) {
  for (const char* phase : {"Pending", "Running", "Succeeded", "Failed"}) {
    const auto it = by_phase.find(phase);
    families_->benchmarks.Add({{"phase", phase}}).Set(it == by_phase.end() ? 0 : it->second);
  }
}

void OperatorMetrics::SetApiRequests(const std::map<std::string, uint64_t>& by_verb) {
  // The client counts; a Prometheus counter only grows, so add what is new since last time.
  std::lock_guard<std::mutex> lock(families_->mutex);
  for (const auto& [verb, count] : by_verb) {
    uint64_t& seen = families_->api_seen[verb];
    if (count > seen) families_->api_requests.Add({{"verb", verb}}).Increment(static_cast<double>(count - seen));
    seen = count;
  }
}

void OperatorMetrics::RecordFinished(const Benchmark& benchmark) {
  if (!benchmark.status.results) return;
  const std::map<std::string, std::string> labels = {{"namespace", benchmark.metadata.namespace_name},
                                                     {"benchmark", benchmark.metadata.name},
                                                     {"task", benchmark.spec.task}};
  const BenchmarkResults& results = *benchmark.status.results;
  if (results.figures.time_to_accuracy_seconds) families_->tta.Add(labels).Set(*results.figures.time_to_accuracy_seconds);
  if (results.figures.energy_joules) families_->energy.Add(labels).Set(*results.figures.energy_joules);
  if (results.cost_usd) families_->cost.Add(labels).Set(*results.cost_usd);
}

std::string OperatorMetrics::Render() const {
  return prometheus::TextSerializer().Serialize(families_->registry->Collect());
}

}  // namespace ergobench
