#include "operator/operator_metrics.h"

#include <iterator>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "api/analysis/regression.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

// Per finished Benchmark, labelled namespace, benchmark, task, backend, workers and the system
// it ran on (instance_type, region): what the "across benchmarks" dashboard compares. Scaling
// efficiency there divides a run's samples/s per worker by the k=1 run of the same task on the
// same system. A gauge without a value (no meter, no price) is left out rather than set to 0.
struct FinishedGauge {
  const char* name;
  const char* help;
  std::optional<double> (*value)(const Benchmark&);
  bool in_currency = false;  // labelled with the results' currency (ISO 4217), not named after one
};

const FinishedGauge kFinishedGauges[] = {
    {"ergobench_benchmark_time_to_accuracy_seconds", "Time to accuracy of a finished Benchmark.",
     [](const Benchmark& b) { return b.status.results->figures.time_to_accuracy_seconds; }},
    {"ergobench_benchmark_samples_per_second", "Training samples per second of a finished Benchmark, all workers.",
     [](const Benchmark& b) { return b.status.results->figures.samples_per_second; }},
    {"ergobench_benchmark_workers", "Workers (k) of a finished Benchmark.",
     [](const Benchmark& b) { return std::optional<double>(static_cast<double>(b.spec.workers)); }},
    {"ergobench_benchmark_energy_joules", "Energy of a finished Benchmark's timed region, all workers.",
     [](const Benchmark& b) { return b.status.results->figures.energy_joules; }},
    {"ergobench_benchmark_energy_to_accuracy_joules", "Energy until a finished Benchmark reached its goal.",
     [](const Benchmark& b) { return b.status.results->figures.energy_to_accuracy_joules; }},
    {"ergobench_benchmark_cost", "Cost of a finished Benchmark's timed region, in the currency its label names.",
     [](const Benchmark& b) { return b.status.results->cost_usd; }, true},
    {"ergobench_benchmark_cost_to_accuracy", "Cost until a finished Benchmark reached its goal, in the currency its "
     "label names.",
     [](const Benchmark& b) { return b.status.results->cost_to_accuracy_usd; }, true},
    {"ergobench_benchmark_carbon_to_accuracy_grams",
     "Emissions until a finished Benchmark reached its goal: energy times its region's grid intensity, gCO2e.",
     [](const Benchmark& b) {
       const auto& carbon = b.status.results->carbon;
       return carbon ? carbon->grams_to_accuracy : std::nullopt;
     }},
    {"ergobench_benchmark_regressed",
     "1 when a finished Benchmark fell outside its spec.baseline's bands (its Regressed condition names the "
     "figure), 0 when within them; absent without a baseline.",
     [](const Benchmark& b) {
       const BenchmarkResults& r = *b.status.results;
       return r.baseline.empty() ? std::nullopt : std::optional<double>(AnyRegressed(r.verdicts) ? 1 : 0);
     }},
};

}  // namespace

struct OperatorMetrics::Families {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& reconciles = prometheus::BuildCounter()
      .Name("ergobench_operator_reconcile_total").Help("Reconciles by controller and result.").Register(*registry);
  prometheus::Family<prometheus::Histogram>& reconcile_duration = prometheus::BuildHistogram()
      .Name("ergobench_operator_reconcile_duration_seconds").Help("Time per reconcile, by controller.").Register(*registry);
  prometheus::Family<prometheus::Gauge>& queue_depth = prometheus::BuildGauge()
      .Name("ergobench_operator_workqueue_depth").Help("Keys waiting in each controller's work queue.").Register(*registry);

