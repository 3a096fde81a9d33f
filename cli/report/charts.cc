#include "cli/report/charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "base/units.h"
#include "cli/report/markup.h"

namespace ergobench {
namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 80, kRight = 180, kTop = 50, kBottom = 70;  // the legend sits on the right
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"};

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// A "nice" axis: 0 to a round maximum, in 5 steps.
double NiceMax(double max) {
  if (max <= 0) return 1;
  const double magnitude = std::pow(10, std::floor(std::log10(max)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (step * magnitude >= max) return step * magnitude;
  }
  return 10 * magnitude;
}

struct Frame {
  double x_max, y_max;
  double X(double x) const { return kLeft + x / x_max * (kWidth - kLeft - kRight); }
  double Y(double y) const { return kHeight - kBottom - y / y_max * (kHeight - kTop - kBottom); }
};

std::string Open(const ChartSpec& spec) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) + "\" height=\"" + Num(kHeight) +
         "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n" +
         "<title>" + EscapeMarkup(spec.title) + "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         "<text x=\"" + Num(kWidth / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">" + EscapeMarkup(spec.title) +
         "</text>\n";
}

std::string Axes(const ChartSpec& spec, const Frame& f, bool x_ticks) {
  std::string out = "<g class=\"axes\" stroke=\"#333\">\n";
  out += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(f.Y(0)) + "\" x2=\"" + Num(kWidth - kRight) + "\" y2=\"" +
         Num(f.Y(0)) + "\"/>\n";
  out += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(f.Y(0)) + "\" x2=\"" + Num(kLeft) + "\" y2=\"" + Num(kTop) + "\"/>\n";
  out += "</g>\n<g class=\"ticks\" fill=\"#333\">\n";
  for (int i = 0; i <= 5; ++i) {
    const double y = f.y_max * i / 5;
    const std::string y_text = spec.y_tick ? spec.y_tick(y) : FormatSi(y, "");
    out += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(f.Y(y) + 4) + "\" text-anchor=\"end\">" + EscapeMarkup(y_text) + "</text>\n";
    out += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(f.Y(y)) + "\" x2=\"" + Num(kWidth - kRight) + "\" y2=\"" +
           Num(f.Y(y)) + "\" stroke=\"#ddd\"/>\n";
    if (x_ticks) {
      const double x = f.x_max * i / 5;
      const std::string x_text = spec.x_tick ? spec.x_tick(x) : Num(x);
      out += "<text x=\"" + Num(f.X(x)) + "\" y=\"" + Num(f.Y(0) + 18) + "\" text-anchor=\"middle\">" + EscapeMarkup(x_text) + "</text>\n";
    }
  }
  out += "</g>\n";
  out += "<text x=\"" + Num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + Num(kHeight - 20) +
         "\" text-anchor=\"middle\">" + EscapeMarkup(spec.x_label) + "</text>\n";
  out += "<text transform=\"translate(20 " + Num((kTop + kHeight - kBottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + EscapeMarkup(spec.y_label) + "</text>\n";
  return out;
}

std::string Legend(const ChartSpec& spec) {
  std::string out = "<g class=\"legend\">\n";
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const double y = kTop + 10 + 20 * static_cast<double>(i);
    out += "<rect x=\"" + Num(kWidth - kRight + 20) + "\" y=\"" + Num(y - 9) + "\" width=\"12\" height=\"12\" fill=\"" +
           kColours[i % 7] + "\"/>\n<text x=\"" + Num(kWidth - kRight + 38) + "\" y=\"" + Num(y + 1) + "\">" +
           EscapeMarkup(spec.series[i].name) + "</text>\n";
  }
  if (!spec.reference.points.empty()) {
    const double y = kTop + 10 + 20 * static_cast<double>(spec.series.size());
    out += "<line x1=\"" + Num(kWidth - kRight + 20) + "\" y1=\"" + Num(y - 3) + "\" x2=\"" + Num(kWidth - kRight + 32) +
           "\" y2=\"" + Num(y - 3) + "\" stroke=\"#666\" stroke-dasharray=\"4 3\"/>\n<text x=\"" +
           Num(kWidth - kRight + 38) + "\" y=\"" + Num(y + 1) + "\">" + EscapeMarkup(spec.reference.name) + "</text>\n";
  }
  return out + "</g>\n";
}

Frame FrameFor(const ChartSpec& spec, bool stacked) {
  double x_max = 0, y_max = 0;
  std::vector<double> stack;
  for (const ChartPoint& p : spec.reference.points) x_max = std::max(x_max, p.x), y_max = std::max(y_max, p.y);
  for (const ChartSeries& s : spec.series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      x_max = std::max(x_max, s.points[i].x);
      if (stacked) {
        if (stack.size() <= i) stack.resize(i + 1, 0);
        stack[i] += s.points[i].y;
        y_max = std::max(y_max, stack[i]);
      } else {
        y_max = std::max({y_max, s.points[i].y, s.points[i].high.value_or(0)});
      }
    }
  }
  return Frame{NiceMax(x_max), NiceMax(y_max)};
}

std::string Point(const ChartPoint& p, const Frame& f, const char* colour) {
  std::string bar;
  if (p.low && p.high) {
    const std::string x = Num(f.X(p.x));
    bar = "<line class=\"error-bar\" x1=\"" + x + "\" y1=\"" + Num(f.Y(*p.low)) + "\" x2=\"" + x + "\" y2=\"" +
          Num(f.Y(*p.high)) + "\" stroke=\"" + colour + "\" stroke-width=\"2\" data-low=\"" + Num(*p.low) +
          "\" data-high=\"" + Num(*p.high) + "\"/>\n";
  }
  return bar + "<circle cx=\"" + Num(f.X(p.x)) + "\" cy=\"" + Num(f.Y(p.y)) + "\" r=\"4\" fill=\"" + colour +
         "\" data-x=\"" + Num(p.x) + "\" data-y=\"" + Num(p.y) + "\"><title>" + EscapeMarkup(p.label) + "</title></circle>\n";
}

}  // namespace

