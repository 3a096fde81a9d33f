#include "api/v1alpha1/headline_figures.h"

namespace ergobench {
namespace {

// A figure of Figures (in results.figures), read and written through one member.
HeadlineFigure FigureOf(std::string name, bool higher_is_better, double band, std::optional<double> Figures::*member) {
  return {std::move(name), higher_is_better, band,
          [member](const BenchmarkResults& r) { return r.figures.*member; },
          [member](BenchmarkResults* r, double v) { r->figures.*member = v; }};
}

std::vector<HeadlineFigure> MakeHeadlineFigures() {
  std::vector<HeadlineFigure> figures = {
      FigureOf("samplesPerSecond", true, 5, &Figures::samples_per_second),
      {"tokensPerSecond", true, 5,
       [](const BenchmarkResults& r) {
         return r.figures.language_model ? std::optional(r.figures.language_model->tokens_per_second) : std::nullopt;
       },
       [](BenchmarkResults* r, double v) {
         if (r->figures.language_model) r->figures.language_model->tokens_per_second = v;
       }},
      {"peakBusBandwidthBytesPerSecond", true, 5,
       [](const BenchmarkResults& r) {
         return r.figures.allreduce ? std::optional(r.figures.allreduce->peak_bus_bandwidth_bytes_per_second)
                                    : std::nullopt;
       },
       [](BenchmarkResults* r, double v) {
         if (r->figures.allreduce) r->figures.allreduce->peak_bus_bandwidth_bytes_per_second = v;
       }},
      FigureOf("timeToAccuracySeconds", false, 10, &Figures::time_to_accuracy_seconds),
      {"runSeconds", false, 10,
       [](const BenchmarkResults& r) {  // 0: the run never reached run_start
         return r.figures.run_seconds > 0 ? std::optional(r.figures.run_seconds) : std::nullopt;
       },
       [](BenchmarkResults* r, double v) { r->figures.run_seconds = v; }},
      FigureOf("energyJoules", false, 10, &Figures::energy_joules),
      {"energyToAccuracyJoules", false, 10,
       [](const BenchmarkResults& r) { return r.figures.energy_to_accuracy_joules; },
       [](BenchmarkResults* r, double v) {
         r->figures.energy_to_accuracy_joules = v;
         r->energy_to_accuracy_wh = v / 3600;  // kept consistent with the figure it restates
       }},
      FigureOf("communicationRatio", false, 5, &Figures::communication_ratio),
  };
  figures.back().band_in_points = true;
  return figures;
}

}  // namespace

const std::vector<HeadlineFigure>& HeadlineFigures() {
  static const std::vector<HeadlineFigure> figures = MakeHeadlineFigures();
  return figures;
}

const HeadlineFigure* FindHeadlineFigure(const std::string& name) {
  for (const HeadlineFigure& f : HeadlineFigures()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace ergobench