  prometheus::Histogram& Duration(const std::string& controller) {
    return reconcile_duration.Add({{"controller", controller}}, prometheus::Histogram::BucketBoundaries{
                                                                    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
  }
  prometheus::Family<prometheus::Gauge>& benchmarks = prometheus::BuildGauge()
      .Name("ergobench_operator_benchmarks").Help("Benchmarks by phase.").Register(*registry);
  prometheus::Gauge& build_info = prometheus::BuildGauge()
      .Name("ergobench_build_info").Help("Always 1; the operator's version and component as labels.")
      .Register(*registry).Add({{"version", ErgobenchVersion()}, {"component", "operator"}});
  prometheus::Family<prometheus::Counter>& api_requests = prometheus::BuildCounter()
      .Name("ergobench_operator_api_requests_total").Help("Kubernetes API requests by verb.").Register(*registry);
  std::vector<prometheus::Family<prometheus::Gauge>*> finished;  // one per kFinishedGauges entry
  std::mutex mutex;
  std::map<std::string, uint64_t> api_seen;
  // The series each finished Benchmark ("namespace/name") exports, to remove them with it.
  std::map<std::string, std::vector<std::pair<prometheus::Family<prometheus::Gauge>*, prometheus::Gauge*>>> series;

  void Remove(const std::string& key) {
    const auto it = series.find(key);
    if (it == series.end()) return;
    for (const auto& [family, gauge] : it->second) family->Remove(gauge);
    series.erase(it);
  }
};

OperatorMetrics::OperatorMetrics(const std::vector<std::string>& controllers) : families_(std::make_unique<Families>()) {
  families_->build_info.Set(1);
  // Every controller's results from the start, so that an error rate reads 0 rather than no data.
  for (const std::string& controller : controllers) {
    for (const char* result : {"success", "requeue_after", "error"}) {
      families_->reconciles.Add({{"controller", controller}, {"result", result}});
    }
    families_->Duration(controller);
    families_->queue_depth.Add({{"controller", controller}});
  }
  for (const FinishedGauge& gauge : kFinishedGauges) {
    families_->finished.push_back(
        &prometheus::BuildGauge().Name(gauge.name).Help(gauge.help).Register(*families_->registry));
  }
}
OperatorMetrics::~OperatorMetrics() = default;

void OperatorMetrics::ObserveReconcile(const std::string& controller, const std::string& result, double seconds) {
  families_->reconciles.Add({{"controller", controller}, {"result", result}}).Increment();
  families_->Duration(controller).Observe(seconds);
}

void OperatorMetrics::SetQueueDepths(const std::vector<std::pair<std::string, size_t>>& by_controller) {
  for (const auto& [controller, depth] : by_controller) {
    families_->queue_depth.Add({{"controller", controller}}).Set(static_cast<double>(depth));
  }
}

void OperatorMetrics::SetPhaseCounts(const std::map<std::string, int>& by_phase) {
  for (std::string_view name : kBenchmarkPhases) {
    const std::string phase(name);
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
  const std::optional<SystemIdentity>& system = benchmark.status.results->system;
  std::map<std::string, std::string> labels = {{"namespace", benchmark.metadata.namespace_name},
                                                     {"benchmark", benchmark.metadata.name},
                                                     {"task", benchmark.spec.task},
                                                     {"backend", benchmark.spec.backend},
                                                     {"workers", std::to_string(benchmark.spec.workers)},
                                                     {"instance_type", system ? system->instance_type : ""},
                                                     {"region", system ? system->region : ""}};
  std::erase_if(labels, [](const auto& label) { return label.second.empty(); });  // empty is absent in PromQL
  const std::string key = benchmark.metadata.namespace_name + "/" + benchmark.metadata.name;
  std::lock_guard<std::mutex> lock(families_->mutex);
  families_->Remove(key);
  for (size_t i = 0; i < std::size(kFinishedGauges); ++i) {
    if (const std::optional<double> value = kFinishedGauges[i].value(benchmark)) {
      std::map<std::string, std::string> gauge_labels = labels;
      if (kFinishedGauges[i].in_currency) gauge_labels["currency"] = benchmark.status.results->currency;
      prometheus::Gauge& gauge = families_->finished[i]->Add(gauge_labels);
      gauge.Set(*value);
      families_->series[key].emplace_back(families_->finished[i], &gauge);
    }
  }
}

void OperatorMetrics::RetainBenchmarks(const std::vector<std::string>& live) {
  const std::set<std::string> keep(live.begin(), live.end());
  std::lock_guard<std::mutex> lock(families_->mutex);
  std::vector<std::string> gone;
  for (const auto& [key, unused] : families_->series) {
    if (keep.count(key) == 0) gone.push_back(key);
  }
  for (const std::string& key : gone) families_->Remove(key);
}

std::string OperatorMetrics::Render() const {
  return prometheus::TextSerializer().Serialize(families_->registry->Collect());
}

}  // namespace ergobench
