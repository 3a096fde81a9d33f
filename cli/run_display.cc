#include "cli/run_display.h"

#include <algorithm>
#include <cstdio>

#include "api/analysis/progress_estimate.h"
#include "api/analysis/regression.h"
#include "api/analysis/training_phases.h"
#include "api/v1alpha1/catalog.h"
#include "base/units.h"

namespace ergobench {
namespace {

std::string Clock(double seconds) {
  char buffer[32];
  const long s = static_cast<long>(seconds);
  std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
  return buffer;
}

// "median 100, min 90, max 110, 95% CI 75.2..124.8"
std::string FormatSpread(const Summary& s) {
  auto number = [](double v) { return FormatSignificant(v, 4); };
  std::string out = "median " + number(s.median) + ", min " + number(s.min) + ", max " + number(s.max);
  if (s.ci95_low && s.ci95_high) out += ", 95% CI " + number(*s.ci95_low) + ".." + number(*s.ci95_high);
  return out;
}

// "11.00 min to train, the olympic mean of 5 runs (4 converged), 47500 samples to converge",
// then the note: why there is none, or why it is not a complete score.
std::string MlperfScoreLine(const MlperfScore& m) {
  std::string out = "none";
  if (m.time_to_train_minutes) {
    out = FormatFixed(*m.time_to_train_minutes, 2) + " min to train, the olympic mean of " + std::to_string(m.runs) +
          " runs (" + std::to_string(m.converged) + " converged)";
    if (m.samples_to_converge) out += ", " + FormatSignificant(*m.samples_to_converge, 6) + " samples to converge";
  }
  return m.note.empty() ? out : out + "; " + m.note;
}

// "3.456 MFLOP/sample, 12.35 GFLOP/s, MFU 4.57% of 270.1 GFLOP/s (2 cores x 32 FP32 FLOP/cycle
// (avx512f) x 4.22 GHz measured); best GEMM 231.5 GFLOP/s"
std::string ModelFlopsLine(const Figures& f) {
  std::string out = FormatSignificant(*f.flops_per_sample / 1e6, 4) + " MFLOP/sample";
  if (f.model_flops_per_second) out += ", " + FormatSignificant(*f.model_flops_per_second / 1e9, 4) + " GFLOP/s";
  if (f.mfu && f.peak_flops_per_second) {
    out += ", MFU " + FormatFixed(100 * *f.mfu, 2) + "% of " + FormatSignificant(*f.peak_flops_per_second / 1e9, 4) +
           " GFLOP/s (" + f.peak_basis + ")";
  }
  if (f.achievable_flops_per_second) {
    out += "; best GEMM " + FormatSignificant(*f.achievable_flops_per_second / 1e9, 4) + " GFLOP/s";
  }
  return out;
}

// "  name                   value\n": a row of the report, its names in one column.
void AppendRow(std::string* out, const std::string& name, const std::string& value) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-22s %s\n", name.c_str(), value.c_str());
  *out += line;
}

void AppendLanguageModelRows(const LanguageModelSummary& m, int64_t workers, std::string* out) {
  AppendRow(out, "model", m.model + ", " + FormatFixed(static_cast<double>(m.parameters) / 1e6, 1) + " M parameters, " +
                              std::to_string(m.sequence_length) + " tokens, " + m.precision);
  const double devices = static_cast<double>(workers);
  AppendRow(out, "tokens/s", FormatFixed(m.tokens_per_second, 0) + " (" + FormatFixed(m.tokens_per_second / devices, 0) +
                                 " per device, global batch " + std::to_string(m.global_batch_size) + ", " +
                                 FormatFixed(m.seconds_per_iteration, 3) + " s/iteration)");
  AppendRow(out, "model TFLOP/s", FormatFixed(m.model_tflops_per_second, 4) + " per device" +
                                      (m.mfu ? ", MFU " + FormatFixed(100 * *m.mfu, 2) + " %" : ""));
  if (m.eval_loss) AppendRow(out, "validation loss", FormatFixed(*m.eval_loss, 4));
}

// "waited 2.1% of the step time; read 30.6 MB (1.2 MB/s, 0 B from storage), loaded in 0.41 s;
// prepares 51234 samples/s", "I/O-bound: " first past kIoBoundShare.
std::string DataLine(const Figures& f) {
  const IoFigures& io = *f.io;
  std::string out = IsIoBound(f) ? "I/O-bound: " : "";
  if (f.data_wait_share) out += "waited " + FormatFixed(100 * *f.data_wait_share, 1) + "% of the step time; ";
  out += "read " + FormatBytes(static_cast<double>(io.data_bytes)) + " (" + FormatBytesPerSecond(io.data_bytes_per_second);
  if (io.storage_bytes) out += ", " + FormatBytes(static_cast<double>(*io.storage_bytes)) + " from storage";
  out += "), loaded in " + FormatSeconds(io.load_seconds);
  if (io.loading_samples_per_second) out += "; prepares " + FormatFixed(*io.loading_samples_per_second, 0) + " samples/s";
  return out;
}

}  // namespace

