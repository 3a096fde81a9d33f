#include "api/v1alpha1/sweep.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/field_checks.h"
#include "api/v1alpha1/validation.h"

namespace ergobench {
namespace {

// How many points the matrix has, counted before any is built (six axes of 20 values are 64
// million points, tens of GB); nullopt past what an int64 holds.
std::optional<int64_t> CountPoints(const SweepMatrix& m) {
  std::vector<size_t> sizes = {m.systems.size(), m.backends.size(), m.workers.size()};
  for (const auto& [name, values] : m.hyperparameters) sizes.push_back(values.size());
  int64_t count = 1;
  for (size_t size : sizes) {
    if (size > 0 && __builtin_mul_overflow(count, static_cast<int64_t>(size), &count)) return std::nullopt;
  }
  return count;
}

// The matrix's points in listed order: systems outermost, then backends, hyperparameters (by
// name) and workers, so that a scaling series is a run of consecutive points; a point's
// instances innermost.
std::vector<SweepParameters> ListPoints(const BenchmarkSweepSpec& spec) {
  const SweepMatrix& m = spec.matrix;
  std::vector<SweepParameters> points(1);
  const auto expand = [&points](size_t n, const auto& set) {
    if (n == 0) return;
    std::vector<SweepParameters> next;
    for (const SweepParameters& p : points) {
      for (size_t i = 0; i < n; ++i) next.push_back(p), set(&next.back(), i);
    }
    points = std::move(next);
  };
  expand(m.systems.size(), [&](SweepParameters* p, size_t i) { p->system = m.systems[i].name; });
  expand(m.backends.size(), [&](SweepParameters* p, size_t i) { p->backend = m.backends[i]; });
  for (const auto& axis : m.hyperparameters) {  // not a structured binding: clang 14 cannot capture one
    expand(axis.second.size(), [&](SweepParameters* p, size_t i) { p->hyperparameters[axis.first] = axis.second[i]; });
  }
  expand(m.workers.size(), [&](SweepParameters* p, size_t i) { p->workers = m.workers[i]; });
  expand(static_cast<size_t>(spec.instances.value_or(0)),
         [](SweepParameters* p, size_t i) { p->instance = static_cast<int64_t>(i); });
  return points;
}

uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// Positions in run order. Shuffled is Fisher–Yates driven by splitmix64 from the sweep's name:
// the same sweep always runs in the same order, on any machine.
std::vector<size_t> RunOrder(size_t n, const std::string& order, const std::string& name) {
  std::vector<size_t> positions(n);
  for (size_t i = 0; i < n; ++i) positions[i] = i;
  if (order == kOrderReversed) std::reverse(positions.begin(), positions.end());
  if (order != kOrderShuffled) return positions;
  uint64_t state = Fnv1a(name);
  const auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (size_t i = n; i > 1; --i) std::swap(positions[i - 1], positions[next() % i]);
  return positions;
}

nlohmann::json RenderPointSpec(const BenchmarkSweepSpec& spec, const SweepParameters& p) {
  nlohmann::json out = spec.template_spec;
  if (!spec.matrix.workers.empty()) out["workers"] = p.workers;
  if (!spec.matrix.backends.empty()) out["backend"] = p.backend;
  for (const auto& [name, value] : p.hyperparameters.items()) out["hyperparameters"][name] = value;
  for (const SweepSystem& system : spec.matrix.systems) {
    if (system.name != p.system) continue;
    if (!system.scheduling.is_null()) out["scheduling"] = system.scheduling;
    if (!system.resources.is_null()) out["resources"] = system.resources;
    if (!system.pricing.is_null()) out["pricing"] = system.pricing;
  }
  if (spec.repeats) out["repeats"] = *spec.repeats;
  return out;
}

// Strong scaling: the point's batchSize (as written, else the task's default) is the global
// batch, shared by its workers; it must divide evenly, or the point would not train what it says.
void ShareGlobalBatch(SweepPoint* point, FieldErrors* errors) {
  BenchmarkSpec& spec = point->benchmark.spec;
  const TaskDef* task = FindTask(spec.task);
  const HyperparameterDef* batch = task == nullptr ? nullptr : task->FindHyperparameter("batchSize");
  if (batch == nullptr) {
    return errors->Add("spec.hyperparameters.batchSize",
                       "strong scaling shares a global batchSize, which task \"" + spec.task + "\" has not");
  }
  const nlohmann::json global = spec.hyperparameters.value("batchSize", batch->default_value);
  const int64_t k = spec.workers;
  if (k < 1) return;  // spec.workers says what is wrong; no share of anything among no workers
  if (!global.is_number_integer() || global.get<int64_t>() % k != 0) {
    return errors->Add("spec.hyperparameters.batchSize", "strong scaling shares the global batch " + global.dump() +
                                                             " among " + std::to_string(k) +
                                                             " workers: it must be a multiple of workers");
  }
  spec.hyperparameters["batchSize"] = point->spec["hyperparameters"]["batchSize"] = global.get<int64_t>() / k;
}

// An instance trains its own model from its own seed: the point's (as written, else the
// task's) plus the instance (DerivedSeed, as a repeat's). Instances train once each.
void SeedInstance(SweepPoint* point, FieldErrors* errors) {
  if (!point->parameters.instance) return;
  BenchmarkSpec& spec = point->benchmark.spec;
  if (!spec.hyperparameters.is_object()) return;  // validation says what it is
  const nlohmann::json seed = spec.hyperparameters.value("seed", nlohmann::json());
  if (!seed.is_number_integer()) {
    if (!seed.is_null()) return;  // validation says what it is
    return errors->Add("spec.hyperparameters.seed", "instances train a model each from a seed of their own, which task \"" +
                                                        spec.task + "\" has not");
  }
  if (spec.repeats != 1) {
    errors->Add("spec.repeats", "must be 1 with spec.instances: a weak-scaling sweep's instances train once each");
  }
  spec.hyperparameters["seed"] = point->spec["hyperparameters"]["seed"] =
      DerivedSeed(seed.get<int64_t>(), *point->parameters.instance);
}

template <typename T>
void CheckDistinct(const std::vector<T>& values, const std::string& path, FieldErrors* errors) {
  std::set<T> seen;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!seen.insert(values[i]).second) errors->Add(IndexPath(path, i), "repeats an earlier value");
  }
}

