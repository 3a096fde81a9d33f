#include "api/analysis/weak_scaling.h"

#include <algorithm>
#include <utility>

#include "api/contract/mlperf_benchmarks.h"
#include "api/v1alpha1/benchmark_phase.h"

namespace ergobench {
namespace {

// An instance converged where it succeeded, reached its goal and said when it ran.
bool Converged(const SweepPointStatus& p) {
  return p.phase == kPhaseSucceeded && p.figures.count("timeToAccuracySeconds") > 0 && p.run_start_ms && p.run_stop_ms;
}

std::string Instances(int64_t n) { return std::to_string(n) + (n == 1 ? " instance" : " instances"); }

WeakScalingScore Score(const std::string& benchmark, const SweepParameters& group,
                       const std::vector<const SweepPointStatus*>& instances) {
  WeakScalingScore score;
  score.parameters = group;
  score.instances = static_cast<int64_t>(instances.size());
  score.required_instances = MlperfWeakScalingInstances(benchmark);
  const int64_t ended = std::count_if(instances.begin(), instances.end(),
                                      [](const SweepPointStatus* p) { return IsFinished(p->phase); });
  if (ended < score.instances) {
    score.note = std::to_string(ended) + " of " + Instances(score.instances) + " ended";
    return score;
  }
  int64_t first_start = 0, last_stop = 0;
  for (const SweepPointStatus* p : instances) {
    if (!Converged(*p)) {
      score.pruned.push_back(p->benchmark + ": " + (p->phase == kPhaseSucceeded ? "did not converge" : p->phase));
      continue;
    }
    first_start = score.converged == 0 ? *p->run_start_ms : std::min(first_start, *p->run_start_ms);
    last_stop = score.converged == 0 ? *p->run_stop_ms : std::max(last_stop, *p->run_stop_ms);
    ++score.converged;
  }
  if (score.converged == 0) {
    score.note = "no instance converged";
    return score;
  }
  const double minutes = static_cast<double>(last_stop - first_start) / 60000.0;
  score.time_to_train_all_minutes = minutes;
  if (minutes > 0) score.models_per_minute = static_cast<double>(score.converged) / minutes;
  score.complete = score.required_instances > 0 && score.converged >= score.required_instances;
  if (score.required_instances == 0) {
    score.note = "MLPerf HPC has no benchmark " + benchmark + "; scored by its rules over " + Instances(score.converged);
  } else if (!score.complete) {
    score.note = Instances(score.converged) + " converged of the " + std::to_string(score.required_instances) +
                 " MLPerf HPC requires for " + benchmark;
  }
  return score;
}

}  // namespace

std::vector<WeakScalingScore> ScoreInstances(const std::string& benchmark, const std::vector<SweepPointStatus>& points) {
  // Each point's parameters, without an instance, with its instances: in the order of the first.
  std::vector<std::pair<SweepParameters, std::vector<const SweepPointStatus*>>> groups;
  for (const SweepPointStatus& p : points) {
    if (!p.parameters.instance) continue;
    SweepParameters group = p.parameters;
    group.instance.reset();
    auto found = std::find_if(groups.begin(), groups.end(), [&group](const auto& g) { return g.first == group; });
    if (found == groups.end()) found = groups.insert(groups.end(), {group, {}});
    found->second.push_back(&p);
  }
  std::vector<WeakScalingScore> scores;
  for (const auto& [group, instances] : groups) scores.push_back(Score(benchmark, group, instances));
  return scores;
}

}  // namespace ergobench