std::string FormatProgressLine(const Benchmark& b, const ProgressEvent& e, const ProgressTimes& times) {
  std::string line = b.metadata.name + " · " + (times.place.empty() ? "" : times.place + " · ") + b.spec.task + " " +
                     b.spec.backend + " k=" + std::to_string(b.spec.workers);
  if (e.stage.empty() || e.stage == "init") return line + " · starting ranks · " + Clock(times.elapsed_seconds);
  if (e.stage == "done") return line + " · finishing · " + Clock(times.elapsed_seconds);
  if (e.epoch) {
    line += " · epoch " + std::to_string(*e.epoch);
    if (b.spec.max_epochs && *b.spec.max_epochs > 0) line += "/" + std::to_string(*b.spec.max_epochs);
  }
  if (e.total > 0) line += " · " + std::to_string(e.done) + "/" + std::to_string(e.total);
  if (e.done_fraction) line += " · " + std::to_string(static_cast<int>(100 * *e.done_fraction)) + "%";
  // A language model's goal metric is a loss too: say which is which.
  const bool eval_loss = e.metric == "loss";
  if (e.loss) line += (eval_loss ? " · train loss " : " · loss ") + FormatFixed(*e.loss, 4);
  if (e.value) {
    line += " · " + (eval_loss ? std::string("eval loss") : e.metric.empty() ? std::string("value") : e.metric) + " " +
            FormatFixed(*e.value, 4);
    if (b.spec.goal && b.spec.goal->target) line += " → goal " + FormatFixed(*b.spec.goal->target, 4);
  }
  if (!e.note.empty()) line += " · " + e.note;
  line += " · " + Clock(times.elapsed_seconds);
  if (e.seconds_left && e.estimated_from == kEstimatedFromGoal) {
    line += ", ~" + Clock(*e.seconds_left) + " to goal";
  } else if (e.seconds_left) {
    line += ", " + std::string(b.spec.goal ? "≤" : "") + Clock(*e.seconds_left) + " left";
  }
  return line;
}

std::string FormatAllreduceTable(const nlohmann::json& table) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%12s %12s %12s %12s %12s %12s %12s\n", "elements", "size", "min",
                "median", "max", "algbw", "busbw");
  out += line;
  for (const nlohmann::json& row : table.value("rows", nlohmann::json::array())) {
    std::snprintf(line, sizeof line, "%12lld %12s %12s %12s %12s %12s %12s\n",
                  static_cast<long long>(row.value("elements", 0LL)),
                  FormatBytes(row.value("bytes", 0.0)).c_str(), FormatSeconds(row.value("minSeconds", 0.0)).c_str(),
                  FormatSeconds(row.value("medianSeconds", 0.0)).c_str(),
                  FormatSeconds(row.value("maxSeconds", 0.0)).c_str(),
                  FormatBytesPerSecond(row.value("algbwBytesPerSecond", 0.0)).c_str(),
                  FormatBytesPerSecond(row.value("busbwBytesPerSecond", 0.0)).c_str());
    out += line;
  }
  return out;
}

