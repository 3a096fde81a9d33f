#include "cli/report/report.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "api/analysis/scaling.h"
#include "api/analysis/training_phases.h"
#include "cli/report/markup.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/load.h"
#include "base/units.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

std::optional<double> Ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b == 0) return std::nullopt;
  return *a / *b;
}

// What the run cost per hour: from its priced results, else the spec's price per worker, else
// one per worker (so that the price index still says what more workers cost).
double HourlyPrice(const Benchmark& b) {
  const BenchmarkResults* r = b.status.results ? &*b.status.results : nullptr;
  if (r != nullptr && r->cost_usd && r->figures.run_seconds > 0) return *r->cost_usd / r->figures.run_seconds * 3600;
  const double per_worker = b.spec.pricing && b.spec.pricing->worker_hour ? *b.spec.pricing->worker_hour : 1.0;
  return per_worker * static_cast<double>(b.spec.workers);
}

std::string GoalOf(const Benchmark& b) {
  if (!b.spec.goal) return "";
  const TaskDef* task = FindTask(b.spec.task);
  const bool minimizes = task != nullptr && task->goal_minimizes;
  if (!b.spec.goal->target) return b.spec.goal->metric;
  std::ostringstream target;
  target << *b.spec.goal->target;  // 0.8, not 0.800000
  return b.spec.goal->metric + (minimizes ? "<=" : ">=") + target.str();
}

const SystemIdentity* SystemOf(const Benchmark& b) {
  return b.status.results && b.status.results->system ? &*b.status.results->system : nullptr;
}

// Runs of one scaling series share task, goal, system and backend.
std::tuple<std::string, std::string, std::string, std::string> SeriesOf(const Benchmark& b) {
  const SystemIdentity* system = SystemOf(b);
  return {b.spec.task, GoalOf(b), system != nullptr ? system->Key() : "", b.spec.backend};
}

ReportRow RowOf(const Benchmark& b) {
  ReportRow row;
  row.name = b.metadata.name;
  row.task = b.spec.task;
  row.goal = GoalOf(b);
  row.system = SystemName(b);
  row.backend = b.spec.backend;
  row.workers = b.spec.workers;
  row.phase = b.status.phase;
  if (!b.status.results) return row;
  const BenchmarkResults& r = *b.status.results;
  row.samples_per_second = r.figures.samples_per_second;
  row.repeats = static_cast<int64_t>(r.repeats.size());
  row.spread = r.summary;
  row.mlperf = r.mlperf;
  if (r.figures.goal_reached.value_or(false)) row.time_to_accuracy_seconds = r.figures.time_to_accuracy_seconds;
  row.communication_ratio = r.figures.communication_ratio;
  row.collective_seconds = r.figures.collective_seconds;
  if (r.figures.memory) {
    row.peak_tensor_bytes = r.figures.memory->peak_tensor_bytes;
    row.peak_resident_bytes = r.figures.memory->peak_resident_bytes;
  }
  if (row.collective_seconds) {
    row.gradient_sync = b.spec.hyperparameters.value("gradientSync", "flat");
    if (row.gradient_sync == "sharded") row.zero_stage = b.spec.hyperparameters.value("zeroStage", int64_t{1});
    if (*row.collective_seconds > 0 && r.figures.communication_seconds) {
      row.hidden_communication = std::max(0.0, 1 - *r.figures.communication_seconds / *row.collective_seconds);
    }
  }
  row.energy_to_accuracy_joules = r.figures.energy_to_accuracy_joules;
  if (!r.tokens_per_wh) row.samples_per_wh = r.samples_per_wh;
  row.epoch_wh = r.epoch_wh;
  if (r.figures.energy_shared_with) row.energy_shared = !r.figures.energy_shared_with->empty();
  row.cost_to_accuracy = r.cost_to_accuracy_usd;
  row.spot_cost_to_accuracy = r.preemptible_cost_to_accuracy_usd;
  row.cost = r.cost_usd;
  row.cost_per_million_samples = r.cost_per_million_samples;
  if (r.carbon) row.carbon_to_accuracy_grams = r.carbon->grams_to_accuracy;
  row.cost_stale = std::any_of(r.prices.begin(), r.prices.end(), [](const PriceUsed& p) { return p.stale; });
  row.warnings = r.cost_warnings;
  row.currency = r.currency;
  if (const auto& m = r.figures.language_model) {
    row.global_batch_size = m->global_batch_size;
    row.tokens_per_second = m->tokens_per_second;
    row.seconds_per_iteration = m->seconds_per_iteration;
    row.tflops_per_device = m->model_tflops_per_second;
    row.mfu = m->mfu;
    row.joules_per_token = r.joules_per_token;
  }
  if (const auto& t = r.figures.translation) {
    row.bleu = t->bleu;
    row.source_tokens_per_second = t->source_tokens_per_second;
    row.target_tokens_per_second = t->target_tokens_per_second;
    row.joules_per_token = r.joules_per_token;
  }
  row.data_wait_share = r.figures.data_wait_share;
  row.io_bound = IsIoBound(r.figures);
  if (const auto& io = r.figures.io) {
    row.data_bytes_per_second = io->data_bytes_per_second;
    row.loading_samples_per_second = io->loading_samples_per_second;
  }
  row.model_flops_per_second = r.figures.model_flops_per_second;
  row.peak_basis = r.figures.peak_basis;
  row.achievable_flops_per_second = r.figures.achievable_flops_per_second;
  if (!row.mfu) row.mfu = r.figures.mfu;
  row.loss_scale = r.figures.loss_scale;
  row.skipped_updates = r.figures.skipped_updates;
  if (const auto& a = r.figures.allreduce) {
    row.peak_bus_bandwidth = a->peak_bus_bandwidth_bytes_per_second;
    row.peak_bus_bandwidth_bytes = static_cast<double>(a->peak_bus_bandwidth_bytes);
    row.min_latency_seconds = a->min_latency_seconds;
  }
  return row;
}

