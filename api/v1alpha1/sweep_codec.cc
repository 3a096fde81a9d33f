// The JSON form of a BenchmarkSweep (sweep.h).
#include "api/v1alpha1/object_codec.h"
#include "api/v1alpha1/result.h"
#include "api/v1alpha1/sweep.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {

// An object's value, or an error naming it; absent stays null.
nlohmann::json ObjectValue(ObjectReader* r, const std::string& key) {
  const nlohmann::json* value = r->Raw(key);
  if (value == nullptr || value->is_null()) return nullptr;
  if (!value->is_object()) {
    r->errors()->Add(r->PathOf(key), "must be an object, got " + JsonTypeName(*value));
    return nullptr;
  }
  return *value;
}

void DecodeWorkers(ObjectReader* r, std::vector<int64_t>* out) {
  const nlohmann::json* list = r->Raw("workers");
  if (list == nullptr || list->is_null()) return;
  if (!list->is_array()) return r->errors()->Add(r->PathOf("workers"), "must be a list of integers, got " + JsonTypeName(*list));
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& k = (*list)[i];
    if (k.is_number_integer()) {
      out->push_back(k.get<int64_t>());
    } else {
      r->errors()->Add(IndexPath(r->PathOf("workers"), i), "must be an integer, got " + ShowJson(k));
    }
  }
}

void DecodeHyperparameterAxes(ObjectReader* r, std::map<std::string, std::vector<nlohmann::json>>* out) {
  const nlohmann::json axes = ObjectValue(r, "hyperparameters");
  if (axes.is_null()) return;
  for (const auto& [name, values] : axes.items()) {
    const std::string path = JoinPath(r->PathOf("hyperparameters"), name);
    if (!values.is_array()) {
      r->errors()->Add(path, "must be a list of the values to run, got " + JsonTypeName(values));
      continue;
    }
    (*out)[name] = values.get<std::vector<nlohmann::json>>();
  }
}

void DecodeSystems(ObjectReader* r, std::vector<SweepSystem>* out) {
  const nlohmann::json* list = r->Raw("systems");
  if (list == nullptr || list->is_null()) return;
  if (!list->is_array()) return r->errors()->Add(r->PathOf("systems"), "must be a list, got " + JsonTypeName(*list));
  for (size_t i = 0; i < list->size(); ++i) {
    ObjectReader s(&(*list)[i], IndexPath(r->PathOf("systems"), i), r->errors());
    SweepSystem system;
    s.String("name", &system.name);
    system.scheduling = ObjectValue(&s, "scheduling");
    system.resources = ObjectValue(&s, "resources");
    system.pricing = ObjectValue(&s, "pricing");
    out->push_back(std::move(system));
  }
}

BenchmarkSweepSpec DecodeSpec(const nlohmann::json* json, FieldErrors* errors) {
  BenchmarkSweepSpec spec;
  ObjectReader r(json, "spec", errors);
  const nlohmann::json template_spec = ObjectValue(&r, "template");
  if (template_spec.is_null()) {
    errors->Add("spec.template", "is required: the Benchmark spec every point starts from");
  } else if (const auto h = template_spec.find("hyperparameters");
             h != template_spec.end() && !h->is_null() && !h->is_object()) {
    // Checked here, before a point sets its hyperparameters into it.
    errors->Add("spec.template.hyperparameters", "must be an object (name: value), got " + JsonTypeName(*h));
  } else {
    spec.template_spec = template_spec;
  }
  {
    ObjectReader m(r.Object("matrix"), "spec.matrix", errors);
    DecodeWorkers(&m, &spec.matrix.workers);
    m.Strings("backend", &spec.matrix.backends);
    DecodeHyperparameterAxes(&m, &spec.matrix.hyperparameters);
    DecodeSystems(&m, &spec.matrix.systems);
  }
  r.String("scaling", &spec.scaling);
  r.Int("repeats", &spec.repeats);
  r.Int("concurrency", &spec.concurrency);
  r.String("order", &spec.order);
  r.String("failurePolicy", &spec.failure_policy);
  return spec;
}

std::map<std::string, Summary> DecodePointFigures(ObjectReader* r) {
  std::map<std::string, Summary> figures;
  const nlohmann::json* json = r->Raw("figures");
  if (json == nullptr || !json->is_object()) return figures;
  for (const auto& [name, value] : json->items()) {
    figures[name] = DecodeSummary(value, JoinPath(r->PathOf("figures"), name), r->errors());
  }
  return figures;
}

SweepPointStatus DecodePoint(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  SweepPointStatus point;
  ObjectReader r(&json, path, errors);
  r.Int("index", &point.index);
  r.String("benchmark", &point.benchmark);
  {
    ObjectReader p(r.Object("parameters"), JoinPath(path, "parameters"), errors);
    p.Int("workers", &point.parameters.workers);
    p.String("backend", &point.parameters.backend);
    p.String("system", &point.parameters.system);
    if (const nlohmann::json* h = p.Raw("hyperparameters"); h != nullptr && h->is_object()) point.parameters.hyperparameters = *h;
  }
  r.String("phase", &point.phase);
  r.String("message", &point.message);
  point.figures = DecodePointFigures(&r);
  r.Number("speedup", &point.speedup);
  r.Number("efficiency", &point.efficiency);
  r.String("baseline", &point.baseline);
  r.String("specDigest", &point.spec_digest);
  return point;
}