// "5400.0 J, 0.0125 J/sample, ...": the measured energy and what it comes to per sample,
// token and goal.
static std::string EnergyLine(const BenchmarkResults& r) {
  std::string energy = FormatFixed(*r.figures.energy_joules, 1) + " J";
  if (r.joules_per_sample) energy += ", " + FormatFixed(*r.joules_per_sample, 4) + " J/sample";
  if (r.samples_per_wh && !r.tokens_per_wh) energy += ", " + FormatFixed(*r.samples_per_wh, 0) + " samples/Wh";
  if (r.joules_per_token) energy += ", " + FormatFixed(*r.joules_per_token, 6) + " J/token";
  if (r.tokens_per_wh) energy += ", " + FormatFixed(*r.tokens_per_wh, 0) + " tokens/Wh";
  if (r.energy_to_accuracy_wh) energy += ", " + FormatFixed(*r.energy_to_accuracy_wh, 3) + " Wh to accuracy";
  return energy;
}

std::string FormatRunReport(const LocalRunReport& report) {
  const Benchmark& b = report.benchmark;
  const Figures& f = report.outcome.results.figures;
  std::string out = b.metadata.name + ": " + report.outcome.phase;
  if (report.outcome.phase != "Succeeded") out += " (" + report.outcome.reason + ")";
  out += "\n";
  auto row = [&out](const std::string& name, const std::string& value) { AppendRow(&out, name, value); };
  if (report.outcome.phase != "Succeeded") row("reason", report.outcome.message);
  row("task", b.spec.task + " on " + std::to_string(b.spec.workers) + " " + b.spec.backend + " ranks");
  if (b.status.workers.succeeded + b.status.workers.failed > 0) {
    row("ranks", std::to_string(b.status.workers.succeeded) + " succeeded, " +
                     std::to_string(b.status.workers.failed) + " failed");
  }
  if (f.run_seconds > 0) row("run time", FormatSeconds(f.run_seconds) + " (init " + FormatSeconds(f.init_seconds) + ")");
  if (f.samples_per_second) row("throughput", FormatFixed(*f.samples_per_second, 1) + " samples/s");
  if (f.communication_ratio) row("communication share", FormatFixed(100 * *f.communication_ratio, 1) + " %");
  if (f.collective_seconds && f.communication_seconds && *f.collective_seconds > *f.communication_seconds) {
    row("collectives", FormatSeconds(*f.collective_seconds) + " per rank, " +
                           FormatSeconds(*f.communication_seconds) + " of it waited for");
  }
  if (f.memory) {
    const MemoryFigures& m = *f.memory;
    auto bytes = [](int64_t n) { return FormatBytes(static_cast<double>(n)); };
    row("peak memory per rank", bytes(m.peak_tensor_bytes) + " of tensors, " +
                                    (m.peak_reserved_bytes ? bytes(*m.peak_reserved_bytes) + " reserved on the GPU, " : "") +
                                    bytes(m.peak_resident_bytes) + " resident");
    row("tensors at the peak", "parameters " + bytes(m.parameter_bytes) + ", gradients " + bytes(m.gradient_bytes) +
                                   ", optimizer " + bytes(m.optimizer_state_bytes) + ", activations " +
                                   bytes(m.activation_bytes));
  }
  if (f.goal_reached) row("goal reached", *f.goal_reached ? "yes" : "no");
  if (f.time_to_accuracy_seconds) row("time to accuracy", FormatSeconds(*f.time_to_accuracy_seconds));
  const BenchmarkResults& r = report.outcome.results;
  if (f.energy_joules) {
    row("energy", EnergyLine(r));
    if (r.epoch_wh) {
      const int64_t epoch = ReferenceEpochSamples(report.benchmark.spec.task);
      row("energy per epoch", FormatFixed(*r.epoch_wh, 1) + " Wh (" + std::to_string(epoch) + " samples)");
    }
  }
  if (r.cost_usd) {
    std::string cost = FormatFixed(*r.cost_usd, 4) + " " + r.currency;
    if (r.cost_to_accuracy_usd) cost += ", " + FormatFixed(*r.cost_to_accuracy_usd, 4) + " to accuracy";
    if (r.preemptible_cost_usd) cost += " (preemptible " + FormatFixed(*r.preemptible_cost_usd, 4) + ")";
    row("cost", cost);
  }
  if (f.allreduce) {
    row("peak bus bandwidth", FormatBytesPerSecond(f.allreduce->peak_bus_bandwidth_bytes_per_second) + " at " +
                                  FormatBytes(static_cast<double>(f.allreduce->peak_bus_bandwidth_bytes)));
    row("small-message latency", FormatSeconds(f.allreduce->min_latency_seconds));
  }
  if (const auto& m = f.language_model) AppendLanguageModelRows(*m, b.spec.workers, &out);
  if (!r.repeats.empty()) {
    const std::string seeds = b.spec.hyperparameters.contains("seed") ? ", seeds " + std::to_string(r.repeats.front().seed) +
                                                                             ".." + std::to_string(r.repeats.back().seed)
                                                                       : "";
    row("repeats", std::to_string(r.repeats.size()) + seeds + "; the figures above are medians");
    for (const auto& [figure, s] : r.summary) row("  " + figure, FormatSpread(s));
  }
  if (const auto& m = r.mlperf) row("MLPerf score", MlperfScoreLine(*m));
  if (f.flops_per_sample) row("model FLOPs", ModelFlopsLine(f));
  if (f.io) row("data", DataLine(f));
  if (std::optional<Condition> regressed = RegressionCondition(r)) {
    row("baseline", (regressed->status == "True" ? "REGRESSED " : "") + regressed->message);
  }
  row("results", report.results_dir + "/");
  return out;
}