std::string Number(std::optional<double> value, int decimals) {
  return value ? FormatFixed(*value, decimals) : std::string();
}

// The repeats' range of a figure, " [min..max]", after its median; nothing without repeats.
std::string Range(const ReportRow& r, const std::string& figure, int decimals) {
  const auto it = r.spread.find(figure);
  if (it == r.spread.end() || it->second.n < 2) return "";
  return " [" + FormatFixed(it->second.min, decimals) + ".." + FormatFixed(it->second.max, decimals) + "]";
}

// A cost with its currency, and "(stale)" when a price behind it is older than the limit.
std::string Money(const ReportRow& r, std::optional<double> value) {
  if (!value) return "";
  return Number(value, 4) + " " + r.currency + (r.cost_stale ? " (stale)" : "");
}

// MLPerf's time to train and the runs behind it: "11.00 (5 runs)", "11.00 (3 of 5 runs)" where
// MLPerf requires more; "no score (2/5 unconverged)".
std::string MlperfCell(const MlperfScore& m) {
  const std::string runs = std::to_string(m.runs) + (m.required_runs > m.runs ? " of " + std::to_string(m.required_runs) : "");
  if (!m.time_to_train_minutes) {
    return "no score (" + std::to_string(m.runs - m.converged) + "/" + std::to_string(m.runs) + " unconverged)";
  }
  return Number(m.time_to_train_minutes, 2) + " (" + runs + " runs)";
}

// Columns before this index are names (left-aligned); the rest are figures.
constexpr size_t kNameColumns = 7;

struct Column {
  const char* title;
  std::function<std::string(const ReportRow&)> cell;
};

