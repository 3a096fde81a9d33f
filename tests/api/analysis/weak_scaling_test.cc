#include "api/analysis/weak_scaling.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

constexpr int64_t kT0 = 1764000000000;  // a Unix time in ms

// Instance `instance` of the point of `workers`, ended as `phase`; converged where it reached
// its goal, and run from kT0 + start_s to kT0 + stop_s.
SweepPointStatus Instance(int64_t index, int64_t workers, int64_t instance, const std::string& phase,
                          bool converged = true, int64_t start_s = 0, int64_t stop_s = 60) {
  SweepPointStatus p;
  p.index = index;
  p.benchmark = "w-" + std::to_string(index);
  p.parameters = {workers, "gloo", "", nlohmann::json::object(), instance};
  p.phase = phase;
  if (phase == "Succeeded") {
    p.figures["samplesPerSecond"] = Summary{1, 100, 100, 100, 100, 0, 100, 100, 100};
    if (converged) p.figures["timeToAccuracySeconds"] = Summary{1, 50, 50, 50, 50, 0, 50, 50, 50};
    p.run_start_ms = kT0 + start_s * 1000;
    p.run_stop_ms = kT0 + stop_s * 1000;
  }
  return p;
}

// MLPerf HPC's throughput over hand values: four instances started 0, 10, 20 and 30 s after the
// first and stopped at 90, 100, 120 and 150 s: TTTa is 150 s (2.5 min), 4 / 2.5 = 1.6 models/min.
TEST(WeakScaling, ModelsPerMinuteAreTheInstancesOverTheFirstStartToTheLastStop) {
  const std::vector<SweepPointStatus> points = {
      Instance(0, 1, 0, "Succeeded", true, 0, 90), Instance(1, 1, 1, "Succeeded", true, 10, 100),
      Instance(2, 1, 2, "Succeeded", true, 20, 120), Instance(3, 1, 3, "Succeeded", true, 30, 150)};
  const std::vector<WeakScalingScore> scores = ScoreInstances("cosmoflow", points);
  ASSERT_EQ(scores.size(), 1u);
  const WeakScalingScore& s = scores[0];
  EXPECT_EQ(s.parameters, (SweepParameters{1, "gloo", "", nlohmann::json::object(), std::nullopt}));
  EXPECT_EQ(s.instances, 4);
  EXPECT_EQ(s.converged, 4);
  EXPECT_TRUE(s.pruned.empty());
  EXPECT_DOUBLE_EQ(*s.time_to_train_all_minutes, 2.5);
  EXPECT_DOUBLE_EQ(*s.models_per_minute, 1.6);
  EXPECT_EQ(s.required_instances, 10);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.note, "4 instances converged of the 10 MLPerf HPC requires for cosmoflow");
}

// An instance that did not converge is pruned and named; TTTa spans the rest only (the pruned
// one ran last, to 300 s): 2 / 1.5 min.
TEST(WeakScaling, InstancesThatDidNotConvergeArePrunedAndNamed) {
  const std::vector<SweepPointStatus> points = {Instance(0, 2, 0, "Succeeded", true, 0, 60),
                                                Instance(1, 2, 1, "Succeeded", false, 0, 300),
                                                Instance(2, 2, 2, "Failed"), Instance(3, 2, 3, "Succeeded", true, 30, 90)};
  const WeakScalingScore s = ScoreInstances("fmnist", points).at(0);
  EXPECT_EQ(s.converged, 2);
  EXPECT_EQ(s.pruned, (std::vector<std::string>{"w-1: did not converge", "w-2: Failed"}));
  EXPECT_DOUBLE_EQ(*s.time_to_train_all_minutes, 1.5);
  EXPECT_DOUBLE_EQ(*s.models_per_minute, 2.0 / 1.5);
  EXPECT_EQ(s.required_instances, 0);
  EXPECT_EQ(s.note, "MLPerf HPC has no benchmark fmnist; scored by its rules over 2 instances");
}

TEST(WeakScaling, EachPointScoresOnceAllItsInstancesEnded) {
  std::vector<SweepPointStatus> points;
  for (int64_t i = 0; i < 10; ++i) points.push_back(Instance(i, 1, i, "Succeeded", true, i, 60 + i));
  points.push_back(Instance(10, 2, 0, "Succeeded"));
  points.push_back(Instance(11, 2, 1, "Running"));
  points.push_back(Instance(12, 4, 0, "Failed"));
  const std::vector<WeakScalingScore> scores = ScoreInstances("cosmoflow", points);
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_TRUE(scores[0].complete) << "10 converged: the count MLPerf HPC requires";
  EXPECT_EQ(scores[0].note, "");
  EXPECT_DOUBLE_EQ(*scores[0].models_per_minute, 10.0 / (69.0 / 60));
  EXPECT_EQ(scores[1].parameters.workers, 2);
  EXPECT_FALSE(scores[1].time_to_train_all_minutes.has_value());
  EXPECT_EQ(scores[1].note, "1 of 2 instances ended");
  EXPECT_EQ(scores[2].note, "no instance converged");
  EXPECT_FALSE(scores[2].models_per_minute.has_value());
  EXPECT_TRUE(ScoreInstances("cosmoflow", {Instance(0, 1, 0, "Succeeded")}).size() == 1);
  SweepPointStatus plain = Instance(0, 1, 0, "Succeeded");
  plain.parameters.instance.reset();
  EXPECT_TRUE(ScoreInstances("cosmoflow", {plain}).empty()) << "a sweep without instances has no weak score";
}

}  // namespace
}  // namespace ergobench
