#include "cli/report/html_report.h"

#include <map>
#include <set>

#include "cli/report/charts.h"
#include "cli/report/markup.h"

namespace ergobench {
namespace {

// Sections of the page and the charts (charts.h's file names) each holds, in order.
struct Section {
  const char* title;
  std::vector<std::string> charts;
};

std::vector<Section> Sections() {
  return {
      {"Training curves",
       {"eval_accuracy-time.svg", "eval_accuracy-samples.svg", "eval_loss-time.svg", "eval_loss-samples.svg",
        "train_loss-time.svg", "train_loss-samples.svg"}},
      {"Scaling", {"throughput.svg", "time-to-accuracy.svg", "speedup.svg", "scaling-efficiency.svg"}},
      {"Communication", {"communication.svg", "allreduce-busbw.svg"}},
      {"Energy and cost", {"energy-per-sample.svg", "pareto-time-energy.svg", "pareto-time-cost.svg"}},
  };
}

constexpr char kStyle[] = R"(body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table.report { border-collapse: collapse; font-size: 0.85em; }
table.report th, table.report td { border: 1px solid #ccc; padding: 0.25em 0.5em; white-space: nowrap; }
table.report th { background: #f3f3f3; } table.report td.number { text-align: right; }
.table { overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 1em; }
figure.chart { margin: 0; } figure.chart svg { width: 100%; height: auto; max-width: 720px; }
pre.warnings { color: #8a4b00; }
)";

// "3 runs of 1a, fmnist on 2 systems"
std::string RunsSummary(const std::vector<ReportRow>& rows) {
  std::set<std::string> tasks, systems;
  for (const ReportRow& r : rows) tasks.insert(r.task), systems.insert(r.system);
  std::string text = std::to_string(rows.size()) + (rows.size() == 1 ? " run" : " runs") + " of ";
  bool first = true;
  for (const std::string& task : tasks) text += (first ? "" : ", ") + task, first = false;
  return text + " on " + std::to_string(systems.size()) + (systems.size() == 1 ? " system" : " systems");
}

std::string Figure(const std::string& name, const std::string& svg) {
  return "<figure class=\"chart\" id=\"" + EscapeMarkup(name) + "\">\n" + svg + "</figure>\n";
}

}  // namespace

std::string HtmlReport(const std::vector<Benchmark>& runs, const AllreduceTables& tables, const TrainingCurves& curves,
                       const std::string& generator) {
  const std::vector<ReportRow> rows = BuildReport(runs);
  std::map<std::string, std::string> charts = BuildReportCharts(runs, tables, curves);
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"generator\" content=\"" + EscapeMarkup(generator) + "\">\n"
                     "<title>ergobench report</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n"
                     "<h1>ergobench report</h1>\n<p class=\"summary\">" + EscapeMarkup(RunsSummary(rows)) + "</p>\n"
                     "<h2>Runs</h2>\n<div class=\"table\">\n" + *FormatReport(rows, "html") + "</div>\n";
  for (const Section& section : Sections()) {
    std::string figures;
    for (const std::string& name : section.charts) {
      const auto chart = charts.find(name);
      if (chart == charts.end()) continue;
      figures += Figure(name, chart->second);
      charts.erase(chart);
    }
    if (!figures.empty()) page += "<h2>" + std::string(section.title) + "</h2>\n<div class=\"charts\">\n" + figures + "</div>\n";
  }
  if (!charts.empty()) {  // a chart no section names yet still shows
    page += "<h2>More</h2>\n<div class=\"charts\">\n";
    for (const auto& [name, svg] : charts) page += Figure(name, svg);
    page += "</div>\n";
  }
  return page + "</body>\n</html>\n";
}

}  // namespace ergobench
