#include "api/v1alpha1/benchmark_codec.h"

#include "api/v1alpha1/object_codec.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {

// A value kept as JSON for a later reader (Kubernetes' own types): an error names it unless it
// is an object (or, with `list`, an array).
void ReadJson(ObjectReader* r, const std::string& key, bool list, nlohmann::json* out) {
  const nlohmann::json* value = r->Raw(key);
  if (value == nullptr) return;
  if (list ? value->is_array() : value->is_object()) {
    *out = *value;
  } else {
    r->errors()->Add(r->PathOf(key), std::string(list ? "must be a list" : "must be an object") + ", got " +
                                         JsonTypeName(*value));
  }
}

BenchmarkSpec DecodeSpec(const nlohmann::json* json, FieldErrors* errors) {
  BenchmarkSpec spec;
  ObjectReader r(json, "spec", errors);
  r.String("task", &spec.task);
  r.Int("workers", &spec.workers);
  r.String("backend", &spec.backend);
  r.String("device", &spec.device);
  if (const nlohmann::json* goal = r.Object("goal")) {
    ObjectReader g(goal, "spec.goal", errors);
    spec.goal = Goal{};
    g.String("metric", &spec.goal->metric);
    g.Number("target", &spec.goal->target);
    g.Bool("light", &spec.goal->light);
  }
  r.Int("maxEpochs", &spec.max_epochs);
  {
    ObjectReader d(r.Object("dataset"), "spec.dataset", errors);
    d.String("source", &spec.dataset.source);
    d.String("path", &spec.dataset.path);
    d.String("url", &spec.dataset.url);
    d.String("sha256", &spec.dataset.sha256);
    d.String("ref", &spec.dataset.ref);
    ReadJson(&d, "volume", false, &spec.dataset.volume);
  }
  ReadJson(&r, "hyperparameters", false, &spec.hyperparameters);
  r.String("image", &spec.image);
  {
    ObjectReader res(r.Object("resources"), "spec.resources", errors);
    // Quantities may be written as numbers (cpu: 2) as in Kubernetes manifests.
    for (auto [key, out] : {std::pair{"cpu", &spec.resources.cpu}, std::pair{"memory", &spec.resources.memory}}) {
      const nlohmann::json* q = res.Raw(key);
      if (q == nullptr) continue;
      if (q->is_string()) {
        *out = q->get<std::string>();
      } else if (q->is_number()) {
        *out = q->dump();
      } else {
        errors->Add(res.PathOf(key), "must be a quantity such as \"2\" or \"8Gi\", got " + JsonTypeName(*q));
      }
    }
    res.Int("gpu", &spec.resources.gpu);
  }
  {
    ObjectReader s(r.Object("scheduling"), "spec.scheduling", errors);
    s.Int("ranksPerNode", &spec.scheduling.ranks_per_node);
    s.StringMap("nodeSelector", &spec.scheduling.node_selector);
    ReadJson(&s, "tolerations", true, &spec.scheduling.tolerations);
    s.String("schedulerName", &spec.scheduling.scheduler_name);
    s.String("priorityClassName", &spec.scheduling.priority_class_name);
  }
  if (const nlohmann::json* pricing = r.Object("pricing")) {
    ObjectReader p(pricing, "spec.pricing", errors);
    spec.pricing = Pricing{};
    p.String("currency", &spec.pricing->currency);
    p.Number("workerHour", &spec.pricing->worker_hour);
    p.Number("preemptibleWorkerHour", &spec.pricing->preemptible_worker_hour);
    p.Number("acceleratorHour", &spec.pricing->accelerator_hour);
    p.String("label", &spec.pricing->label);
    p.String("region", &spec.pricing->region);
  }
  {
    ObjectReader rp(r.Object("runPolicy"), "spec.runPolicy", errors);
    rp.Int("backoffLimit", &spec.run_policy.backoff_limit);
    rp.Int("activeDeadlineSeconds", &spec.run_policy.active_deadline_seconds);
    rp.Int("ttlSecondsAfterFinished", &spec.run_policy.ttl_seconds_after_finished);
    rp.String("cleanPodPolicy", &spec.run_policy.clean_pod_policy);
    rp.Bool("keepResults", &spec.run_policy.keep_results);
  }
  r.Int("repeats", &spec.repeats);
  if (const nlohmann::json* baseline = r.Object("baseline")) {
    ObjectReader b(baseline, "spec.baseline", errors);
    spec.baseline = Baseline{};
    b.String("benchmark", &spec.baseline->benchmark);
    b.String("configMap", &spec.baseline->config_map);
    b.String("path", &spec.baseline->path);
    spec.baseline->tolerances = DecodeNumberMap(&b, "tolerances");
  }
  return spec;
}

