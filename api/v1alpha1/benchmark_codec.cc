#include "api/v1alpha1/benchmark_codec.h"

#include "api/v1alpha1/object_codec.h"
#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {

constexpr Written kAlways = Written::kAlways;

// A Kubernetes quantity, which manifests may write as a number (cpu: 2).
JsonFields<Resources>::Reader QuantityReader(std::string Resources::*member) {
  return [member](ObjectReader* r, const std::string& key, Resources* out) {
    const nlohmann::json* q = r->Raw(key);
    if (q == nullptr) return;
    if (q->is_string()) {
      out->*member = q->get<std::string>();
    } else if (q->is_number()) {
      out->*member = q->dump();
    } else {
      r->errors()->Add(r->PathOf(key), "must be a quantity such as \"2\" or \"8Gi\", got " + JsonTypeName(*q));
    }
  };
}
JsonFields<Resources>::Writer QuantityWriter(std::string Resources::*member) {
  return [member](const Resources& value, const std::string& key, nlohmann::json* out) {
    if (!(value.*member).empty()) (*out)[key] = value.*member;
  };
}

const JsonFields<BenchmarkSpec>& BenchmarkSpecFields() {
  static const JsonFields<Goal> goal =
      JsonFields<Goal>().Add("metric", &Goal::metric).Add("target", &Goal::target).Add("light", &Goal::light);
  static const JsonFields<DatasetSpec> dataset = JsonFields<DatasetSpec>()
                                                     .Add("source", &DatasetSpec::source)
                                                     .Add("path", &DatasetSpec::path)
                                                     .Add("url", &DatasetSpec::url)
                                                     .Add("sha256", &DatasetSpec::sha256)
                                                     .Add("ref", &DatasetSpec::ref)
                                                     .Json("volume", &DatasetSpec::volume, JsonShape::kObject);
  static const JsonFields<Resources> resources =
      JsonFields<Resources>()
          .Custom("cpu", QuantityReader(&Resources::cpu), QuantityWriter(&Resources::cpu))
          .Custom("memory", QuantityReader(&Resources::memory), QuantityWriter(&Resources::memory))
          .Add("gpu", &Resources::gpu);
  static const JsonFields<Scheduling> scheduling =
      JsonFields<Scheduling>()
          .Add("ranksPerNode", &Scheduling::ranks_per_node, kAlways)
          .Add("nodeSelector", &Scheduling::node_selector)
          .Json("tolerations", &Scheduling::tolerations, JsonShape::kList)
          .Add("schedulerName", &Scheduling::scheduler_name)
          .Add("priorityClassName", &Scheduling::priority_class_name);
  static const JsonFields<Submission> submission = JsonFields<Submission>()
                                                       .Add("org", &Submission::org)
                                                       .Add("platform", &Submission::platform)
                                                       .Add("division", &Submission::division)
                                                       .Add("status", &Submission::status);
  static const JsonFields<Pricing> pricing = JsonFields<Pricing>()
                                                 .Add("currency", &Pricing::currency)
                                                 .Add("workerHour", &Pricing::worker_hour)
                                                 .Add("preemptibleWorkerHour", &Pricing::preemptible_worker_hour)
                                                 .Add("acceleratorHour", &Pricing::accelerator_hour)
                                                 .Add("label", &Pricing::label)
                                                 .Add("region", &Pricing::region);
  static const JsonFields<RunPolicy> run_policy =
      JsonFields<RunPolicy>()
          .Add("backoffLimit", &RunPolicy::backoff_limit, kAlways)
          .Add("activeDeadlineSeconds", &RunPolicy::active_deadline_seconds)
          .Add("ttlSecondsAfterFinished", &RunPolicy::ttl_seconds_after_finished)
          .Add("cleanPodPolicy", &RunPolicy::clean_pod_policy)
          .Add("keepResults", &RunPolicy::keep_results);
  static const JsonFields<Baseline> baseline = JsonFields<Baseline>()
                                                   .Add("benchmark", &Baseline::benchmark)
                                                   .Add("configMap", &Baseline::config_map)
                                                   .Add("path", &Baseline::path)
                                                   .Add("tolerances", &Baseline::tolerances);
  using S = BenchmarkSpec;
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Add("task", &S::task)
                                          .Add("workers", &S::workers, kAlways)
                                          .Add("backend", &S::backend)
                                          .Add("device", &S::device)
                                          .Object("goal", &S::goal, goal)
                                          .Add("maxEpochs", &S::max_epochs)
                                          .Object("dataset", &S::dataset, dataset)
                                          .Json("hyperparameters", &S::hyperparameters, JsonShape::kObject)
                                          .Add("image", &S::image)
                                          .Object("resources", &S::resources, resources)
                                          .Object("scheduling", &S::scheduling, scheduling)
                                          .Object("pricing", &S::pricing, pricing)
                                          .Object("submission", &S::submission, submission)
                                          .Object("runPolicy", &S::run_policy, run_policy, kAlways)
                                          .Add("repeats", &S::repeats, [](const S& spec) { return spec.repeats != 1; })
                                          .Object("baseline", &S::baseline, baseline);
  return fields;
}

