#include "api/v1alpha1/validation.h"

#include <cmath>
#include <functional>
#include <string_view>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/field_checks.h"
#include "api/v1alpha1/headline_figures.h"
#include "api/v1alpha1/image_reference.h"
#include "api/v1alpha1/quantity.h"
#include "base/json_reader.h"
#include "base/text_scan.h"
#include "base/utf8.h"

namespace ergobench {
namespace {

void ValidateMetadata(const Benchmark& b, FieldErrors* errors) {
  const std::string& name = b.metadata.name;
  CheckDnsLabel("metadata.name", name, kMaxDnsLabelLength, errors);
  if (name.empty() || name.size() > kMaxDnsLabelLength) return;
  if (IsDnsLabel(name) && !IsAsciiLower(name.front())) {
    // Its Service "<name>-workers" is a DNS-1035 label, which the API server refuses otherwise.
    errors->Add("metadata.name", "must start with a letter (its Service " + Quote(name + "-workers") +
                                     " is a DNS-1035 label), got " + Quote(name));
  }
  const int64_t workers = b.spec.workers;
  if (workers >= 1 && workers <= kMaxWorkers && name.size() > MaxNameLength(workers)) {
    errors->Add("metadata.name", "must be at most " + std::to_string(MaxNameLength(workers)) +
                                     " characters so that worker pod names fit in 63, got " +
                                     std::to_string(name.size()));
  }
}

void ValidateHyperparameters(const BenchmarkSpec& spec, const TaskDef& task, FieldErrors* errors) {
  const std::string base = "spec.hyperparameters";
  for (const auto& [name, value] : spec.hyperparameters.items()) {
    const std::string path = JoinPath(base, name);
    const HyperparameterDef* def = task.FindHyperparameter(name);
    if (def == nullptr) {
      std::vector<std::string> known;
      for (const HyperparameterDef& h : task.hyperparameters) known.push_back(h.name);
      errors->Add(path, "unknown hyperparameter for task " + task.id +
                            (known.empty() ? " (it takes none)" : "; known: " + OneOf(known)));
      continue;
    }
    bool typed = false;
    switch (def->type) {
      case ParamType::kInteger:
        typed = value.is_number_integer() ||
                (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>());
        break;
      case ParamType::kNumber: typed = value.is_number(); break;
      case ParamType::kString: typed = value.is_string(); break;
      case ParamType::kBoolean: typed = value.is_boolean(); break;
    }
    if (!typed) {
      errors->Add(path, std::string("must be ") + ParamTypeName(def->type) + ", got " +
                            JsonTypeName(value) + " " + ShowJson(value));
      continue;
    }
    if (value.is_number() && (def->min || def->max)) {
      CheckRange(path, value.get<double>(), def->min.value_or(-INFINITY), def->max.value_or(INFINITY), errors);
    }
    if (value.is_string() && !def->choices.empty()) {
      CheckEnum(path, value.get<std::string>(), def->choices, errors);
    }
  }
}

void ValidateTask(const BenchmarkSpec& spec, const TaskDef& task, FieldErrors* errors) {
  if (!Contains(task.backends, spec.backend) && Contains({"gloo", "mpi", "nccl"}, spec.backend)) {
    errors->Add("spec.backend", "task " + task.id + " supports " + OneOf(task.backends) +
                                    ", got " + Quote(spec.backend));
  }
  if (!task.trains) {
    if (spec.goal) errors->Add("spec.goal", "task " + task.id + " has no accuracy goal");
    if (spec.max_epochs) errors->Add("spec.maxEpochs", "task " + task.id + " does not train");
  } else {
    if (spec.goal && spec.goal->metric != task.goal_metric) {
      errors->Add("spec.goal.metric", "task " + task.id + " measures " + task.goal_metric +
                                          ", got " + Quote(spec.goal->metric));
    }
    // An accuracy is a ratio, BLEU a percentage; a loss (nats per token) only has to be positive.
    if (spec.goal && spec.goal->target) {
      CheckRange("spec.goal.target", *spec.goal->target, task.goal_minimizes ? 1e-9 : 0, task.goal_max, errors);
    }
    if (spec.max_epochs) CheckRange("spec.maxEpochs", static_cast<double>(*spec.max_epochs), 1, 100000, errors);
  }
  if (!Contains(task.dataset_sources, spec.dataset.source) &&
      Contains({"synthetic", "path", "url"}, spec.dataset.source)) {
    errors->Add("spec.dataset.source", "task " + task.id + " supports " +
                                           OneOf(task.dataset_sources) + ", got " + Quote(spec.dataset.source));
  }
  if (spec.hyperparameters.is_object()) ValidateHyperparameters(spec, task, errors);
}

void ValidateTaskSpecific(const BenchmarkSpec& spec, FieldErrors* errors) {
  if (spec.task != "0a") return;
  const nlohmann::json& h = spec.hyperparameters;
  const nlohmann::json min = h.value("minElements", nlohmann::json());
  const nlohmann::json max = h.value("maxElements", nlohmann::json());
  if (min.is_number() && max.is_number() && min.get<double>() > max.get<double>()) {
    errors->Add("spec.hyperparameters.minElements",
                "must not exceed maxElements (" + ShowJson(max) + "), got " + ShowJson(min));
  }
  if (h.value("dtype", nlohmann::json()) == "float16" && spec.backend == "mpi") {
    errors->Add("spec.hyperparameters.dtype",
                "float16 is not supported by backend mpi (MPI has no half-precision sum)");
  }
}

// The core/v1 volume sources a Benchmark may name as spec.dataset.volume; which of them a
// cluster allows is the operator's policy (hostPath is off by default).
const std::vector<std::string>& DatasetVolumeTypes() {
  static const std::vector<std::string> kTypes = {"persistentVolumeClaim", "nfs", "csi", "hostPath", "cephfs",
                                                  "glusterfs", "iscsi", "azureFile", "ephemeral"};
  return kTypes;
}

void ValidateDatasetVolume(const nlohmann::json& volume, FieldErrors* errors) {
  if (volume.size() != 1) {
    errors->Add("spec.dataset.volume", "must name exactly one volume source (" + OneOf(DatasetVolumeTypes()) +
                                           "), got " + std::to_string(volume.size()));
    return;
  }
  const auto only = volume.begin();  // not items(): its proxy's key would dangle
  const std::string& type = only.key();
  const nlohmann::json& source = only.value();
  if (!Contains(DatasetVolumeTypes(), type)) {
    errors->Add("spec.dataset.volume." + type, "is not a volume source for data; use one of " + OneOf(DatasetVolumeTypes()));
  } else if (!source.is_object()) {
    errors->Add("spec.dataset.volume." + type, "must be an object, got " + JsonTypeName(source));
  }
}

void ValidateDataset(const DatasetSpec& d, FieldErrors* errors) {
  CheckEnum("spec.dataset.source", d.source, {"synthetic", "path", "url"}, errors);
  const bool mounted = !d.ref.empty() || !d.volume.empty();
  if (!d.ref.empty() && !d.volume.empty()) {
    errors->Add("spec.dataset.ref", "and spec.dataset.volume exclude each other: name a Dataset or a volume");
  }
  if (mounted) {
    const std::string field = d.ref.empty() ? "spec.dataset.volume" : "spec.dataset.ref";
    if (d.source != "path") errors->Add("spec.dataset.source", "must be path (or absent) with " + field + ", got " + Quote(d.source));
    if (!d.url.empty()) errors->Add("spec.dataset.url", "has no effect with " + field + "; leave it out");
    CheckRelativePath("spec.dataset.path", d.path, errors);
    if (!d.ref.empty()) CheckDnsLabel("spec.dataset.ref", d.ref, kMaxDatasetNameLength, errors);
    if (!d.volume.empty()) ValidateDatasetVolume(d.volume, errors);
    return;
  }
  if (d.source == "path" && d.path.empty()) errors->Add("spec.dataset.path", "is required when source is path");
  if (d.source == "url") {
    if (d.url.empty()) {
      errors->Add("spec.dataset.url", "is required when source is url");
    } else {
      // file:// for `ergobench run` (ERGOBENCH_ALLOW_FILE_URLS); the operator's policy refuses it.
      CheckFetchUrl("spec.dataset.url", d.url, /*allow_file=*/true, errors);
    }
    if (!AllOf(d.sha256, IsLowerHexDigit, 64)) {
      errors->Add("spec.dataset.sha256", "must be 64 lowercase hex digits when source is url, got " + Quote(d.sha256));
    }
  }
}

void ValidateResources(const BenchmarkSpec& spec, FieldErrors* errors) {
  for (auto [field, value] : {std::pair{"cpu", &spec.resources.cpu}, std::pair{"memory", &spec.resources.memory}}) {
    if (value->empty()) continue;
    StatusOr<double> quantity = ParseQuantity(*value);
    const std::string path = std::string("spec.resources.") + field;
    if (!quantity.ok()) {
      errors->Add(path, quantity.status().message());
    } else if (*quantity <= 0) {
      errors->Add(path, "must be positive, got " + Quote(*value));
    }
  }
  if (spec.resources.gpu < 0) errors->Add("spec.resources.gpu", "must be 0 or more, got " + std::to_string(spec.resources.gpu));
  if (spec.device == "cuda" && spec.resources.gpu < 1) {
    errors->Add("spec.resources.gpu", "must be at least 1 when device is cuda, got " + std::to_string(spec.resources.gpu));
  }
  if (spec.backend == "nccl" && spec.device != "cuda") {
    errors->Add("spec.backend", "nccl needs device cuda, got device " + Quote(spec.device));
  }
}

// Walks `node` along `names` (from `at`), calling `check` with each value reached and its path.
void ForEachAt(const nlohmann::json& node, const std::vector<std::string>& names, size_t at, const std::string& path,
               const std::function<void(const nlohmann::json&, const std::string&)>& check) {
  if (at == names.size()) return check(node, path);
  if (!node.is_object()) return;
  if (names[at] == "*") {
    for (const auto& [key, value] : node.items()) ForEachAt(value, names, at + 1, JoinPath(path, key), check);
  } else if (node.contains(names[at])) {
    ForEachAt(node[names[at]], names, at + 1, JoinPath(path, names[at]), check);
  }
}

void ValidateLimits(const Benchmark& b, FieldErrors* errors) {
  const nlohmann::json spec = EncodeBenchmark(b).value("spec", nlohmann::json::object());
  for (const SpecLimit& limit : SpecLimits()) {
    std::vector<std::string> names;
    std::stringstream parts(limit.path.substr(std::string("spec.").size()));
    for (std::string name; std::getline(parts, name, '.');) names.push_back(name);
    const std::string keyword = limit.keyword;
    ForEachAt(spec, names, 0, "spec", [&](const nlohmann::json& value, const std::string& path) {
      const std::string max = std::to_string(limit.max);
      if (keyword == "maxLength" && value.is_string() && value.get_ref<const std::string&>().size() > static_cast<size_t>(limit.max)) {
        errors->Add(path, "must be at most " + max + " bytes, got " + std::to_string(value.get_ref<const std::string&>().size()));
      } else if (keyword == "maxItems" && value.is_array() && value.size() > static_cast<size_t>(limit.max)) {
        errors->Add(path, "must have at most " + max + " items, got " + std::to_string(value.size()));
      } else if (keyword == "maxProperties" && value.is_object() && value.size() > static_cast<size_t>(limit.max)) {
        errors->Add(path, "must have at most " + max + " entries, got " + std::to_string(value.size()));
      }
    });
  }
}

void ValidateImage(const std::string& image, FieldErrors* errors) {
  if (image.empty() || image.size() > 512) return;  // empty: the default; too long: the limit says so
  if (!IsImageReference(image)) {
    errors->Add("spec.image", "is not an image reference ([registry/]repository[:tag][@digest], lowercase "
                              "repository), got " + Quote(image));
  }
}

void ValidateScheduling(const Scheduling& s, FieldErrors* errors) {
  CheckRange("spec.scheduling.ranksPerNode", static_cast<double>(s.ranks_per_node), 1, kMaxWorkers, errors);
  for (size_t i = 0; i < s.tolerations.size(); ++i) {
    if (!s.tolerations[i].is_object()) {
      errors->Add(IndexPath("spec.scheduling.tolerations", i), "must be an object, got " + JsonTypeName(s.tolerations[i]));
    }
  }
}

void ValidatePricing(const Pricing& p, FieldErrors* errors) {
  if (!AllOf(p.currency, IsAsciiUpper, 3)) {
    errors->Add("spec.pricing.currency", "must be a three-letter ISO 4217 code such as USD, got " + Quote(p.currency));
  }
  for (auto [field, value] : {std::pair{"workerHour", &p.worker_hour},
                              std::pair{"preemptibleWorkerHour", &p.preemptible_worker_hour},
                              std::pair{"acceleratorHour", &p.accelerator_hour}}) {
    if (*value && (**value < 0 || !std::isfinite(**value))) {
      errors->Add(std::string("spec.pricing.") + field, "must be 0 or more, got " + FormatNumber(**value));
    }
  }
  if (!p.worker_hour && !p.accelerator_hour && p.label.empty()) {
    errors->Add("spec.pricing.workerHour",
                "is required when pricing is given, or a label: an instance type of the price catalog "
                "(leave pricing out to price the run by its nodes' instance type)");
  }
  if (!p.region.empty() && p.label.empty()) errors->Add("spec.pricing.region", "is the region of a label; give label too");
}

void ValidateRunPolicy(const RunPolicy& rp, FieldErrors* errors) {
  CheckRange("spec.runPolicy.backoffLimit", static_cast<double>(rp.backoff_limit), 0, 100, errors);
  if (rp.active_deadline_seconds && *rp.active_deadline_seconds < 1) {
    errors->Add("spec.runPolicy.activeDeadlineSeconds", "must be at least 1, got " + std::to_string(*rp.active_deadline_seconds));
  }
  if (rp.ttl_seconds_after_finished && *rp.ttl_seconds_after_finished < 0) {
    errors->Add("spec.runPolicy.ttlSecondsAfterFinished", "must be 0 or more, got " + std::to_string(*rp.ttl_seconds_after_finished));
  }
  CheckEnum("spec.runPolicy.cleanPodPolicy", rp.clean_pod_policy, {"All", "Running", "None"}, errors);
}

// More repeats than this is a sweep's job, or a mistake.
constexpr int64_t kMaxRepeats = 100;

void ValidateBaseline(const Baseline& b, FieldErrors* errors) {
  const int sources = !b.benchmark.empty() + !b.config_map.empty() + !b.path.empty();
  if (sources != 1) {
    errors->Add("spec.baseline", "needs exactly one of benchmark, configMap or path, got " + std::to_string(sources));
  }
  // Names in this namespace, read through the API: "other-team/x" is neither.
  if (!b.benchmark.empty()) CheckDnsLabel("spec.baseline.benchmark", b.benchmark, kMaxDnsLabelLength, errors);
  if (!b.config_map.empty() && !IsDnsSubdomain(b.config_map)) {
    errors->Add("spec.baseline.configMap", "must be a ConfigMap's name in this namespace (lowercase letters, digits, "
                                           "'-' and '.'), got " + Quote(b.config_map));
  }
  std::vector<std::string> known;
  for (const HeadlineFigure& f : HeadlineFigures()) known.push_back(f.name);
  for (const auto& [figure, band] : b.tolerances) {
    const std::string path = "spec.baseline.tolerances." + figure;
    const HeadlineFigure* f = FindHeadlineFigure(figure);
    if (f == nullptr) {
      errors->Add(path, "is not a headline figure; known: " + OneOf(known));
    } else {
      // A throughput cannot fall by 100% or more and still be a throughput; a ratio's band is
      // in percentage points.
      CheckRange(path, band, 0, f->band_in_points ? 100 : f->higher_is_better ? 99.999 : 1000, errors);
    }
  }
}

}  // namespace

const std::vector<SpecLimit>& SpecLimits() {
  // Names and label values follow Kubernetes' own limits (DNS subdomain 253, label value 63).
  static const std::vector<SpecLimit> kLimits = {
      {"spec.task", "maxLength", 63},
      {"spec.goal.metric", "maxLength", 63},
      {"spec.dataset.path", "maxLength", 4096},
      {"spec.dataset.url", "maxLength", 2048},
      {"spec.dataset.ref", "maxLength", 57},
      {"spec.hyperparameters", "maxProperties", 64},
      {"spec.image", "maxLength", 512},
      {"spec.resources.cpu", "maxLength", static_cast<int64_t>(kMaxQuantityLength)},
      {"spec.resources.memory", "maxLength", static_cast<int64_t>(kMaxQuantityLength)},
      {"spec.scheduling.nodeSelector", "maxProperties", 32},
      {"spec.scheduling.nodeSelector.*", "maxLength", 63},
      {"spec.scheduling.tolerations", "maxItems", 32},
      {"spec.scheduling.schedulerName", "maxLength", 253},
      {"spec.scheduling.priorityClassName", "maxLength", 253},
      {"spec.pricing.label", "maxLength", 253},
      {"spec.pricing.region", "maxLength", 63},
      {"spec.submission.org", "maxLength", 128},
      {"spec.submission.platform", "maxLength", 128},
      {"spec.baseline.benchmark", "maxLength", 253},
      {"spec.baseline.configMap", "maxLength", 253},
      {"spec.baseline.path", "maxLength", 4096},
      {"spec.baseline.tolerances", "maxProperties", 16},
  };
  return kLimits;
}

size_t MaxNameLength(int64_t workers) {
  const size_t index_digits = std::to_string(std::max<int64_t>(workers - 1, 0)).size();
  return 63 - std::string("-worker-").size() - index_digits;
}

FieldErrors ValidateBenchmark(const Benchmark& b) {
  FieldErrors errors;
  if (b.api_version != kApiVersion) {
    errors.Add("apiVersion", std::string("must be ") + kApiVersion + ", got " + Quote(b.api_version));
  }
  if (b.kind != kKind) errors.Add("kind", std::string("must be ") + kKind + ", got " + Quote(b.kind));
  ValidateMetadata(b, &errors);

  const BenchmarkSpec& spec = b.spec;
  const TaskDef* task = FindTask(spec.task);
  if (spec.task.empty()) {
    errors.Add("spec.task", "is required; known tasks: " + KnownTaskIds());
  } else if (task == nullptr && spec.task.size() <= 63) {  // a longer id is the limit's error
    errors.Add("spec.task", "unknown task " + Quote(spec.task) + "; known tasks: " + KnownTaskIds());
  }
  const int64_t workers = spec.workers;
  CheckRange("spec.workers", static_cast<double>(workers), 1, kMaxWorkers, &errors);
  CheckEnum("spec.backend", spec.backend, {"gloo", "mpi", "nccl"}, &errors);
  CheckEnum("spec.device", spec.device, {"cpu", "cuda"}, &errors);
  if (task != nullptr) {
    ValidateTask(spec, *task, &errors);
    ValidateTaskSpecific(spec, &errors);
  }
  ValidateLimits(b, &errors);
  ValidateImage(spec.image, &errors);
  ValidateDataset(spec.dataset, &errors);
  ValidateResources(spec, &errors);
  ValidateScheduling(spec.scheduling, &errors);
  if (spec.pricing) ValidatePricing(*spec.pricing, &errors);
  if (spec.submission) {
    if (!spec.submission->division.empty()) CheckEnum("spec.submission.division", spec.submission->division, {"closed", "open"}, &errors);
    if (!spec.submission->status.empty()) {
      CheckEnum("spec.submission.status", spec.submission->status, {"cloud", "onprem", "preview", "research"}, &errors);
    }
  }
  ValidateRunPolicy(spec.run_policy, &errors);
  CheckRange("spec.repeats", static_cast<double>(spec.repeats), 1, kMaxRepeats, &errors);
  if (spec.baseline) ValidateBaseline(*spec.baseline, &errors);
  return errors;
}

}  // namespace ergobench
