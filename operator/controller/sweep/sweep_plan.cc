#include "operator/controller/sweep/sweep_plan.h"

#include <map>
#include <set>

#include "api/analysis/sweep_status.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "operator/controller/common/conditions.h"
#include "operator/controller/common/ownership.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

// Running, Succeeded and Failed, one of them true, as a Benchmark's.
void SetPhase(BenchmarkSweepStatus* status, const std::string& phase, const std::string& reason,
              const std::string& message, int64_t generation, const std::string& now) {
  status->phase = phase;
  for (const char* type : {kConditionRunning, kConditionSucceeded, kConditionFailed}) {
    const bool is = type == phase;
    SetCondition(&status->conditions, type, is, is ? reason : "", is ? message : "", generation, now);
  }
}

std::string FailedPoints(const BenchmarkSweepStatus& status) {
  std::string names;
  for (const SweepPointStatus& p : status.points) {
    if (p.phase == kPhaseFailed) names += (names.empty() ? "" : ", ") + p.benchmark + " (" + p.message + ")";
  }
  return std::to_string(status.failed) + " of " + std::to_string(status.total) + " points failed: " + names;
}

// The phase once the children are counted: ended, stopped on a failure, running or pending.
void DecidePhase(const BenchmarkSweep& sweep, bool stopped, bool started, const std::string& now, SweepPlan* plan) {
  BenchmarkSweepStatus& s = plan->status;
  const int64_t generation = sweep.metadata.generation;
  const bool ended = s.succeeded + s.failed == s.total || (stopped && s.running == 0);
  if (!ended) {
    s.completion_time.clear();
    if (started && s.start_time.empty()) s.start_time = now;
    SetPhase(&s, started ? kPhaseRunning : kPhasePending, started ? "PointsRunning" : "NoPointStarted",
             s.progress + " points ended", generation, now);
    return;
  }
  if (s.completion_time.empty()) s.completion_time = now;
  if (s.failed == 0) {
    SetPhase(&s, kPhaseSucceeded, "AllPointsSucceeded", "all " + std::to_string(s.total) + " points succeeded; best: " + s.best,
             generation, now);
  } else {
    const bool cut_short = s.succeeded + s.failed < s.total;
    SetPhase(&s, kPhaseFailed, cut_short ? "StoppedOnFailure" : "PointsFailed",
             FailedPoints(s) + (cut_short ? "; failurePolicy Stop: the other points did not run" : ""), generation, now);
  }
}

// Events for what changed since the status the sweep had: a point that failed, the end.
void AddEvents(const BenchmarkSweep& sweep, SweepPlan* plan) {
  std::set<std::string> failed_before;
  for (const SweepPointStatus& p : sweep.status.points) {
    if (p.phase == kPhaseFailed) failed_before.insert(p.benchmark);
  }
  for (const SweepPointStatus& p : plan->status.points) {
    if (p.phase == kPhaseFailed && !failed_before.count(p.benchmark)) {
      plan->events.push_back({"Warning", "PointFailed", "point " + p.benchmark + " (" + DescribeParameters(p.parameters) + ") failed: " + p.message});
    }
  }
  const std::string& phase = plan->status.phase;
  if (phase != sweep.status.phase && IsFinished(phase)) {
    const Condition* c = FindCondition(plan->status.conditions, phase);
    plan->events.push_back({phase == kPhaseSucceeded ? "Normal" : "Warning", c->reason, c->message});
  }
}

}  // namespace

SweepChild ReadSweepChild(const json& object) {
  SweepChild child;
  child.controller_uid = ControllerUid(object);
  const json& metadata = object.value("metadata", json::object());
  child.spec_digest = metadata.value("annotations", json::object()).value(kSweepPointSpecAnnotation, "");
  child.deleting = metadata.contains("deletionTimestamp");
  FieldErrors ignored;  // a child's spec is the sweep's writing; its status is what counts here
  child.benchmark = DecodeBenchmark(object, &ignored);
  return child;
}

