// SVG charts for `ergobench report --charts DIR`: plain SVG 1.1 that any browser renders,
// with no script and no external resource. Each data point carries data-x and data-y, and
// each series its name, so that tests (and users) read the numbers back from the file.
//
//   throughput.svg         samples/s against k, one line per task and backend; with repeats,
//                          the median with an error bar from the fastest to the slowest
//   time-to-accuracy.svg   time to accuracy against k, likewise
//   speedup.svg            speedup over the series' fewest workers against k (report.h), with
//                          the repeats' range where the speedup is by throughput
//   scaling-efficiency.svg speedup / (k / base k) against k, likewise
//   communication.svg      compute / communication split of each run
//   pareto-time-cost.svg   cost against time to accuracy, one series per system, the Pareto
//                          front of the runs the report marks dashed (report.h)
//   pareto-time-energy.svg energy against time to accuracy, likewise
//   energy-per-sample.svg  joules per sample of each run
//   allreduce-busbw.svg    task 0a: bus bandwidth against message size, one line per system and k
//   <key>-time.svg, <key>-samples.svg
//                          training curves (training_curves.h), one line per run: eval_accuracy,
//                          eval_loss and train_loss against the wall time since run_start and
//                          against the samples trained
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "cli/report/report.h"
#include "cli/report/training_curves.h"

namespace ergobench {

struct ChartPoint {
  ChartPoint() = default;
  ChartPoint(double x_value, double y_value, std::string text = "") : x(x_value), y(y_value), label(std::move(text)) {}
  double x = 0;
  double y = 0;
  std::string label;  // shown beside scatter points and under bars
  // The repeats' extremes, drawn as an error bar through the point (a line chart's).
  std::optional<double> low, high;
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;
};

struct ChartSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  std::vector<ChartPoint> front = {};  // a scatter chart's Pareto front, drawn dashed over the points
  // A line chart's reference, drawn dashed under the series: speedup's ideal (linear scaling).
  ChartSeries reference = {};
  // Tick labels; by default the number (x) and three significant figures with an SI prefix (y).
  std::string (*x_tick)(double) = nullptr;
  std::string (*y_tick)(double) = nullptr;
};

std::string LineChartSvg(const ChartSpec& spec);     // points joined in x order
std::string ScatterChartSvg(const ChartSpec& spec);  // labelled points, and the front
// One bar per point of the first series; a second series stacks on the first.
std::string BarChartSvg(const ChartSpec& spec);

// File name → SVG text, for the finished runs that have the figures each chart needs; 0a's
// chart from the per-size tables LoadResultDirectories read.
std::map<std::string, std::string> BuildReportCharts(const std::vector<Benchmark>& runs,
                                                     const AllreduceTables& tables = {},
                                                     const TrainingCurves& curves = {});

}  // namespace ergobench
