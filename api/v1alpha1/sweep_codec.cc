// The JSON form of a BenchmarkSweep (sweep.h).
#include <algorithm>

#include "api/v1alpha1/object_codec.h"
#include "api/v1alpha1/result.h"
#include "api/v1alpha1/sweep.h"
#include "base/json_fields.h"
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

void ReadWorkers(ObjectReader* r, const std::string& key, SweepMatrix* matrix) {
  std::vector<int64_t>* out = &matrix->workers;
  const nlohmann::json* list = r->Raw(key);
  if (list == nullptr) return;
  if (!list->is_array()) return r->errors()->Add(r->PathOf(key), "must be a list of integers, got " + JsonTypeName(*list));
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& k = (*list)[i];
    if (k.is_number_integer()) {
      out->push_back(k.get<int64_t>());
    } else {
      r->errors()->Add(IndexPath(r->PathOf(key), i), "must be an integer, got " + ShowJson(k));
    }
  }
}

// name: [the values to run]
void ReadAxes(ObjectReader* r, const std::string& key, SweepMatrix* matrix) {
  std::map<std::string, std::vector<nlohmann::json>>* out = &matrix->hyperparameters;
  const nlohmann::json axes = ObjectValue(r, key);
  if (axes.is_null()) return;
  for (const auto& [name, values] : axes.items()) {
    const std::string path = JoinPath(r->PathOf(key), name);
    if (!values.is_array()) {
      r->errors()->Add(path, "must be a list of the values to run, got " + JsonTypeName(values));
      continue;
    }
    (*out)[name] = values.get<std::vector<nlohmann::json>>();
  }
}

void WriteAxes(const SweepMatrix& matrix, const std::string& key, nlohmann::json* out) {
  for (const auto& [name, values] : matrix.hyperparameters) (*out)[key][name] = values;
}

// A Benchmark spec that every point starts from; its hyperparameters are checked here, before a
// point sets its own into them.
void ReadTemplate(ObjectReader* r, const std::string& key, BenchmarkSweepSpec* spec) {
  const nlohmann::json template_spec = ObjectValue(r, key);
  const std::string path = r->PathOf(key);
  if (template_spec.is_null()) {
    r->errors()->Add(path, "is required: the Benchmark spec every point starts from");
  } else if (const auto h = template_spec.find("hyperparameters");
             h != template_spec.end() && !h->is_null() && !h->is_object()) {
    r->errors()->Add(JoinPath(path, "hyperparameters"), "must be an object (name: value), got " + JsonTypeName(*h));
  } else {
    spec->template_spec = template_spec;
  }
}

// Unwritten, as many as the instances (MLPerf HPC's weak scaling trains them at once), else 1;
// `instances` is read before it, and says itself what is wrong with it.
void ReadConcurrency(ObjectReader* r, const std::string& key, BenchmarkSweepSpec* spec) {
  spec->concurrency = std::clamp<int64_t>(spec->instances.value_or(1), 1, kMaxSweepPoints);
  r->Int(key, &spec->concurrency);
}

const JsonFields<BenchmarkSweepSpec>& SweepSpecFields() {
  static const JsonFields<SweepSystem> system = JsonFields<SweepSystem>()
                                                    .Add("name", &SweepSystem::name, Written::kAlways)
                                                    .Json("scheduling", &SweepSystem::scheduling, JsonShape::kObject)
                                                    .Json("resources", &SweepSystem::resources, JsonShape::kObject)
                                                    .Json("pricing", &SweepSystem::pricing, JsonShape::kObject);
  static const JsonFields<SweepMatrix> matrix =
      JsonFields<SweepMatrix>()
          .Custom("workers", ReadWorkers,
                  [](const SweepMatrix& m, const std::string& key, nlohmann::json* out) {
                    if (!m.workers.empty()) (*out)[key] = m.workers;
                  })
          .Add("backend", &SweepMatrix::backends)
          .Custom("hyperparameters", ReadAxes, WriteAxes)
          .List("systems", &SweepMatrix::systems, system);
  using S = BenchmarkSweepSpec;
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Custom("template", ReadTemplate,
                                                  [](const S& spec, const std::string& key, nlohmann::json* out) {
                                                    (*out)[key] = spec.template_spec;
                                                  })
                                          .Object("matrix", &S::matrix, matrix, Written::kAlways)
                                          .Add("scaling", &S::scaling, Written::kAlways)
                                          .Add("repeats", &S::repeats)
                                          .Add("instances", &S::instances)
                                          .Custom("concurrency", ReadConcurrency,
                                                  [](const S& spec, const std::string& key, nlohmann::json* out) {
                                                    (*out)[key] = spec.concurrency;
                                                  })
                                          .Add("order", &S::order, Written::kAlways)
                                          .Add("failurePolicy", &S::failure_policy, Written::kAlways);
  return fields;
}