// What every report shows.
std::vector<Column> CommonColumns() {
  return {
      {"benchmark", [](const ReportRow& r) { return r.name; }},
      {"task", [](const ReportRow& r) { return r.task; }},
      {"goal", [](const ReportRow& r) { return r.goal; }},
      {"system", [](const ReportRow& r) { return r.system; }},
      {"backend", [](const ReportRow& r) { return r.backend; }},
      {"k", [](const ReportRow& r) { return std::to_string(r.workers); }},
      {"phase", [](const ReportRow& r) { return r.phase; }},
      {"samples/s", [](const ReportRow& r) { return Number(r.samples_per_second, 1) + Range(r, "samplesPerSecond", 1); }},
      {"TTA s",
       [](const ReportRow& r) {
         return r.time_to_accuracy_seconds ? Number(r.time_to_accuracy_seconds, 1) + Range(r, "timeToAccuracySeconds", 1)
                                           : "";
       }},
      {"speedup", [](const ReportRow& r) { return Number(r.speedup, 2); }},
      {"efficiency", [](const ReportRow& r) { return Number(r.efficiency, 2); }},
      {"comm %", [](const ReportRow& r) {
         return r.communication_ratio ? Number(100 * *r.communication_ratio, 1) : std::string();
       }},
      {"energy to acc. J", [](const ReportRow& r) {
         const bool shared = r.energy_to_accuracy_joules && r.energy_shared.value_or(false);
         return Number(r.energy_to_accuracy_joules, 1) + (shared ? " (shared node)" : "");
       }},
      {"cost to acc.", [](const ReportRow& r) { return Money(r, r.cost_to_accuracy); }},
      {"spot to acc.", [](const ReportRow& r) { return Money(r, r.spot_cost_to_accuracy); }},
      {"run cost", [](const ReportRow& r) { return Money(r, r.cost); }},
      {"gCO2e to acc.", [](const ReportRow& r) { return Number(r.carbon_to_accuracy_grams, 1); }},
      {"Pareto", [](const ReportRow& r) {
         std::string marks = r.pareto_time_cost ? "time x cost" : "";
         if (r.pareto_time_energy) marks += std::string(marks.empty() ? "" : ", ") + "time x energy";
         return marks;
       }},
      {"price index", [](const ReportRow& r) { return Number(r.price_index, 2); }},
  };
}

// MFU in percent: the language model's columns and every training run's model FLOPs share it.
Column MfuColumn() {
  return {"MFU %", [](const ReportRow& r) { return r.mfu ? Number(100 * *r.mfu, 2) : std::string(); }};
}

bool AnyRow(const std::vector<ReportRow>& rows, const std::function<bool(const ReportRow&)>& has) {
  return std::any_of(rows.begin(), rows.end(), has);
}

// The columns of what some runs have and others not: memory, energy per sample, a task's own.
void AddOptionalColumns(const std::vector<ReportRow>& rows, std::vector<Column>* columns) {
  if (AnyRow(rows, [](const ReportRow& r) { return !r.gradient_sync.empty() && r.gradient_sync != "flat"; })) {
    columns->push_back({"sync", [](const ReportRow& r) {
                         return r.zero_stage ? "ZeRO-" + std::to_string(*r.zero_stage) : r.gradient_sync;
                       }});
    columns->push_back({"comm hidden %", [](const ReportRow& r) {
                         return r.hidden_communication ? Number(100 * *r.hidden_communication, 1) : std::string();
                       }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.peak_tensor_bytes.has_value(); })) {
    columns->push_back({"tensor peak/rank", [](const ReportRow& r) {
                         return r.peak_tensor_bytes ? FormatBytes(static_cast<double>(*r.peak_tensor_bytes)) : std::string();
                       }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.data_wait_share.has_value(); })) {
    columns->push_back({"data wait %", [](const ReportRow& r) {
                         if (!r.data_wait_share) return std::string();
                         return Number(100 * *r.data_wait_share, 1) + (r.io_bound ? " I/O-bound" : "");
                       }});
    columns->push_back({"data MB/s", [](const ReportRow& r) { return Number(Ratio(r.data_bytes_per_second, 1e6), 3); }});
    columns->push_back({"loading samples/s", [](const ReportRow& r) { return Number(r.loading_samples_per_second, 0); }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.model_flops_per_second.has_value(); })) {
    columns->push_back({"GFLOP/s", [](const ReportRow& r) { return Number(Ratio(r.model_flops_per_second, 1e9), 3); }});
    // The language models' columns have MFU already.
    if (!AnyRow(rows, [](const ReportRow& r) { return r.tokens_per_second.has_value(); })) {
      columns->push_back(MfuColumn());
    }
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.mlperf.has_value(); })) {
    columns->push_back({"MLPerf min", [](const ReportRow& r) { return r.mlperf ? MlperfCell(*r.mlperf) : std::string(); }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.samples_per_wh.has_value(); })) {
    columns->push_back({"samples/Wh", [](const ReportRow& r) { return Number(r.samples_per_wh, 0); }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.epoch_wh.has_value(); })) {
    columns->push_back({"Wh/epoch", [](const ReportRow& r) { return Number(r.epoch_wh, 1); }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return !r.time_to_accuracy_seconds && r.cost_per_million_samples; })) {
    columns->push_back({"cost/M samples", [](const ReportRow& r) { return Money(r, r.cost_per_million_samples); }});
  }
}