BenchmarkStatus DecodeStatus(const nlohmann::json* json, FieldErrors* errors) {
  BenchmarkStatus status;
  ObjectReader r(json, "status", errors);
  r.String("phase", &status.phase);
  status.conditions = DecodeConditions(r.Raw("conditions"), "status.conditions", errors);
  r.String("startTime", &status.start_time);
  r.String("completionTime", &status.completion_time);
  {
    ObjectReader w(r.Object("workers"), "status.workers", errors);
    w.Int("ready", &status.workers.ready);
    w.Int("running", &status.workers.running);
    w.Int("succeeded", &status.workers.succeeded);
    w.Int("failed", &status.workers.failed);
  }
  r.Int("observedGeneration", &status.observed_generation);
  r.Int("restarts", &status.restarts);
  if (const nlohmann::json* progress = r.Object("progress")) {
    ObjectReader p(progress, "status.progress", errors);
    status.progress = Progress{};
    p.Int("epoch", &status.progress->epoch);
    p.Int("step", &status.progress->step);
    p.String("metric", &status.progress->metric);
    p.Number("value", &status.progress->value);
  }
  status.repeats = DecodeRepeats(&r, "repeats");
  if (const nlohmann::json* results = r.Object("results")) {
    status.results = DecodeBenchmarkResults(*results, "status.results", errors);
  }
  return status;
}

}  // namespace

Benchmark DecodeBenchmark(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors) {
  Benchmark benchmark;
  ObjectReader r(&json, "", errors);
  r.String("apiVersion", &benchmark.api_version);
  r.String("kind", &benchmark.kind);
  benchmark.metadata = DecodeMetadata(r.Object("metadata"), errors);
  benchmark.spec = DecodeSpec(r.Object("spec"), errors);
  FieldErrors dropped;
  benchmark.status = DecodeStatus(r.Object("status"), status_errors != nullptr ? status_errors : &dropped);
  return benchmark;
}