json BuildSweepChild(const BenchmarkSweep& sweep, const SweepPoint& point) {
  json metadata = {{"name", point.benchmark.metadata.name},
                   {"namespace", sweep.metadata.namespace_name},
                   {"labels", point.benchmark.metadata.labels},
                   {"annotations", {{kSweepPointSpecAnnotation, SpecDigest(point.spec)}}},
                   {"ownerReferences",
                    {{{"apiVersion", kApiVersion},
                      {"kind", kSweepKind},
                      {"name", sweep.metadata.name},
                      {"uid", sweep.metadata.uid},
                      {"controller", true},
                      {"blockOwnerDeletion", true}}}}};
  metadata["labels"]["app.kubernetes.io/managed-by"] = "ergobench-operator";
  return {{"apiVersion", kApiVersion}, {"kind", "Benchmark"}, {"metadata", metadata}, {"spec", point.spec}};
}

BenchmarkSweepStatus InvalidSweepStatus(const BenchmarkSweep& sweep, const std::string& message, const std::string& now) {
  BenchmarkSweepStatus status = sweep.status;
  status.observed_generation = sweep.metadata.generation;
  SetPhase(&status, kPhaseFailed, "Invalid", message, sweep.metadata.generation, now);
  return status;
}

SweepPlan PlanSweep(const BenchmarkSweep& sweep, const std::vector<SweepPoint>& points,
                    const std::vector<SweepChild>& children, const std::string& now) {
  SweepPlan plan;
  plan.status = sweep.status;
  plan.status.observed_generation = sweep.metadata.generation;
  std::map<std::string, const SweepPoint*> point_named;
  for (const SweepPoint& p : points) point_named[p.benchmark.metadata.name] = &p;

  // 1. Children: current ones count; a stale one (its point gone or changed) goes; a deleting
  //    one holds its point (its pods may still run) until it is gone.
  std::map<std::string, Benchmark> current;
  std::set<std::string> held, taken;
  int64_t active = 0;
  for (const SweepChild& child : children) {
    const std::string& name = child.benchmark.metadata.name;
    const auto point = point_named.find(name);
    if (child.controller_uid != sweep.metadata.uid) {
      if (point != point_named.end()) taken.insert(name);
      continue;
    }
    if (child.deleting || point == point_named.end() || child.spec_digest != SpecDigest(point->second->spec)) {
      if (!child.deleting) plan.remove.emplace_back(name, child.benchmark.metadata.uid);
      held.insert(name);
      ++active;
      continue;
    }
    current[name] = child.benchmark;
    if (!IsFinished(child.benchmark.status.phase)) ++active;
  }
  std::vector<SweepPointStatus> statuses = AggregatePoints(points, current, sweep.status.points);
  bool stopped = false;
  for (SweepPointStatus& p : statuses) {
    if (taken.count(p.benchmark)) {
      p.phase = kPhaseFailed;
      p.message = "NameTaken: a Benchmark of that name that this sweep does not own exists; delete or rename it";
    }
    stopped = stopped || (p.phase == kPhaseFailed && sweep.spec.failure_policy == kFailureStop);
  }

  // 2. Start the next points in run order while the concurrency limit allows. A point that
  //    ended keeps its end when its child is deleted (sweep_status.h): it never runs again.
  std::map<std::string, SweepPointStatus*> status_of;
  for (SweepPointStatus& p : statuses) status_of[p.benchmark] = &p;
  for (const SweepPoint& p : points) {
    const std::string& name = p.benchmark.metadata.name;
    if (stopped || active >= sweep.spec.concurrency) break;
    if (current.count(name) || held.count(name) || taken.count(name) || IsFinished(status_of[name]->phase)) continue;
    plan.create.push_back(BuildSweepChild(sweep, p));
    plan.events.push_back({"Normal", "PointStarted", "point " + name + " (" + DescribeParameters(p.parameters) + ")"});
    status_of[name]->phase = kPhasePending;
    ++active;
  }

  // 3. Status and events.
  TallyPoints(std::move(statuses), sweep.spec, &plan.status);
  DecidePhase(sweep, stopped, !current.empty() || !plan.create.empty() || !held.empty(), now, &plan);
  AddEvents(sweep, &plan);
  return plan;
}

}  // namespace ergobench::controller