namespace {

// "1234 [1100..1300]": the median, with the repeats' extremes when there are several.
std::string MedianAndRange(const std::map<std::string, Summary>& figures, const char* name, int digits) {
  const auto found = figures.find(name);
  if (found == figures.end()) return "-";
  const Summary& s = found->second;
  std::string text = FormatFixed(s.median, digits);
  if (s.n > 1) text += " [" + FormatFixed(s.min, digits) + ".." + FormatFixed(s.max, digits) + "]";
  return text;
}

// "workers=1 backend=gloo: 3.2 models/min, 4 of 4 instances in 1.25 min (MLPerf HPC ...)".
std::string WeakScalingLine(const WeakScalingScore& w) {
  std::string text = DescribeParameters(w.parameters) + ": ";
  if (w.models_per_minute) {
    text += FormatFixed(*w.models_per_minute, 3) + " models/min, " + std::to_string(w.converged) + " of " +
            std::to_string(w.instances) + " instances in " + FormatFixed(*w.time_to_train_all_minutes, 3) + " min";
  } else {
    text += "no score";
  }
  if (!w.note.empty()) text += " (" + w.note + ")";
  for (const std::string& pruned : w.pruned) text += "; pruned " + pruned;
  return text;
}

}  // namespace

std::string FormatSweepTable(const BenchmarkSweep& sweep) {
  const BenchmarkSweepStatus& s = sweep.status;
  std::string out = sweep.metadata.name + ": " + s.phase + ", " + std::to_string(s.succeeded) + " of " +
                    std::to_string(s.total) + " points succeeded" + (s.best.empty() ? "" : "; best " + s.best) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-24s %-40s %-10s %-24s %-22s %8s %10s\n", "point", "parameters", "phase",
                "samples/s [min..max]", "to accuracy s", "speedup", "efficiency");
  out += line;
  for (const SweepPointStatus& p : s.points) {
    std::snprintf(line, sizeof line, "  %-24s %-40s %-10s %-24s %-22s %8s %10s\n", p.benchmark.c_str(),
                  DescribeParameters(p.parameters).c_str(), p.phase.empty() ? "not run" : p.phase.c_str(),
                  MedianAndRange(p.figures, "samplesPerSecond", 1).c_str(),
                  MedianAndRange(p.figures, "timeToAccuracySeconds", 1).c_str(),
                  p.speedup ? FormatFixed(*p.speedup, 2).c_str() : "-",
                  p.efficiency ? FormatFixed(*p.efficiency, 2).c_str() : "-");
    out += line;
  }
  for (const WeakScalingScore& w : s.weak_scaling) out += "  weak scaling " + WeakScalingLine(w) + "\n";
  return out;
}

}  // namespace ergobench