void CheckOneOf(const std::string& value, std::initializer_list<const char*> allowed, const std::string& path,
                FieldErrors* errors) {
  std::string listed;
  for (const char* a : allowed) {
    if (value == a) return;
    listed += std::string(listed.empty() ? "" : ", ") + a;
  }
  errors->Add(path, "must be one of " + listed + ", got \"" + value + "\"");
}

FieldErrors ValidateSweepFields(const BenchmarkSweep& sweep) {
  FieldErrors errors;
  const BenchmarkSweepSpec& spec = sweep.spec;
  if (sweep.metadata.name.empty()) errors.Add("metadata.name", "is required");
  CheckOneOf(spec.scaling, {kScalingWeak, kScalingStrong}, "spec.scaling", &errors);
  CheckOneOf(spec.order, {kOrderListed, kOrderReversed, kOrderShuffled}, "spec.order", &errors);
  CheckOneOf(spec.failure_policy, {kFailureContinue, kFailureStop}, "spec.failurePolicy", &errors);
  CheckRange("spec.concurrency", static_cast<double>(spec.concurrency), 1, kMaxSweepPoints, &errors);
  if (spec.instances) CheckRange("spec.instances", static_cast<double>(*spec.instances), 1, kMaxSweepPoints, &errors);
  CheckDistinct(spec.matrix.workers, "spec.matrix.workers", &errors);
  CheckDistinct(spec.matrix.backends, "spec.matrix.backend", &errors);
  for (const auto& [name, values] : spec.matrix.hyperparameters) {
    const std::string path = "spec.matrix.hyperparameters." + name;
    if (values.empty()) errors.Add(path, "must list at least one value");
    std::vector<std::string> shown;
    for (const nlohmann::json& v : values) shown.push_back(v.dump());
    CheckDistinct(shown, path, &errors);
  }
  std::vector<std::string> systems;
  for (size_t i = 0; i < spec.matrix.systems.size(); ++i) {
    systems.push_back(spec.matrix.systems[i].name);
    if (systems.back().empty()) errors.Add(IndexPath("spec.matrix.systems", i) + ".name", "is required");
  }
  CheckDistinct(systems, "spec.matrix.systems", &errors);
  return errors;
}

// The sweep's field that set a point's `path` ("spec.workers"), for an error every point has:
// the matrix's axis or the sweep's repeats where they set it, else the template's field.
std::string SweepFieldOf(const std::string& path, const BenchmarkSweepSpec& spec) {
  const std::string field = path.substr(std::string("spec.").size());
  const std::string hyperparameters = "hyperparameters.";
  if (field == "repeats" && spec.repeats) return "spec.repeats";
  if (field == "workers" && !spec.matrix.workers.empty()) return "spec.matrix.workers";
  if (field == "backend" && !spec.matrix.backends.empty()) return "spec.matrix.backend";
  if (field.rfind(hyperparameters, 0) == 0) {
    const std::string name = field.substr(hyperparameters.size());
    if (spec.matrix.hyperparameters.count(name.substr(0, name.find('.'))) > 0) return "spec.matrix." + field;
  }
  return "spec.template." + field;
}