BenchmarkSweepStatus DecodeStatus(const nlohmann::json* json, FieldErrors* errors) {
  BenchmarkSweepStatus status;
  ObjectReader r(json, "status", errors);
  r.String("phase", &status.phase);
  status.conditions = DecodeConditions(r.Raw("conditions"), "status.conditions", errors);
  r.Int("observedGeneration", &status.observed_generation);
  r.String("startTime", &status.start_time);
  r.String("completionTime", &status.completion_time);
  r.Int("total", &status.total);
  r.Int("succeeded", &status.succeeded);
  r.Int("failed", &status.failed);
  r.Int("running", &status.running);
  r.String("progress", &status.progress);
  r.String("best", &status.best);
  if (const nlohmann::json* points = r.Raw("points"); points != nullptr && points->is_array()) {
    for (size_t i = 0; i < points->size(); ++i) {
      status.points.push_back(DecodePoint((*points)[i], IndexPath("status.points", i), errors));
    }
  }
  return status;
}

nlohmann::json EncodeSystem(const SweepSystem& system) {
  nlohmann::json out = {{"name", system.name}};
  if (!system.scheduling.is_null()) out["scheduling"] = system.scheduling;
  if (!system.resources.is_null()) out["resources"] = system.resources;
  if (!system.pricing.is_null()) out["pricing"] = system.pricing;
  return out;
}

nlohmann::json EncodePoint(const SweepPointStatus& point) {
  nlohmann::json parameters = {{"workers", point.parameters.workers}};
  PutIfNotEmpty(&parameters, "backend", point.parameters.backend);
  PutIfNotEmpty(&parameters, "system", point.parameters.system);
  if (!point.parameters.hyperparameters.empty()) parameters["hyperparameters"] = point.parameters.hyperparameters;
  nlohmann::json out = {{"index", point.index}, {"benchmark", point.benchmark}, {"parameters", parameters}};
  PutIfNotEmpty(&out, "phase", point.phase);
  PutIfNotEmpty(&out, "message", point.message);
  for (const auto& [name, summary] : point.figures) out["figures"][name] = EncodeSummary(summary);
  PutIf(&out, "speedup", point.speedup);
  PutIf(&out, "efficiency", point.efficiency);
  PutIfNotEmpty(&out, "baseline", point.baseline);
  PutIfNotEmpty(&out, "specDigest", point.spec_digest);
  return out;
}

}  // namespace

BenchmarkSweep DecodeSweep(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors) {
  BenchmarkSweep sweep;
  ObjectReader r(&json, "", errors);
  r.String("apiVersion", &sweep.api_version);
  r.String("kind", &sweep.kind);
  sweep.metadata = DecodeMetadata(r.Object("metadata"), errors);
  sweep.spec = DecodeSpec(r.Object("spec"), errors);
  FieldErrors dropped;
  sweep.status = DecodeStatus(r.Object("status"), status_errors != nullptr ? status_errors : &dropped);
  return sweep;
}

nlohmann::json EncodeSweepSpec(const BenchmarkSweepSpec& spec) {
  nlohmann::json matrix = nlohmann::json::object();
  if (!spec.matrix.workers.empty()) matrix["workers"] = spec.matrix.workers;
  if (!spec.matrix.backends.empty()) matrix["backend"] = spec.matrix.backends;
  for (const auto& [name, values] : spec.matrix.hyperparameters) matrix["hyperparameters"][name] = values;
  for (const SweepSystem& system : spec.matrix.systems) matrix["systems"].push_back(EncodeSystem(system));
  nlohmann::json out = {{"template", spec.template_spec}, {"matrix", matrix}, {"scaling", spec.scaling},
                        {"concurrency", spec.concurrency}, {"order", spec.order}, {"failurePolicy", spec.failure_policy}};
  PutIf(&out, "repeats", spec.repeats);
  return out;
}

nlohmann::json EncodeSweepStatus(const BenchmarkSweepStatus& status) {
  nlohmann::json out = nlohmann::json::object();
  PutIfNotEmpty(&out, "phase", status.phase);
  if (!status.conditions.empty()) out["conditions"] = EncodeConditions(status.conditions);
  if (status.observed_generation != 0) out["observedGeneration"] = status.observed_generation;
  PutIfNotEmpty(&out, "startTime", status.start_time);
  PutIfNotEmpty(&out, "completionTime", status.completion_time);
  if (status.total == 0 && status.points.empty()) return out;
  out["total"] = status.total;
  out["succeeded"] = status.succeeded;
  out["failed"] = status.failed;
  out["running"] = status.running;
  PutIfNotEmpty(&out, "progress", status.progress);
  PutIfNotEmpty(&out, "best", status.best);
  out["points"] = nlohmann::json::array();
  for (const SweepPointStatus& point : status.points) out["points"].push_back(EncodePoint(point));
  return out;
}

}  // namespace ergobench