// The task's own figures: a language model's, a translation's, loss scaling, task 0a's.
void AddTaskColumns(const std::vector<ReportRow>& rows, std::vector<Column>* columns) {
  if (AnyRow(rows, [](const ReportRow& r) { return r.tokens_per_second.has_value(); })) {
    const std::vector<Column> language_model = {
        {"global batch", [](const ReportRow& r) {
           return r.global_batch_size ? std::to_string(*r.global_batch_size) : std::string();
         }},
        {"tokens/s", [](const ReportRow& r) { return Number(r.tokens_per_second, 0); }},
        {"s/iteration", [](const ReportRow& r) { return Number(r.seconds_per_iteration, 3); }},
        {"TFLOP/s/device", [](const ReportRow& r) { return Number(r.tflops_per_device, 3); }},
        MfuColumn(),
        {"J/token", [](const ReportRow& r) { return Number(r.joules_per_token, 6); }},
    };
    columns->insert(columns->end(), language_model.begin(), language_model.end());
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.target_tokens_per_second.has_value(); })) {
    const std::vector<Column> translation = {
        {"BLEU", [](const ReportRow& r) { return Number(r.bleu, 2); }},
        {"source tokens/s", [](const ReportRow& r) { return Number(r.source_tokens_per_second, 0); }},
        {"target tokens/s", [](const ReportRow& r) { return Number(r.target_tokens_per_second, 0); }},
        {"J/target token", [](const ReportRow& r) { return Number(r.joules_per_token, 6); }},
    };
    columns->insert(columns->end(), translation.begin(), translation.end());
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.loss_scale.has_value(); })) {
    columns->push_back({"loss scale", [](const ReportRow& r) { return Number(r.loss_scale, 0); }});
    columns->push_back({"skipped updates", [](const ReportRow& r) {
                         return r.skipped_updates ? std::to_string(*r.skipped_updates) : std::string();
                       }});
  }
  if (AnyRow(rows, [](const ReportRow& r) { return r.peak_bus_bandwidth.has_value(); })) {
    const std::vector<Column> allreduce = {
        {"peak busbw GB/s", [](const ReportRow& r) { return Number(Ratio(r.peak_bus_bandwidth, 1e9), 3); }},
        {"at MiB", [](const ReportRow& r) { return Number(Ratio(r.peak_bus_bandwidth_bytes, 1 << 20), 1); }},
        {"latency us", [](const ReportRow& r) { return Number(Ratio(r.min_latency_seconds, 1e-6), 1); }},
    };
    columns->insert(columns->end(), allreduce.begin(), allreduce.end());
  }
}

