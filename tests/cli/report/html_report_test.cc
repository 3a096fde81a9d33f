#include "cli/report/html_report.h"

#include <gtest/gtest.h>

#include <string>

namespace ergobench {
namespace {

Benchmark Finished(const std::string& name, int64_t workers, double samples_per_second) {
  Benchmark b;
  b.metadata.name = name;
  b.metadata.uid = "uid-" + name;
  b.spec.task = "fmnist";
  b.spec.backend = "gloo";
  b.spec.workers = workers;
  b.status.phase = "Succeeded";
  b.status.results.emplace().figures.samples_per_second = samples_per_second;
  return b;
}

TrainingCurve Curve(double accuracy) {
  TrainingCurve curve;
  curve.points.push_back({3.5, 60000, {{"eval_accuracy", accuracy}, {"train_loss", 0.6}}});
  curve.points.push_back({7.0, 120000, {{"eval_accuracy", accuracy + 0.05}, {"train_loss", 0.4}}});
  return curve;
}

// One page, nothing outside it: the table, then each section's charts inline, MLBench's curves
// first; no script and no address to fetch.
TEST(HtmlReportTest, OneSelfContainedPageWithTheTableAndEveryChart) {
  const std::vector<Benchmark> runs = {Finished("k1", 1, 500), Finished("k2", 2, 900)};
  const TrainingCurves curves = {{"uid-k1", Curve(0.8)}, {"uid-k2", Curve(0.78)}};
  const std::string page = HtmlReport(runs, {}, curves, "ergobench 0.1.0");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(page.find("<meta name=\"generator\" content=\"ergobench 0.1.0\">"), std::string::npos);
  EXPECT_NE(page.find("<p class=\"summary\">2 runs of fmnist on 1 system</p>"), std::string::npos) << page;
  EXPECT_NE(page.find("<table class=\"report\">"), std::string::npos);
  EXPECT_NE(page.find("<td>k2</td>"), std::string::npos);
  const std::vector<std::string> order = {"<h2>Runs</h2>", "<h2>Training curves</h2>", "id=\"eval_accuracy-time.svg\"",
                                          "id=\"eval_accuracy-samples.svg\"", "id=\"train_loss-time.svg\"",
                                          "<h2>Scaling</h2>", "id=\"throughput.svg\"", "id=\"speedup.svg\""};
  size_t at = 0;
  for (const std::string& part : order) {
    const size_t found = page.find(part, at);
    ASSERT_NE(found, std::string::npos) << part << " after offset " << at;
    at = found;
  }
  EXPECT_NE(page.find("data-series=\"k2\""), std::string::npos) << "one line per run";
  EXPECT_NE(page.find("data-x=\"120000\" data-y=\"0.83\""), std::string::npos) << "k2's second point, by samples";
  for (const char* outside : {"<script", "http://", "https://", "src=", "<link", "@import"}) {
    std::string without_svg_namespace = page;
    for (size_t ns; (ns = without_svg_namespace.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;) {
      without_svg_namespace.erase(ns, 34);
    }
    EXPECT_EQ(without_svg_namespace.find(outside), std::string::npos) << outside;
  }
  EXPECT_EQ(page.find("<h2>More</h2>"), std::string::npos) << "every chart has its section";
}

// Names come from users' files and clusters: markup in them is text on the page.
TEST(HtmlReportTest, NamesAreEscaped) {
  const std::string page = HtmlReport({Finished("<script>alert(1)</script>", 1, 500)}, {}, {}, "ergobench \"x\"");
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("content=\"ergobench &quot;x&quot;\""), std::string::npos);
}

}  // namespace
}  // namespace ergobench
