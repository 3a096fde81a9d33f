#include "runner/progress_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "runner/metrics/runner_metrics.h"
#include "tests/testing/temp_dir.h"

namespace ergobench {
namespace {

std::vector<ProgressEvent> ReadEvents(const std::string& path) {
  std::vector<ProgressEvent> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) events.push_back(*ParseProgressEvent(line));
  return events;
}

// Each report carries the share of the most work done, in the file `ergobench run` follows and
// in the metric the operator reads: 2.5 of 4 epochs.
TEST(ProgressWriterTest, ReportsTheShareOfTheMostWorkToTheFileAndTheMetrics) {
  TempDir dir;
  const std::string path = (dir.path() / "progress.jsonl").string();
  RunnerMetrics metrics({"b", "1a", "gloo", 0, 1});
  {
    ProgressWriter progress(path, 0, /*max_epochs=*/4, &metrics);
    progress.ReportStage("init");
    ProgressEvent event;
    event.stage = "run";
    event.epoch = 3;
    event.done = 50;
    event.total = 100;
    progress.Report(event);
  }
  const std::vector<ProgressEvent> events = ReadEvents(path);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].done_fraction) << "starting is no work";
  EXPECT_EQ(events[1].done_fraction, 0.625);
  EXPECT_FALSE(events[1].seconds_left) << "one observation is no rate";
  EXPECT_NE(metrics.Render().find("ergobench_progress_ratio{backend=\"gloo\",benchmark=\"b\",rank=\"0\",task=\"1a\","
                                  "world_size=\"1\"} 0.625"),
            std::string::npos)
      << metrics.Render();
}

// Without a file, the metrics still move: a pod has no one following a file.
TEST(ProgressWriterTest, WithoutAPathOnlyTheMetrics) {
  RunnerMetrics metrics({"b", "gpt", "gloo", 0, 1});
  ProgressWriter progress("", 0, std::nullopt, &metrics);
  ProgressEvent event;
  event.stage = "run";
  event.done = 30;
  event.total = 120;
  progress.Report(event);
  EXPECT_NE(metrics.Render().find("} 0.25"), std::string::npos) << metrics.Render();
}

}  // namespace
}  // namespace ergobench
