#include "api/analysis/aggregate.h"

#include <algorithm>
#include <set>

#include "api/analysis/training_phases.h"

namespace ergobench {
namespace {

template <typename T, typename Fold>
std::optional<T> FoldPresent(const std::vector<RankResult>& ranks,
                             std::optional<T> Figures::*field, Fold fold) {
  std::optional<T> out;
  for (const RankResult& r : ranks) {
    const std::optional<T>& v = r.figures.*field;
    if (!v) continue;
    out = out ? fold(*out, *v) : *v;
  }
  return out;
}

// A sum that is absent unless every rank has the figure: energy summed over the ranks that
// had a meter would pass a part for the whole.
template <typename T>
std::optional<T> SumOfAll(const std::vector<RankResult>& ranks, std::optional<T> Figures::*field) {
  T sum{};
  for (const RankResult& r : ranks) {
    if (!(r.figures.*field)) return std::nullopt;
    sum += *(r.figures.*field);
  }
  return sum;
}

// What else ran on the ranks' nodes: every rank's list, once each; absent where no rank knew.
std::optional<std::vector<std::string>> SharedWith(const std::vector<RankResult>& ranks) {
  std::optional<std::set<std::string>> all;
  for (const RankResult& r : ranks) {
    if (!r.figures.energy_shared_with) continue;
    if (!all) all.emplace();
    all->insert(r.figures.energy_shared_with->begin(), r.figures.energy_shared_with->end());
  }
  if (!all) return std::nullopt;
  return std::vector<std::string>(all->begin(), all->end());
}

// Each figure the largest rank's; absent unless every rank measured.
std::optional<MemoryFigures> LargestMemory(const std::vector<RankResult>& ranks) {
  MemoryFigures most;
  for (const RankResult& r : ranks) {
    if (!r.figures.memory) return std::nullopt;
    const MemoryFigures& m = *r.figures.memory;
    for (auto field : {&MemoryFigures::peak_resident_bytes, &MemoryFigures::peak_tensor_bytes,
                       &MemoryFigures::parameter_bytes, &MemoryFigures::gradient_bytes,
                       &MemoryFigures::optimizer_state_bytes, &MemoryFigures::activation_bytes}) {
      most.*field = std::max(most.*field, m.*field);
    }
    if (m.peak_reserved_bytes) most.peak_reserved_bytes = std::max(most.peak_reserved_bytes.value_or(0), *m.peak_reserved_bytes);
  }
  return most;
}

// Bytes and rates add up, the load takes the slowest rank's time; absent unless every rank
// measured, and storage bytes unless every rank could read its counter.
template <typename T>
std::optional<T> SumIfBoth(const std::optional<T>& a, const std::optional<T>& b) {
  return a && b ? std::optional<T>(*a + *b) : std::nullopt;
}

std::optional<IoFigures> CombinedIo(const std::vector<RankResult>& ranks) {
  IoFigures all{0, 0, 0, 0, 0};
  for (const RankResult& r : ranks) {
    if (!r.figures.io) return std::nullopt;
    const IoFigures& io = *r.figures.io;
    all.data_bytes += io.data_bytes;
    all.data_bytes_per_second += io.data_bytes_per_second;
    all.load_seconds = std::max(all.load_seconds, io.load_seconds);
    all.storage_bytes = SumIfBoth(all.storage_bytes, io.storage_bytes);
    all.loading_samples_per_second = SumIfBoth(all.loading_samples_per_second, io.loading_samples_per_second);
  }
  return all;
}

double Plus(double a, double b) { return a + b; }
double Max(double a, double b) { return std::max(a, b); }

// Every rank trains the same model on samples alike: rank 0's FLOPs per sample, and its peak's
// basis for each. The ranks' model FLOP/s, peaks and achievable rates add up, where every rank
// measured them; MFU is the model's over the peak.
void FoldModelFlops(const std::vector<RankResult>& ranks, Figures* f) {
  f->flops_per_sample = ranks.front().figures.flops_per_sample;
  const std::string& basis = ranks.front().figures.peak_basis;
  f->peak_basis = ranks.size() > 1 && !basis.empty() ? std::to_string(ranks.size()) + " ranks x " + basis : basis;
  f->model_flops_per_second = SumOfAll(ranks, &Figures::model_flops_per_second);
  f->peak_flops_per_second = SumOfAll(ranks, &Figures::peak_flops_per_second);
  f->achievable_flops_per_second = SumOfAll(ranks, &Figures::achievable_flops_per_second);
  if (f->model_flops_per_second && f->peak_flops_per_second && *f->peak_flops_per_second > 0) {
    f->mfu = *f->model_flops_per_second / *f->peak_flops_per_second;
  }
}

Figures CombineFigures(const std::vector<RankResult>& ranks) {
  Figures f;
  for (const RankResult& r : ranks) {
    // The job is as slow as its slowest rank.
    f.init_seconds = std::max(f.init_seconds, r.figures.init_seconds);
    f.run_seconds = std::max(f.run_seconds, r.figures.run_seconds);
    for (const auto& [phase, seconds] : r.figures.phase_seconds) f.phase_seconds[phase] += seconds;
  }
  const double n = static_cast<double>(ranks.size());
  for (auto& [phase, seconds] : f.phase_seconds) seconds /= n;  // mean per rank

  // Every rank evaluates the same all-reduced metric, so rank 0 speaks for the goal (and holds
  // the same parameters as every other rank).
  const RankResult& first = ranks.front();
  f.parameter_digest = first.figures.parameter_digest;
  f.goal_reached = first.figures.goal_reached;
  f.epochs = first.figures.epochs;
  f.time_to_accuracy_seconds = FoldPresent(ranks, &Figures::time_to_accuracy_seconds, Max);
  f.run_start_ms = FoldPresent(ranks, &Figures::run_start_ms, [](int64_t a, int64_t b) { return std::min(a, b); });
  f.run_stop_ms = FoldPresent(ranks, &Figures::run_stop_ms, [](int64_t a, int64_t b) { return std::max(a, b); });
  f.samples_per_second = FoldPresent(ranks, &Figures::samples_per_second, Plus);
  f.throughput_window_steps = first.figures.throughput_window_steps;
  f.throughput_window_seconds = FoldPresent(ranks, &Figures::throughput_window_seconds, Max);
  f.samples = SumOfAll(ranks, &Figures::samples);
  f.energy_joules = SumOfAll(ranks, &Figures::energy_joules);
  f.energy_joules_whole_run = SumOfAll(ranks, &Figures::energy_joules_whole_run);
  f.energy_to_accuracy_joules = SumOfAll(ranks, &Figures::energy_to_accuracy_joules);
  f.energy_shared_with = SharedWith(ranks);
  DerivePhaseFigures(&f);  // from the mean phase seconds per rank
  f.collective_seconds = SumOfAll(ranks, &Figures::collective_seconds);
  if (f.collective_seconds) *f.collective_seconds /= n;  // mean per rank
  f.memory = LargestMemory(ranks);
  f.io = CombinedIo(ranks);
  // Task 0a: rank tables already hold the max over ranks per repetition.
  f.allreduce = first.figures.allreduce;
  if (first.figures.language_model) {
    LanguageModelSummary m = *first.figures.language_model;
    m.tokens = 0;
    m.tokens_per_second = 0;
    m.model_tflops_per_second = 0;
    double mfu = 0;
    bool every_mfu = true;
    for (const RankResult& r : ranks) {
      const std::optional<LanguageModelSummary>& rank = r.figures.language_model;
      if (!rank) continue;
      m.tokens += rank->tokens;
      m.tokens_per_second += rank->tokens_per_second;
      m.model_tflops_per_second += rank->model_tflops_per_second / n;
      m.seconds_per_iteration = std::max(m.seconds_per_iteration, rank->seconds_per_iteration);
      every_mfu = every_mfu && rank->mfu.has_value();
      if (rank->mfu) mfu += *rank->mfu / n;
    }
    m.mfu = every_mfu ? std::optional<double>(mfu) : std::nullopt;
    f.language_model = m;
  }
  if (first.figures.translation) {
    TranslationSummary t = *first.figures.translation;  // BLEU, precision and beam: every rank's
    t.source_tokens = t.target_tokens = 0;
    t.source_tokens_per_second = t.target_tokens_per_second = 0;
    for (const RankResult& r : ranks) {
      if (!r.figures.translation) continue;
      t.source_tokens += r.figures.translation->source_tokens;
      t.target_tokens += r.figures.translation->target_tokens;
      t.source_tokens_per_second += r.figures.translation->source_tokens_per_second;
      t.target_tokens_per_second += r.figures.translation->target_tokens_per_second;
    }
    f.translation = t;
  }
  FoldModelFlops(ranks, &f);
  // Every rank skips alike: the gradient norm is of the averaged gradients.
  f.loss_scale = first.figures.loss_scale;
  f.skipped_updates = first.figures.skipped_updates;
  return f;
}

// Each rank's node (environment.node, set on a cluster) as environment.nodes, indexed by rank
// (null for a rank that did not say). The run's environment is otherwise its first rank's.
void RecordNodes(const std::vector<RankResult>& ranks, int64_t world_size, nlohmann::json* environment) {
  nlohmann::json nodes(static_cast<size_t>(std::max<int64_t>(world_size, 0)), nullptr);
  bool any = false;
  for (const RankResult& r : ranks) {
    if (r.rank < 0 || r.rank >= world_size || !r.environment.contains("node")) continue;
    nodes[static_cast<size_t>(r.rank)] = r.environment["node"];
    any = true;
  }
  environment->erase("node");
  if (any) (*environment)["nodes"] = nodes;
}

}  // namespace

RunOutcome AggregateRankResults(const std::vector<RankResult>& ranks, int64_t world_size, int64_t epoch_samples) {
  RunOutcome outcome;
  std::set<int64_t> seen;
  const RankResult* failed = nullptr;
  const RankResult* cancelled = nullptr;
  for (const RankResult& r : ranks) {
    seen.insert(r.rank);
    if (r.status == kRankFailed && failed == nullptr) failed = &r;
    if (r.status == kRankCancelled && cancelled == nullptr) cancelled = &r;
  }
  std::vector<int64_t> missing;
  for (int64_t rank = 0; rank < world_size; ++rank) {
    if (!seen.contains(rank)) missing.push_back(rank);
  }

  if (failed != nullptr) {
    outcome = {kPhaseFailed, "RankFailed", "rank " + std::to_string(failed->rank) + ": " + failed->error, {}};
  } else if (cancelled != nullptr) {
    outcome = {kPhaseFailed, "Cancelled", "rank " + std::to_string(cancelled->rank) + ": " + cancelled->error, {}};
  } else if (!missing.empty()) {
    outcome = {kPhaseFailed, "ResultMissing", "rank " + std::to_string(missing.front()) + " reported no result", {}};
  } else {
    outcome = {kPhaseSucceeded, "Succeeded", "all " + std::to_string(world_size) + " ranks succeeded", {}};
  }

  std::vector<RankResult> succeeded;
  for (const RankResult& r : ranks) {
    if (r.status == kRankSucceeded) succeeded.push_back(r);
  }
  std::sort(succeeded.begin(), succeeded.end(), [](const RankResult& a, const RankResult& b) { return a.rank < b.rank; });
  if (!succeeded.empty()) {
    outcome.results.figures = CombineFigures(succeeded);
    outcome.results.environment = succeeded.front().environment;
    RecordNodes(ranks, world_size, &outcome.results.environment);
    const Figures& f = outcome.results.figures;
    if (f.energy_joules && f.samples && *f.samples > 0) {
      const double joules_per_sample = *f.energy_joules / static_cast<double>(*f.samples);
      outcome.results.joules_per_sample = joules_per_sample;
      if (joules_per_sample > 0) outcome.results.samples_per_wh = 3600 / joules_per_sample;
      if (epoch_samples > 0) outcome.results.epoch_wh = joules_per_sample * static_cast<double>(epoch_samples) / 3600;
    }
    if (f.energy_to_accuracy_joules) outcome.results.energy_to_accuracy_wh = *f.energy_to_accuracy_joules / 3600;
    // Tokens: a language model's, or a translation's target tokens (the side its loss is over).
    const int64_t tokens_trained = f.language_model ? f.language_model->tokens
                                   : f.translation  ? f.translation->target_tokens
                                                    : 0;
    if (f.energy_joules && *f.energy_joules > 0 && tokens_trained > 0) {
      const double tokens = static_cast<double>(tokens_trained);
      outcome.results.joules_per_token = *f.energy_joules / tokens;
      outcome.results.tokens_per_wh = tokens / (*f.energy_joules / 3600);
    }
  }
  return outcome;
}

}  // namespace ergobench