std::string LineChartSvg(const ChartSpec& spec) {
  const Frame f = FrameFor(spec, false);
  std::string out = Open(spec) + Axes(spec, f, true);
  if (!spec.reference.points.empty()) {
    std::vector<ChartPoint> points = spec.reference.points;
    std::sort(points.begin(), points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    out += "<g class=\"reference\" data-series=\"" + EscapeMarkup(spec.reference.name) +
           "\">\n<polyline fill=\"none\" stroke=\"#666\" stroke-dasharray=\"4 3\" stroke-width=\"1.5\" points=\"";
    for (const ChartPoint& p : points) out += Num(f.X(p.x)) + "," + Num(f.Y(p.y)) + " ";
    out += "\"/>\n";
    for (const ChartPoint& p : points) {
      out += "<circle cx=\"" + Num(f.X(p.x)) + "\" cy=\"" + Num(f.Y(p.y)) + "\" r=\"2\" fill=\"#666\" data-x=\"" +
             Num(p.x) + "\" data-y=\"" + Num(p.y) + "\"/>\n";
    }
    out += "</g>\n";
  }
  for (size_t i = 0; i < spec.series.size(); ++i) {
    std::vector<ChartPoint> points = spec.series[i].points;
    std::sort(points.begin(), points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    out += "<g class=\"series\" data-series=\"" + EscapeMarkup(spec.series[i].name) + "\">\n<polyline fill=\"none\" stroke=\"" +
           kColours[i % 7] + "\" stroke-width=\"2\" points=\"";
    for (const ChartPoint& p : points) out += Num(f.X(p.x)) + "," + Num(f.Y(p.y)) + " ";
    out += "\"/>\n";
    for (const ChartPoint& p : points) out += Point(p, f, kColours[i % 7]);
    out += "</g>\n";
  }
  return out + Legend(spec) + "</svg>\n";
}

std::string ScatterChartSvg(const ChartSpec& spec) {
  const Frame f = FrameFor(spec, false);
  std::string out = Open(spec) + Axes(spec, f, true);
  for (size_t i = 0; i < spec.series.size(); ++i) {
    out += "<g class=\"series\" data-series=\"" + EscapeMarkup(spec.series[i].name) + "\">\n";
    for (const ChartPoint& p : spec.series[i].points) {
      out += Point(p, f, kColours[i % 7]);
      out += "<text x=\"" + Num(f.X(p.x) + 7) + "\" y=\"" + Num(f.Y(p.y) - 7) + "\" font-size=\"10\">" +
             EscapeMarkup(p.label) + "</text>\n";
    }
    out += "</g>\n";
  }
  if (!spec.front.empty()) {
    std::vector<ChartPoint> front = spec.front;
    std::sort(front.begin(), front.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    out += "<g class=\"pareto-front\" data-series=\"Pareto front\">\n<polyline fill=\"none\" stroke=\"#222\" "
           "stroke-dasharray=\"6 4\" stroke-width=\"1.5\" points=\"";
    for (const ChartPoint& p : front) out += Num(f.X(p.x)) + "," + Num(f.Y(p.y)) + " ";
    out += "\"/>\n";
    for (const ChartPoint& p : front) {
      out += "<circle cx=\"" + Num(f.X(p.x)) + "\" cy=\"" + Num(f.Y(p.y)) + "\" r=\"7\" fill=\"none\" stroke=\"#222\" data-x=\"" +
             Num(p.x) + "\" data-y=\"" + Num(p.y) + "\" data-run=\"" + EscapeMarkup(p.label) + "\"/>\n";
    }
    out += "</g>\n";
  }
  return out + Legend(spec) + "</svg>\n";
}

std::string BarChartSvg(const ChartSpec& spec) {
  const Frame f = FrameFor(spec, true);
  std::string out = Open(spec) + Axes(spec, f, false);
  const size_t bars = spec.series.empty() ? 0 : spec.series.front().points.size();
  const double slot = (kWidth - kLeft - kRight) / std::max<double>(static_cast<double>(bars), 1);
  std::vector<double> base(bars, 0);
  for (size_t s = 0; s < spec.series.size(); ++s) {
    out += "<g class=\"series\" data-series=\"" + EscapeMarkup(spec.series[s].name) + "\">\n";
    for (size_t i = 0; i < spec.series[s].points.size() && i < bars; ++i) {
      const ChartPoint& p = spec.series[s].points[i];
      const double x = kLeft + slot * (static_cast<double>(i) + 0.2);
      const double top = f.Y(base[i] + p.y), bottom = f.Y(base[i]);
      out += "<rect x=\"" + Num(x) + "\" y=\"" + Num(top) + "\" width=\"" + Num(slot * 0.6) + "\" height=\"" +
             Num(bottom - top) + "\" fill=\"" + kColours[s % 7] + "\" data-x=\"" + EscapeMarkup(p.label) + "\" data-y=\"" +
             Num(p.y) + "\"><title>" + EscapeMarkup(p.label) + ": " + Num(p.y) + "</title></rect>\n";
      base[i] += p.y;
      if (s == 0) {
        out += "<text x=\"" + Num(x + slot * 0.3) + "\" y=\"" + Num(f.Y(0) + 16) +
               "\" text-anchor=\"middle\" font-size=\"10\">" + EscapeMarkup(p.label) + "</text>\n";
      }
    }
    out += "</g>\n";
  }
  return out + Legend(spec) + "</svg>\n";
}

namespace {

std::vector<ChartSeries> Values(const std::map<std::string, ChartSeries>& m) {
  std::vector<ChartSeries> out;
  for (const auto& [name, s] : m) out.push_back(s);
  return out;
}

// `point` with the repeats' extremes of `figure`, when the run repeated.
ChartPoint WithSpread(ChartPoint point, const BenchmarkResults& results, const std::string& figure) {
  const auto it = results.summary.find(figure);
  if (it != results.summary.end() && it->second.n >= 2) {
    point.low = it->second.min;
    point.high = it->second.max;
  }
  return point;
}

// Time against cost (or energy) to accuracy, one series per system, with the Pareto front of
// each task and goal the report marked.
ChartSpec ParetoChart(const std::vector<ReportRow>& rows, std::optional<double> ReportRow::*figure,
                      bool ReportRow::*optimal, const std::string& what, const std::string& unit) {
  std::map<std::string, ChartSeries> by_system;
  ChartSpec spec{"Time against " + what + " to accuracy (Pareto front dashed)", "time to accuracy (s)",
                 what + " to accuracy (" + unit + ")", {}, {}};
  for (const ReportRow& r : rows) {
    if (!r.time_to_accuracy_seconds || !(r.*figure)) continue;
    const std::string series = r.system + " / " + r.task;
    by_system[series].name = series;
    const ChartPoint point{*r.time_to_accuracy_seconds, *(r.*figure), r.name + " (k=" + std::to_string(r.workers) + ")"};
    by_system[series].points.push_back(point);
    if (r.*optimal) spec.front.push_back(point);
  }
  spec.series = Values(by_system);
  return spec;
}

// Speedup and scaling efficiency against k, one line per series (the report's rows). A speedup
// by throughput with repeats gets the repeats' range as its error bar; one by time to accuracy
// is a ratio of two medians whose range the rows do not hold, and gets none.
std::pair<ChartSpec, ChartSpec> ScalingCharts(const std::vector<ReportRow>& rows) {
  std::map<std::string, ChartSeries> speedup, efficiency;
  for (const ReportRow& r : rows) {
    if (!r.speedup || !r.efficiency) continue;
    const std::string series = r.task + " / " + r.system + " / " + r.backend;
    const double k = static_cast<double>(r.workers);
    ChartPoint s{k, *r.speedup, r.name}, e{k, *r.efficiency, r.name};
    const auto spread = r.spread.find("samplesPerSecond");
    if (!r.time_to_accuracy_seconds && spread != r.spread.end() && spread->second.n >= 2 && r.samples_per_second) {
      const double per_sample = *r.speedup / *r.samples_per_second;  // speedup per sample/s over the same base
      s.low = spread->second.min * per_sample, s.high = spread->second.max * per_sample;
      e.low = *s.low * *r.efficiency / *r.speedup, e.high = *s.high * *r.efficiency / *r.speedup;
    }
    speedup[series].name = efficiency[series].name = series;
    speedup[series].points.push_back(s);
    efficiency[series].points.push_back(e);
  }
  // Ideal, linear scaling: k / base k, and an efficiency of 1, at every k a series has.
  std::set<int64_t> ks;
  for (const ReportRow& r : rows) {
    if (r.speedup) ks.insert(r.workers);
  }
  ChartSeries ideal_speedup{"ideal (linear)", {}}, ideal_efficiency{"ideal (linear)", {}};
  for (const int64_t k : ks) {
    const double base = static_cast<double>(*ks.begin());
    ideal_speedup.points.push_back({static_cast<double>(k), static_cast<double>(k) / base});
    ideal_efficiency.points.push_back({static_cast<double>(k), 1.0});
  }
  return {{"Speedup against workers", "workers (k)", "speedup over the fewest workers", Values(speedup), {}, ideal_speedup},
          {"Scaling efficiency against workers", "workers (k)", "speedup / (k / base k)", Values(efficiency), {},
           ideal_efficiency}};
}

// Task 0a: bus bandwidth against message size from each run's per-size table, one line per
// system and k.
std::optional<ChartSpec> BusBandwidthChart(const std::vector<Benchmark>& runs, const AllreduceTables& tables) {
  std::map<std::string, ChartSeries> lines;
  for (const Benchmark& b : runs) {
    const auto table = tables.find(RunKey(b));
    if (b.status.phase != "Succeeded" || table == tables.end() || !table->second.contains("rows")) continue;
    const std::string name = SystemName(b) + " / " + b.spec.backend + " k=" + std::to_string(b.spec.workers);
    lines[name].name = name;
    for (const nlohmann::json& row : table->second["rows"]) {
      const double bytes = row.value("bytes", 0.0), busbw = row.value("busbwBytesPerSecond", 0.0);
      if (bytes <= 0) continue;
      lines[name].points.push_back({std::log2(bytes), busbw / 1e9, FormatBytes(bytes)});
    }
  }
  if (lines.empty()) return std::nullopt;
  ChartSpec spec{"All-reduce bus bandwidth against message size", "message size", "bus bandwidth (GB/s)",
                 Values(lines)};
  spec.x_tick = [](double log2_bytes) { return FormatBytes(std::exp2(log2_bytes)); };  // the axis is log2 bytes
  return spec;
}

// MLBench's plot: each run's evaluations against the wall time since run_start and against the
// samples trained, one line per run, for each value the logs hold.
void AddCurveCharts(const std::vector<Benchmark>& runs, const TrainingCurves& curves,
                    std::map<std::string, std::string>* charts) {
  struct Value {
    const char* key;
    const char* title;  // of the charts
    const char* axis;
  };
  static const Value kValues[] = {{"eval_accuracy", "Validation accuracy", "validation accuracy (BLEU for translation)"},
                                  {"eval_loss", "Validation loss", "validation loss"},
                                  {"train_loss", "Training loss", "training loss (epoch mean)"}};
  for (const auto& [key, title, axis] : kValues) {
    std::vector<ChartSeries> by_time, by_samples;
    for (const Benchmark& b : runs) {
      const auto curve = curves.find(RunKey(b));
      if (curve == curves.end()) continue;
      ChartSeries timed{b.metadata.name, {}}, trained{b.metadata.name, {}};
      for (const CurvePoint& p : curve->second.points) {
        const auto value = p.values.find(key);
        if (value == p.values.end()) continue;
        timed.points.push_back({p.seconds, value->second, b.metadata.name});
        if (p.samples) trained.points.push_back({*p.samples, value->second, b.metadata.name});
      }
      if (!timed.points.empty()) by_time.push_back(std::move(timed));
      if (!trained.points.empty()) by_samples.push_back(std::move(trained));
    }
    if (!by_time.empty()) {
      (*charts)[std::string(key) + "-time.svg"] =
          LineChartSvg({std::string(title) + " against wall time", "seconds since run_start", axis, by_time});
    }
    if (!by_samples.empty()) {
      ChartSpec spec{std::string(title) + " against samples trained", "samples trained", axis, by_samples};
      spec.x_tick = [](double samples) { return FormatSi(samples, ""); };
      (*charts)[std::string(key) + "-samples.svg"] = LineChartSvg(spec);
    }
  }
}

}  // namespace

std::map<std::string, std::string> BuildReportCharts(const std::vector<Benchmark>& runs, const AllreduceTables& tables,
                                                     const TrainingCurves& curves) {
  std::map<std::string, ChartSeries> throughput, tta;
  ChartSeries compute{"data and compute", {}}, communication{"communication", {}}, energy{"joules per sample", {}};
  std::vector<const Benchmark*> done;
  for (const Benchmark& b : runs) {
    if (b.status.phase == "Succeeded" && b.status.results) done.push_back(&b);
  }
  std::sort(done.begin(), done.end(), [](const Benchmark* a, const Benchmark* b) {
    return std::make_tuple(a->spec.task, a->spec.backend, a->spec.workers) <
           std::make_tuple(b->spec.task, b->spec.backend, b->spec.workers);
  });
  for (const Benchmark* b : done) {
    const std::string series = b->spec.task + " / " + SystemName(*b) + " / " + b->spec.backend;
    const double k = static_cast<double>(b->spec.workers);
    const BenchmarkResults& r = *b->status.results;
    const Figures& f = r.figures;
    const std::string label = b->metadata.name;
    if (f.samples_per_second) {
      throughput[series].name = series;
      throughput[series].points.push_back(WithSpread({k, *f.samples_per_second, label}, r, "samplesPerSecond"));
    }
    const bool reached = f.goal_reached.value_or(false) && f.time_to_accuracy_seconds;
    if (reached) {
      tta[series].name = series;
      tta[series].points.push_back(WithSpread({k, *f.time_to_accuracy_seconds, label}, r, "timeToAccuracySeconds"));
    }
    if (f.communication_ratio) {
      compute.points.push_back({k, 100 * (1 - *f.communication_ratio), label});
      communication.points.push_back({k, 100 * *f.communication_ratio, label});
    }
    if (r.joules_per_sample) energy.points.push_back({k, *r.joules_per_sample, label});
  }
  std::map<std::string, std::string> charts;
  if (!throughput.empty()) {
    charts["throughput.svg"] = LineChartSvg({"Throughput against workers", "workers (k)", "samples/s", Values(throughput), {}});
  }
  if (!tta.empty()) {
    charts["time-to-accuracy.svg"] = LineChartSvg({"Time to accuracy against workers", "workers (k)", "seconds", Values(tta), {}});
  }
  if (!compute.points.empty()) {
    charts["communication.svg"] =
        BarChartSvg({"Compute and communication per run", "run", "% of step time", {compute, communication}, {}});
  }
  const std::vector<ReportRow> rows = BuildReport(runs);
  const std::string currency = rows.empty() ? "" : rows.front().currency;
  if (const ChartSpec cost = ParetoChart(rows, &ReportRow::cost_to_accuracy, &ReportRow::pareto_time_cost, "cost", currency);
      !cost.series.empty()) {
    charts["pareto-time-cost.svg"] = ScatterChartSvg(cost);
  }
  if (const ChartSpec joules = ParetoChart(rows, &ReportRow::energy_to_accuracy_joules, &ReportRow::pareto_time_energy,
                                           "energy", "J");
      !joules.series.empty()) {
    charts["pareto-time-energy.svg"] = ScatterChartSvg(joules);
  }
  if (const auto [speedup, efficiency] = ScalingCharts(rows); !speedup.series.empty()) {
    charts["speedup.svg"] = LineChartSvg(speedup);
    charts["scaling-efficiency.svg"] = LineChartSvg(efficiency);
  }
  if (const auto busbw = BusBandwidthChart(runs, tables)) charts["allreduce-busbw.svg"] = LineChartSvg(*busbw);
  if (!energy.points.empty()) {
    charts["energy-per-sample.svg"] = BarChartSvg({"Energy per sample", "run", "joules per sample", {energy}, {}});
  }
  AddCurveCharts(runs, curves, &charts);
  return charts;
}

}  // namespace ergobench