const JsonFields<BenchmarkStatus>& BenchmarkStatusFields() {
  static const JsonFields<WorkerCounts> workers = JsonFields<WorkerCounts>()
                                                      .Add("ready", &WorkerCounts::ready, kAlways)
                                                      .Add("running", &WorkerCounts::running, kAlways)
                                                      .Add("succeeded", &WorkerCounts::succeeded, kAlways)
                                                      .Add("failed", &WorkerCounts::failed, kAlways);
  static const JsonFields<Progress> progress = JsonFields<Progress>()
                                                   .Add("epoch", &Progress::epoch)
                                                   .Add("maxEpochs", &Progress::max_epochs)
                                                   .Add("step", &Progress::step)
                                                   .Add("metric", &Progress::metric)
                                                   .Add("value", &Progress::value)
                                                   .Add("goal", &Progress::goal)
                                                   .Add("percent", &Progress::percent)
                                                   .Add("secondsLeft", &Progress::seconds_left)
                                                   .Add("estimatedFrom", &Progress::estimated_from)
                                                   .Add("communicationRatio", &Progress::communication_ratio);
  static const JsonFields<BenchmarkDisplay> display = JsonFields<BenchmarkDisplay>()
                                                          .Add("progress", &BenchmarkDisplay::progress)
                                                          .Add("throughput", &BenchmarkDisplay::throughput)
                                                          .Add("timeToAccuracy", &BenchmarkDisplay::time_to_accuracy)
                                                          .Add("energy", &BenchmarkDisplay::energy)
                                                          .Add("cost", &BenchmarkDisplay::cost);
  using S = BenchmarkStatus;
  // The worker counts of a Benchmark the operator has seen, and of no other.
  const auto seen = [](const S& s) {
    return !s.phase.empty() || !s.conditions.empty() || !s.start_time.empty() || !s.completion_time.empty();
  };
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Add("phase", &S::phase)
                                          .List("conditions", &S::conditions, ConditionFields())
                                          .Add("startTime", &S::start_time)
                                          .Add("completionTime", &S::completion_time)
                                          .Object("workers", &S::workers, workers, seen)
                                          .Add("observedGeneration", &S::observed_generation)
                                          .Add("restarts", &S::restarts)
                                          .Object("progress", &S::progress, progress)
                                          .List("repeats", &S::repeats, RepeatFields())
                                          .Object("results", &S::results, BenchmarkResultsFields())
                                          .Object("display", &S::display, display);
  return fields;
}

const JsonFields<Benchmark>& BenchmarkFields() {
  static const JsonFields<Benchmark> fields =
      ResourceFields(&Benchmark::spec, BenchmarkSpecFields(), &Benchmark::status, BenchmarkStatusFields());
  return fields;
}

}  // namespace

Benchmark DecodeBenchmark(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors) {
  return DecodeResource(BenchmarkFields(), &Benchmark::status, BenchmarkStatusFields(), json, errors, status_errors);
}

nlohmann::json EncodeBenchmark(const Benchmark& benchmark) { return BenchmarkFields().Encode(benchmark); }
nlohmann::json EncodeSpec(const BenchmarkSpec& spec) { return BenchmarkSpecFields().Encode(spec); }
nlohmann::json EncodeStatus(const BenchmarkStatus& status) { return BenchmarkStatusFields().Encode(status); }

}  // namespace ergobench
