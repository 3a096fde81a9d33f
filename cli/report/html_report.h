// `ergobench report --html FILE`: one self-contained page (no script, no network, nothing
// beside it) with the comparison table, the training curves and every chart of charts.h
// inline, in sections; for a browser, or a CI job's artifacts.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "cli/report/report.h"
#include "cli/report/training_curves.h"

namespace ergobench {

// `generator` names what wrote the page ("ergobench 0.1.0").
std::string HtmlReport(const std::vector<Benchmark>& runs, const AllreduceTables& tables, const TrainingCurves& curves,
                       const std::string& generator);

}  // namespace ergobench