// A point's errors, each named by the point; an error every point has is the sweep's.
void AddPointErrors(const std::vector<std::pair<std::string, FieldErrors>>& failed, size_t points,
                    const BenchmarkSweepSpec& spec, FieldErrors* errors) {
  std::vector<std::pair<FieldError, std::vector<std::string>>> grouped;
  for (const auto& [where, point_errors] : failed) {
    for (const FieldError& e : point_errors.errors()) {
      auto found = std::find_if(grouped.begin(), grouped.end(), [&](const auto& g) { return g.first == e; });
      if (found == grouped.end()) found = grouped.insert(grouped.end(), {e, {}});
      found->second.push_back(where);
    }
  }
  for (const auto& [e, wheres] : grouped) {
    if (wheres.size() == points && points > 1 && e.path.rfind("spec.", 0) == 0) {
      errors->Add(SweepFieldOf(e.path, spec), e.message);
      continue;
    }
    for (const std::string& where : wheres) errors->Add(where + " " + e.path, e.message);
  }
}

}  // namespace

std::string SpecDigest(const nlohmann::json& spec) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(Fnv1a(spec.dump())));
  return text;
}

std::string SweepPointName(const std::string& sweep, int64_t index) { return sweep + "-" + std::to_string(index); }

std::string DescribeParameters(const SweepParameters& p) {
  std::string out = "workers=" + std::to_string(p.workers);
  if (!p.backend.empty()) out += " backend=" + p.backend;
  for (const auto& [name, value] : p.hyperparameters.items()) {
    out += " " + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (!p.system.empty()) out += " system=" + p.system;
  if (p.instance) out += " instance=" + std::to_string(*p.instance);
  return out;
}

std::vector<SweepPoint> ExpandSweep(const BenchmarkSweep& sweep, FieldErrors* errors) {
  errors->Append(ValidateSweepFields(sweep));
  const std::optional<int64_t> count = CountPoints(sweep.spec.matrix);
  if (!count || *count > kMaxSweepPoints) {
    errors->Add("spec.matrix", "has " + (count ? std::to_string(*count) : std::string("over 2^63")) +
                                   " points; at most " + std::to_string(kMaxSweepPoints) + " run in one sweep");
  } else if (const int64_t instances = sweep.spec.instances.value_or(1);
             errors->empty() && *count * instances > kMaxSweepPoints) {  // both at most 256: no overflow
    errors->Add("spec.instances", std::to_string(*count) + " points x " + std::to_string(instances) + " instances are " +
                                      std::to_string(*count * instances) + " runs; at most " +
                                      std::to_string(kMaxSweepPoints) + " run in one sweep");
  }
  if (!errors->empty()) return {};
  const std::vector<SweepParameters> listed = ListPoints(sweep.spec);
  std::vector<SweepPoint> points;
  std::vector<std::pair<std::string, FieldErrors>> failed;
  for (size_t i : RunOrder(listed.size(), sweep.spec.order, sweep.metadata.name)) {
    SweepPoint point{static_cast<int64_t>(i), listed[i], RenderPointSpec(sweep.spec, listed[i]), {}};
    const std::string name = SweepPointName(sweep.metadata.name, point.index);
    nlohmann::json metadata = {{"name", name}, {"labels", {{kSweepLabel, sweep.metadata.name},
                                                           {kSweepPointLabel, std::to_string(point.index)}}}};
    if (!sweep.metadata.namespace_name.empty()) metadata["namespace"] = sweep.metadata.namespace_name;
    FieldErrors point_errors;
    point.benchmark = DecodeBenchmark({{"apiVersion", kApiVersion}, {"kind", "Benchmark"}, {"metadata", metadata},
                                       {"spec", point.spec}}, &point_errors);
    ApplyDefaults(&point.benchmark);
    if (sweep.spec.scaling == kScalingStrong) ShareGlobalBatch(&point, &point_errors);
    SeedInstance(&point, &point_errors);
    point.parameters.workers = point.benchmark.spec.workers;
    point.parameters.backend = point.benchmark.spec.backend;
    point_errors.Append(ValidateBenchmark(point.benchmark));
    if (!point_errors.empty()) {
      failed.emplace_back("point " + name + " (" + DescribeParameters(point.parameters) + ")", std::move(point_errors));
    }
    points.push_back(std::move(point));
  }
  AddPointErrors(failed, points.size(), sweep.spec, errors);
  if (!errors->empty()) return {};
  return points;
}

}  // namespace ergobench