std::vector<Column> Columns(const std::vector<ReportRow>& rows) {
  std::vector<Column> columns = CommonColumns();
  AddOptionalColumns(rows, &columns);
  AddTaskColumns(rows, &columns);
  return columns;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Each row's cost warnings (stale prices, no price), once each, after the table.
std::string Warnings(const std::vector<ReportRow>& rows, const std::string& before) {
  std::string out;
  for (const ReportRow& r : rows) {
    for (const std::string& w : r.warnings) out += "- " + r.name + ": " + w + "\n";
  }
  return out.empty() ? "" : before + "Cost notes:\n" + out;
}

nlohmann::json JsonRow(const ReportRow& r) {
  nlohmann::json out = {{"benchmark", r.name}, {"task", r.task},   {"goal", r.goal},  {"system", r.system},
                        {"backend", r.backend}, {"workers", r.workers}, {"phase", r.phase}};
  auto put = [&out](const char* key, std::optional<double> v) {
    if (v) out[key] = *v;
  };
  put("samplesPerSecond", r.samples_per_second);
  put("timeToAccuracySeconds", r.time_to_accuracy_seconds);
  put("speedup", r.speedup);
  put("scalingEfficiency", r.efficiency);
  put("communicationRatio", r.communication_ratio);
  put("dataWaitShare", r.data_wait_share);
  put("dataBytesPerSecond", r.data_bytes_per_second);
  put("loadingSamplesPerSecond", r.loading_samples_per_second);
  if (r.data_wait_share) out["ioBound"] = r.io_bound;
  if (!r.gradient_sync.empty()) out["gradientSync"] = r.gradient_sync;
  if (r.zero_stage) out["zeroStage"] = *r.zero_stage;
  if (r.peak_tensor_bytes) out["peakTensorBytes"] = *r.peak_tensor_bytes;
  if (r.peak_resident_bytes) out["peakResidentBytes"] = *r.peak_resident_bytes;
  put("collectiveSeconds", r.collective_seconds);
  put("hiddenCommunication", r.hidden_communication);
  put("energyToAccuracyJoules", r.energy_to_accuracy_joules);
  put("samplesPerWh", r.samples_per_wh);
  put("epochWh", r.epoch_wh);
  if (r.energy_shared) out["energyShared"] = *r.energy_shared;
  put("costToAccuracy", r.cost_to_accuracy);
  put("spotCostToAccuracy", r.spot_cost_to_accuracy);
  put("cost", r.cost);
  put("costPerMillionSamples", r.cost_per_million_samples);
  put("carbonToAccuracyGrams", r.carbon_to_accuracy_grams);
  if (r.cost_stale) out["priceStale"] = true;
  if (!r.warnings.empty()) out["warnings"] = r.warnings;
  out["paretoTimeCost"] = r.pareto_time_cost;
  out["paretoTimeEnergy"] = r.pareto_time_energy;
  put("priceIndex", r.price_index);
  if (r.global_batch_size) out["globalBatchSize"] = *r.global_batch_size;
  put("tokensPerSecond", r.tokens_per_second);
  put("secondsPerIteration", r.seconds_per_iteration);
  put("tflopsPerDevice", r.tflops_per_device);
  put("mfu", r.mfu);
  put("modelFlopsPerSecond", r.model_flops_per_second);
  if (!r.peak_basis.empty()) out["peakBasis"] = r.peak_basis;
  put("achievableFlopsPerSecond", r.achievable_flops_per_second);
  put("joulesPerToken", r.joules_per_token);
  put("bleu", r.bleu);
  put("sourceTokensPerSecond", r.source_tokens_per_second);
  put("targetTokensPerSecond", r.target_tokens_per_second);
  put("lossScale", r.loss_scale);
  if (r.skipped_updates) out["skippedUpdates"] = *r.skipped_updates;
  put("peakBusBandwidthBytesPerSecond", r.peak_bus_bandwidth);
  put("peakBusBandwidthBytes", r.peak_bus_bandwidth_bytes);
  put("minLatencySeconds", r.min_latency_seconds);
  if (!r.currency.empty()) out["currency"] = r.currency;
  if (!r.baseline.empty()) out["baseline"] = r.baseline;
  if (r.repeats > 0) out["repeats"] = r.repeats;
  for (const auto& [figure, summary] : r.spread) out["spread"][figure] = EncodeSummary(summary);
  if (r.mlperf) out["mlperf"] = MlperfScoreFields().Encode(*r.mlperf);
  return out;
}

// Speedup, scaling efficiency and price index of `b` against its series' baseline.
void Compare(const Benchmark& b, const Benchmark& base, ReportRow* row) {
  const ReportRow base_row = RowOf(base);
  row->baseline = base.metadata.name;
  if (!b.status.results) return;
  row->speedup = Speedup(b.status.results->figures, base.status.results->figures);
  if (row->speedup) {
    row->efficiency = ScalingEfficiency(*row->speedup, row->workers, base_row.workers);
    row->price_index = (HourlyPrice(b) / HourlyPrice(base)) / *row->speedup;
  }
}

// Pareto-optimal runs of each (task, goal): no other run of it is at least as good in both
// figures and better in one.
void MarkPareto(std::vector<ReportRow>* rows) {
  using Figure = std::optional<double> ReportRow::*;
  const auto mark = [rows](Figure cost, bool ReportRow::*flag) {
    for (ReportRow& a : *rows) {
      if (!a.time_to_accuracy_seconds || !(a.*cost)) continue;
      const bool dominated = std::any_of(rows->begin(), rows->end(), [&](const ReportRow& b) {
        if (&a == &b || b.task != a.task || b.goal != a.goal || !b.time_to_accuracy_seconds || !(b.*cost)) return false;
        const double at = *a.time_to_accuracy_seconds, bt = *b.time_to_accuracy_seconds;
        return bt <= at && *(b.*cost) <= *(a.*cost) && (bt < at || *(b.*cost) < *(a.*cost));
      });
      a.*flag = !dominated;
    }
  };
  mark(&ReportRow::cost_to_accuracy, &ReportRow::pareto_time_cost);
  mark(&ReportRow::energy_to_accuracy_joules, &ReportRow::pareto_time_energy);
}

}  // namespace