const JsonFields<SweepParameters>& ParameterFields() {
  using P = SweepParameters;
  static const JsonFields<P> fields = JsonFields<P>()
                                              .Add("workers", &P::workers, Written::kAlways)
                                              .Add("backend", &P::backend)
                                              .Add("system", &P::system)
                                              .Json("hyperparameters", &P::hyperparameters, JsonShape::kObject)
                                              .Add("instance", &P::instance);
  return fields;
}

const JsonFields<SweepPointStatus>& SweepPointFields() {
  using S = SweepPointStatus;
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Add("index", &S::index, Written::kAlways)
                                          .Add("benchmark", &S::benchmark, Written::kAlways)
                                          .Object("parameters", &S::parameters, ParameterFields(), Written::kAlways)
                                          .Add("phase", &S::phase)
                                          .Add("message", &S::message)
                                          .Map("figures", &S::figures, SummaryFields())
                                          .Add("speedup", &S::speedup)
                                          .Add("efficiency", &S::efficiency)
                                          .Add("baseline", &S::baseline)
                                          .Object("mlperf", &S::mlperf, MlperfScoreFields())
                                          .Add("specDigest", &S::spec_digest)
                                          .Add("runStartMs", &S::run_start_ms)
                                          .Add("runStopMs", &S::run_stop_ms);
  return fields;
}

const JsonFields<WeakScalingScore>& WeakScalingFields() {
  using W = WeakScalingScore;
  static const JsonFields<W> fields = JsonFields<W>()
                                          .Object("parameters", &W::parameters, ParameterFields(), Written::kAlways)
                                          .Add("instances", &W::instances, Written::kAlways)
                                          .Add("converged", &W::converged, Written::kAlways)
                                          .Add("pruned", &W::pruned)
                                          .Add("timeToTrainAllMinutes", &W::time_to_train_all_minutes)
                                          .Add("modelsPerMinute", &W::models_per_minute)
                                          .Add("requiredInstances", &W::required_instances, Written::kAlways)
                                          .Add("complete", &W::complete, Written::kAlways)
                                          .Add("note", &W::note);
  return fields;
}

const JsonFields<BenchmarkSweepStatus>& SweepStatusFields() {
  using S = BenchmarkSweepStatus;
  // The tallies and points of a sweep that has its points, and of no other.
  const auto counted = [](const S& s) { return s.total != 0 || !s.points.empty(); };
  static const JsonFields<S> fields =
      JsonFields<S>()
          .Add("phase", &S::phase)
          .List("conditions", &S::conditions, ConditionFields())
          .Add("observedGeneration", &S::observed_generation)
          .Add("startTime", &S::start_time)
          .Add("completionTime", &S::completion_time)
          .Add("total", &S::total, counted)
          .Add("succeeded", &S::succeeded, counted)
          .Add("failed", &S::failed, counted)
          .Add("running", &S::running, counted)
          .Add("progress", &S::progress, [counted](const S& s) { return counted(s) && !s.progress.empty(); })
          .Add("best", &S::best, [counted](const S& s) { return counted(s) && !s.best.empty(); })
          .List("points", &S::points, SweepPointFields(), counted)
          .List("weakScaling", &S::weak_scaling, WeakScalingFields());
  return fields;
}

const JsonFields<BenchmarkSweep>& SweepFields() {
  static const JsonFields<BenchmarkSweep> fields =
      ResourceFields(&BenchmarkSweep::spec, SweepSpecFields(), &BenchmarkSweep::status, SweepStatusFields());
  return fields;
}

}  // namespace

BenchmarkSweep DecodeSweep(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors) {
  return DecodeResource(SweepFields(), &BenchmarkSweep::status, SweepStatusFields(), json, errors, status_errors);
}

nlohmann::json EncodeSweepSpec(const BenchmarkSweepSpec& spec) { return SweepSpecFields().Encode(spec); }

nlohmann::json EncodeSweepStatus(const BenchmarkSweepStatus& status) { return SweepStatusFields().Encode(status); }

}  // namespace ergobench