nlohmann::json EncodeSpec(const BenchmarkSpec& spec) {
  nlohmann::json out = nlohmann::json::object();
  PutIfNotEmpty(&out, "task", spec.task);
  PutIf(&out, "workers", spec.workers);
  PutIfNotEmpty(&out, "backend", spec.backend);
  PutIfNotEmpty(&out, "device", spec.device);
  if (spec.goal) {
    nlohmann::json goal = nlohmann::json::object();
    PutIfNotEmpty(&goal, "metric", spec.goal->metric);
    PutIf(&goal, "target", spec.goal->target);
    if (spec.goal->light) goal["light"] = true;
    out["goal"] = goal;
  }
  PutIf(&out, "maxEpochs", spec.max_epochs);
  nlohmann::json dataset = nlohmann::json::object();
  PutIfNotEmpty(&dataset, "source", spec.dataset.source);
  PutIfNotEmpty(&dataset, "path", spec.dataset.path);
  PutIfNotEmpty(&dataset, "url", spec.dataset.url);
  PutIfNotEmpty(&dataset, "sha256", spec.dataset.sha256);
  PutIfNotEmpty(&dataset, "ref", spec.dataset.ref);
  if (!spec.dataset.volume.empty()) dataset["volume"] = spec.dataset.volume;
  if (!dataset.empty()) out["dataset"] = dataset;
  if (!spec.hyperparameters.empty()) out["hyperparameters"] = spec.hyperparameters;
  PutIfNotEmpty(&out, "image", spec.image);
  nlohmann::json resources = nlohmann::json::object();
  PutIfNotEmpty(&resources, "cpu", spec.resources.cpu);
  PutIfNotEmpty(&resources, "memory", spec.resources.memory);
  if (spec.resources.gpu != 0) resources["gpu"] = spec.resources.gpu;
  if (!resources.empty()) out["resources"] = resources;
  nlohmann::json scheduling = nlohmann::json::object();
  if (spec.scheduling.ranks_per_node) scheduling["ranksPerNode"] = *spec.scheduling.ranks_per_node;
  if (!spec.scheduling.node_selector.empty()) scheduling["nodeSelector"] = spec.scheduling.node_selector;
  if (!spec.scheduling.tolerations.empty()) scheduling["tolerations"] = spec.scheduling.tolerations;
  PutIfNotEmpty(&scheduling, "schedulerName", spec.scheduling.scheduler_name);
  PutIfNotEmpty(&scheduling, "priorityClassName", spec.scheduling.priority_class_name);
  if (!scheduling.empty()) out["scheduling"] = scheduling;
  if (spec.pricing) {
    nlohmann::json pricing = nlohmann::json::object();
    PutIfNotEmpty(&pricing, "currency", spec.pricing->currency);
    PutIf(&pricing, "workerHour", spec.pricing->worker_hour);
    PutIf(&pricing, "preemptibleWorkerHour", spec.pricing->preemptible_worker_hour);
    PutIf(&pricing, "acceleratorHour", spec.pricing->accelerator_hour);
    PutIfNotEmpty(&pricing, "label", spec.pricing->label);
    PutIfNotEmpty(&pricing, "region", spec.pricing->region);
    out["pricing"] = pricing;
  }
  nlohmann::json run_policy = {{"backoffLimit", spec.run_policy.backoff_limit}};
  PutIf(&run_policy, "activeDeadlineSeconds", spec.run_policy.active_deadline_seconds);
  PutIf(&run_policy, "ttlSecondsAfterFinished", spec.run_policy.ttl_seconds_after_finished);
  PutIfNotEmpty(&run_policy, "cleanPodPolicy", spec.run_policy.clean_pod_policy);
  if (spec.run_policy.keep_results) run_policy["keepResults"] = true;
  out["runPolicy"] = run_policy;
  PutIf(&out, "repeats", spec.repeats);
  if (spec.baseline) {
    nlohmann::json baseline = nlohmann::json::object();
    PutIfNotEmpty(&baseline, "benchmark", spec.baseline->benchmark);
    PutIfNotEmpty(&baseline, "configMap", spec.baseline->config_map);
    PutIfNotEmpty(&baseline, "path", spec.baseline->path);
    if (!spec.baseline->tolerances.empty()) baseline["tolerances"] = spec.baseline->tolerances;
    out["baseline"] = baseline;
  }
  return out;
}

nlohmann::json EncodeStatus(const BenchmarkStatus& status) {
  nlohmann::json out = nlohmann::json::object();
  PutIfNotEmpty(&out, "phase", status.phase);
  if (!status.conditions.empty()) out["conditions"] = EncodeConditions(status.conditions);
  PutIfNotEmpty(&out, "startTime", status.start_time);
  PutIfNotEmpty(&out, "completionTime", status.completion_time);
  if (!out.empty()) {
    out["workers"] = {{"ready", status.workers.ready},
                      {"running", status.workers.running},
                      {"succeeded", status.workers.succeeded},
                      {"failed", status.workers.failed}};
  }
  if (status.observed_generation != 0) out["observedGeneration"] = status.observed_generation;
  if (status.restarts != 0) out["restarts"] = status.restarts;
  if (status.progress) {
    nlohmann::json progress = nlohmann::json::object();
    PutIf(&progress, "epoch", status.progress->epoch);
    PutIf(&progress, "step", status.progress->step);
    PutIfNotEmpty(&progress, "metric", status.progress->metric);
    PutIf(&progress, "value", status.progress->value);
    out["progress"] = progress;
  }
  if (!status.repeats.empty()) out["repeats"] = EncodeRepeats(status.repeats);
  if (status.results) out["results"] = EncodeBenchmarkResults(*status.results);
  return out;
}

nlohmann::json EncodeBenchmark(const Benchmark& benchmark) {
  nlohmann::json out = {{"apiVersion", benchmark.api_version},
                        {"kind", benchmark.kind},
                        {"metadata", EncodeMetadata(benchmark.metadata)},
                        {"spec", EncodeSpec(benchmark.spec)}};
  nlohmann::json status = EncodeStatus(benchmark.status);
  if (!status.empty()) out["status"] = status;
  return out;
}

}  // namespace ergobench