std::vector<ReportRow> BuildReport(const std::vector<Benchmark>& runs) {
  std::vector<const Benchmark*> sorted;
  for (const Benchmark& b : runs) sorted.push_back(&b);
  const auto order = [](const Benchmark* b) {
    const auto [task, goal, system, backend] = SeriesOf(*b);
    return std::make_tuple(task, goal, system, backend, b->spec.workers, b->metadata.name);
  };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Benchmark* a, const Benchmark* b) { return order(a) < order(b); });
  // The baseline of each series: its succeeded run with the fewest workers.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, const Benchmark*> baselines;
  for (const Benchmark* b : sorted) {
    if (b->status.phase != "Succeeded" || !b->status.results) continue;
    baselines.try_emplace(SeriesOf(*b), b);
  }
  std::vector<ReportRow> rows;
  for (const Benchmark* b : sorted) {
    ReportRow row = RowOf(*b);
    const auto found = baselines.find(SeriesOf(*b));
    if (found != baselines.end() && b->status.phase == "Succeeded") Compare(*b, *found->second, &row);
    rows.push_back(std::move(row));
  }
  MarkPareto(&rows);
  return rows;
}

StatusOr<std::string> FormatReport(const std::vector<ReportRow>& rows, const std::string& format) {
  const std::vector<Column> columns = Columns(rows);
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const ReportRow& r : rows) out.push_back(JsonRow(r));
    return out.dump(2) + "\n";
  }
  std::vector<std::vector<std::string>> cells;
  for (const ReportRow& r : rows) {
    std::vector<std::string> line;
    for (const Column& c : columns) line.push_back(c.cell(r));
    cells.push_back(std::move(line));
  }
  std::string out;
  if (format == "csv") {
    for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + CsvField(columns[i].title);
    out += "\n";
    for (const auto& line : cells) {
      for (size_t i = 0; i < line.size(); ++i) out += (i ? "," : "") + CsvField(line[i]);
      out += "\n";
    }
    return out;
  }
  if (format == "html") {
    out += "<table class=\"report\">\n<thead><tr>";
    for (const Column& c : columns) out += std::string("<th>") + EscapeMarkup(c.title) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& line : cells) {
      out += "<tr>";
      for (size_t i = 0; i < line.size(); ++i) {
        out += std::string(i < kNameColumns ? "<td>" : "<td class=\"number\">") + EscapeMarkup(line[i]) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
    const std::string warnings = Warnings(rows, "");
    return warnings.empty() ? out : out + "<pre class=\"warnings\">" + EscapeMarkup(warnings) + "</pre>\n";
  }
  if (format == "markdown") {
    out += "|";
    for (const Column& c : columns) out += std::string(" ") + c.title + " |";
    out += "\n|";
    for (size_t i = 0; i < columns.size(); ++i) out += i < kNameColumns ? "---|" : "---:|";
    out += "\n";
    for (const auto& line : cells) {
      out += "|";
      for (const auto& cell : line) out += " " + cell + " |";
      out += "\n";
    }
    return out + Warnings(rows, "\n");
  }
  if (format != "text") {
    return Status::InvalidArgument("--format: must be text, markdown, csv, json or html, got \"" + format + "\"");
  }
  std::vector<size_t> widths;
  for (const Column& c : columns) widths.push_back(std::string(c.title).size());
  for (const auto& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
  }
  auto emit = [&](const std::vector<std::string>& line) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      // Names left-aligned, figures right-aligned.
      const std::string pad(widths[i] - line[i].size(), ' ');
      text += (i ? "  " : "") + (i < kNameColumns ? line[i] + pad : pad + line[i]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  std::vector<std::string> titles;
  for (const Column& c : columns) titles.push_back(c.title);
  emit(titles);
  for (const auto& line : cells) emit(line);
  return out + Warnings(rows, "");
}

std::string SystemName(const Benchmark& run) {
  const SystemIdentity* system = SystemOf(run);
  return system != nullptr ? system->Name() : "unknown";
}

std::string RunKey(const Benchmark& run) {
  if (!run.metadata.uid.empty()) return run.metadata.uid;
  return run.metadata.namespace_name + "/" + run.metadata.name + "@" + run.status.start_time;
}

StatusOr<std::vector<Benchmark>> LoadResultDirectories(const std::vector<std::string>& paths,
                                                       AllreduceTables* allreduce_tables, TrainingCurves* curves) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (fs::is_regular_file(fs::path(path) / "benchmark.json")) {
      files.push_back((fs::path(path) / "benchmark.json").string());
      continue;
    }
    if (!fs::is_directory(path)) return Status::NotFound(path + ": no such result directory");
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path)) {
      if (fs::is_regular_file(entry.path() / "benchmark.json")) found.push_back((entry.path() / "benchmark.json").string());
    }
    if (found.empty()) return Status::NotFound(path + ": holds no benchmark.json (expected `ergobench run` results)");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<Benchmark> runs;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(const std::string text, ReadFile(file));
    const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return Status::InvalidArgument(file + ": not JSON");
    FieldErrors errors;
    Benchmark b = DecodeBenchmark(json, &errors);
    if (!errors.empty()) return Status::InvalidArgument(file + ": " + errors.ToString());
    const fs::path table = fs::path(file).parent_path() / "allreduce.json";
    if (allreduce_tables != nullptr && fs::is_regular_file(table)) {
      ASSIGN_OR_RETURN(const std::string table_text, ReadFile(table.string()));
      nlohmann::json parsed = nlohmann::json::parse(table_text, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_discarded()) return Status::InvalidArgument(table.string() + ": not JSON");
      (*allreduce_tables)[RunKey(b)] = std::move(parsed);
    }
    const fs::path mllog = fs::path(file).parent_path() / "rank-0.mllog";
    if (curves != nullptr && fs::is_regular_file(mllog)) {
      ASSIGN_OR_RETURN(const std::string log, ReadFile(mllog.string()));
      (*curves)[RunKey(b)] = ParseTrainingCurve(log);
    }
    runs.push_back(std::move(b));
  }
  return runs;
}

}  // namespace ergobench
