#include "api/analysis/mlperf_score.h"

#include <algorithm>
#include <numeric>

#include "api/analysis/statistics.h"
#include "api/contract/mlperf_benchmarks.h"

namespace ergobench {
namespace {

// The summarizer's _compute_olympic_average: sorted, `droppable` dropped from the fast end and
// `droppable - dropped` from the slow one, as the `dropped` runs already were the slowest.
std::optional<double> OlympicMean(std::vector<double> values, size_t droppable, size_t dropped) {
  std::sort(values.begin(), values.end());
  const size_t slow_end = droppable - std::min(dropped, droppable);
  if (values.size() <= droppable + slow_end) return std::nullopt;
  const auto first = values.begin() + static_cast<std::ptrdiff_t>(droppable);
  const auto last = values.end() - static_cast<std::ptrdiff_t>(slow_end);
  return std::accumulate(first, last, 0.0) / static_cast<double>(last - first);
}

// The converged runs' `member`, olympic: the summarizer rejects one a side and needs three, as
// Summarize's olympic mean does.
std::optional<double> ConvergedOlympic(const std::vector<MlperfRun>& runs, std::optional<double> MlperfRun::*member) {
  std::vector<double> values;
  for (const MlperfRun& r : runs) {
    if (r.minutes && r.*member) values.push_back(*(r.*member));
  }
  const StatusOr<Summary> summary = Summarize(std::move(values));
  return summary.ok() ? summary->olympic_mean : std::nullopt;
}

std::string Runs(int64_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

}  // namespace

MlperfScore ScoreMlperfRuns(const std::string& benchmark, const std::vector<MlperfRun>& runs) {
  MlperfScore score;
  score.benchmark = benchmark;
  score.required_runs = MlperfRequiredRuns(benchmark);
  score.runs = static_cast<int64_t>(runs.size());
  std::vector<double> minutes;
  for (const MlperfRun& r : runs) {
    if (r.minutes) minutes.push_back(*r.minutes);
  }
  score.converged = static_cast<int64_t>(minutes.size());
  const int64_t droppable = MlperfDroppableRuns(benchmark);
  const int64_t dropped = score.runs - score.converged;
  if (dropped > droppable) {
    score.note = Runs(dropped) + " of " + std::to_string(score.runs) + " did not converge; MLPerf's score allows " +
                 std::to_string(droppable);
    return score;
  }
  score.time_to_train_minutes = OlympicMean(minutes, static_cast<size_t>(droppable), static_cast<size_t>(dropped));
  if (!score.time_to_train_minutes) {
    score.note = "too few converged runs to drop the fastest and the slowest";
    return score;
  }
  score.samples_to_converge = ConvergedOlympic(runs, &MlperfRun::samples);
  score.epochs_to_converge = ConvergedOlympic(runs, &MlperfRun::epochs);
  score.complete = score.required_runs > 0 && score.runs >= score.required_runs;
  if (score.required_runs == 0) {
    score.note = "MLPerf has no benchmark " + benchmark + "; scored by its rules over " + Runs(score.runs);
  } else if (!score.complete) {
    score.note = Runs(score.runs) + " of the " + std::to_string(score.required_runs) + " MLPerf requires for " + benchmark;
  }
  return score;
}

std::optional<MlperfScore> ScoreRepeats(const BenchmarkSpec& spec, const std::vector<RepeatResult>& repeats) {
  const bool had_goal = std::any_of(repeats.begin(), repeats.end(), [](const RepeatResult& r) { return r.goal_reached; });
  if (repeats.size() < 2 || !had_goal) return std::nullopt;
  std::vector<MlperfRun> runs;
  for (const RepeatResult& r : repeats) {
    MlperfRun run;
    const auto seconds = r.figures.find("runSeconds");
    if (r.goal_reached.value_or(false) && seconds != r.figures.end()) {
      run.minutes = seconds->second / 60;
      if (r.samples) run.samples = static_cast<double>(*r.samples);
      if (r.epochs) run.epochs = static_cast<double>(*r.epochs);
    }
    runs.push_back(run);
  }
  return ScoreMlperfRuns(MlperfBenchmarkName(spec.task), runs);
}

}  // namespace ergobench
