#include "operator/controller/sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include "operator/controller/common/conditions.h"
#include "operator/controller/common/ownership.h"
#include "tests/testing/golden.h"

namespace ergobench::controller {
namespace {

using testing::ExpectGolden;

const char kSweepNow[] = "2026-11-24T10:00:00Z";

BenchmarkSweep Sweep(int64_t concurrency = 1, const std::string& failure_policy = kFailureContinue) {
  BenchmarkSweep s;
  s.kind = kSweepKind;
  s.metadata.name = "scale";
  s.metadata.namespace_name = "team";
  s.metadata.uid = "sweep-uid";
  s.metadata.generation = 1;
  s.spec.template_spec = {{"task", "fmnist"}, {"goal", {{"light", true}}}};
  s.spec.matrix.workers = {1, 2, 4};
  s.spec.concurrency = concurrency;
  s.spec.failure_policy = failure_policy;
  return s;
}

std::vector<SweepPoint> Points(const BenchmarkSweep& sweep) {
  FieldErrors errors;
  std::vector<SweepPoint> points = ExpandSweep(sweep, &errors);
  EXPECT_TRUE(errors.empty()) << errors.ToString();
  return points;
}

// The child of `point` as the cache would hold it, in `phase`.
SweepChild Child(const BenchmarkSweep& sweep, const SweepPoint& point, const std::string& phase,
                 std::optional<double> samples_per_second = std::nullopt) {
  SweepChild child = ReadSweepChild(BuildSweepChild(sweep, point));
  child.benchmark.metadata.uid = "uid-" + std::to_string(point.index);
  child.benchmark.status.phase = phase;
  if (phase == "Failed") child.benchmark.status.conditions = {{"Failed", "True", "PodFailed", "rank 0 exited with 1", "", 1}};
  if (samples_per_second) {
    child.benchmark.status.results = BenchmarkResults{};
    child.benchmark.status.results->figures.samples_per_second = samples_per_second;
  }
  return child;
}

std::vector<std::string> Created(const SweepPlan& plan) {
  std::vector<std::string> names;
  for (const nlohmann::json& c : plan.create) names.push_back(c["metadata"]["name"]);
  return names;
}

// MLPerf HPC's weak scaling trains a point's instances at once: the concurrency a sweep with
// instances has unwritten is theirs, and each child trains from its own seed.
TEST(SweepPlan, InstancesStartTogetherEachWithItsSeed) {
  FieldErrors errors;
  const BenchmarkSweep sweep = DecodeSweep(
      {{"apiVersion", kApiVersion}, {"kind", kSweepKind}, {"metadata", {{"name", "weak"}, {"namespace", "team"}}},
       {"spec", {{"template", {{"task", "fmnist"}, {"goal", {{"light", true}}}}}, {"instances", 3}}}},
      &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  const SweepPlan plan = PlanSweep(sweep, Points(sweep), {}, kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"weak-0", "weak-1", "weak-2"}));
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(plan.create[i]["spec"]["hyperparameters"]["seed"], 42 + i);
}

TEST(SweepPlan, ChildIsTheOwnedPointWithItsLabelsAndDigest) {
  const BenchmarkSweep sweep = Sweep();
  ExpectGolden(BuildSweepChild(sweep, Points(sweep)[1]), "sweep-child.json");
}

TEST(SweepPlan, StartsPointsInOrderUpToTheConcurrencyLimit) {
  const BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> points = Points(sweep);
  SweepPlan plan = PlanSweep(sweep, points, {}, kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-0"}));
  EXPECT_EQ(plan.status.phase, "Running");
  EXPECT_EQ(plan.status.progress, "0/3");
  EXPECT_EQ(plan.status.start_time, kSweepNow);
  EXPECT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].message, "point scale-0 (workers=1 backend=gloo)");

  plan = PlanSweep(sweep, points, {Child(sweep, points[0], "Running")}, kSweepNow);
  EXPECT_TRUE(plan.create.empty()) << "one point at a time";
  plan = PlanSweep(sweep, points, {Child(sweep, points[0], "Succeeded", 100)}, kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-1"}));
  EXPECT_EQ(plan.status.progress, "1/3");

  const BenchmarkSweep wide = Sweep(2);
  plan = PlanSweep(wide, Points(wide), {}, kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-0", "scale-1"}));
}

TEST(SweepPlan, SucceedsWhenEveryPointDidWithTheBestPoint) {
  BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> points = Points(sweep);
  const std::vector<SweepChild> children = {Child(sweep, points[0], "Succeeded", 100),
                                            Child(sweep, points[1], "Succeeded", 170),
                                            Child(sweep, points[2], "Succeeded", 240)};
  const SweepPlan plan = PlanSweep(sweep, points, children, kSweepNow);
  EXPECT_TRUE(plan.create.empty());
  EXPECT_EQ(plan.status.phase, "Succeeded");
  EXPECT_EQ(plan.status.completion_time, kSweepNow);
  EXPECT_EQ(plan.status.best, "scale-2 (240 samples/s)");
  EXPECT_DOUBLE_EQ(*plan.status.points[2].efficiency, 0.6);
  EXPECT_TRUE(IsConditionTrue(plan.status.conditions, "Succeeded"));
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].reason, "AllPointsSucceeded");
  sweep.status = plan.status;
  EXPECT_TRUE(PlanSweep(sweep, points, children, kSweepNow).events.empty()) << "said once";
}

TEST(SweepPlan, AFailedPointDoesNotStopTheOthersUnlessAsked) {
  BenchmarkSweep sweep = Sweep();
  std::vector<SweepPoint> points = Points(sweep);
  SweepPlan plan = PlanSweep(sweep, points, {Child(sweep, points[0], "Failed")}, kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-1"}));
  EXPECT_EQ(plan.status.failed, 1);
  ASSERT_EQ(plan.events.size(), 2u);
  EXPECT_EQ(plan.events[0].reason, "PointStarted");
  EXPECT_EQ(plan.events[1].reason, "PointFailed");
  EXPECT_EQ(plan.events[1].message, "point scale-0 (workers=1 backend=gloo) failed: PodFailed: rank 0 exited with 1");
  plan = PlanSweep(sweep, points,
                   {Child(sweep, points[0], "Failed"), Child(sweep, points[1], "Succeeded", 90),
                    Child(sweep, points[2], "Succeeded", 150)},
                   kSweepNow);
  EXPECT_EQ(plan.status.phase, "Failed");
  EXPECT_EQ(FindCondition(plan.status.conditions, "Failed")->reason, "PointsFailed");
  EXPECT_EQ(plan.status.points[2].baseline, "scale-1") << "the fewest workers that succeeded";

  sweep = Sweep(1, kFailureStop);
  points = Points(sweep);
  plan = PlanSweep(sweep, points, {Child(sweep, points[0], "Failed")}, kSweepNow);
  EXPECT_TRUE(plan.create.empty());
  EXPECT_EQ(plan.status.phase, "Failed");
  EXPECT_EQ(plan.status.progress, "1/3");
  EXPECT_EQ(FindCondition(plan.status.conditions, "Failed")->message,
            "1 of 3 points failed: scale-0 (PodFailed: rank 0 exited with 1); failurePolicy Stop: the other points "
            "did not run");
}

TEST(SweepPlan, AnEditRunsOnlyThePointsItChanged) {
  BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> before = Points(sweep);
  const std::vector<SweepChild> children = {Child(sweep, before[0], "Succeeded", 100),
                                            Child(sweep, before[1], "Succeeded", 170),
                                            Child(sweep, before[2], "Running")};
  sweep.metadata.generation = 2;
  sweep.spec.matrix.workers = {1, 3};  // point 1 changes, point 2 goes
  const SweepPlan plan = PlanSweep(sweep, Points(sweep), children, kSweepNow);
  EXPECT_EQ(plan.remove, (std::vector<std::pair<std::string, std::string>>{{"scale-1", "uid-1"}, {"scale-2", "uid-2"}}));
  EXPECT_TRUE(plan.create.empty()) << "not until the replaced children are gone";
  EXPECT_EQ(plan.status.points[0].phase, "Succeeded") << "an unchanged point keeps its result";
  EXPECT_EQ(plan.status.points.size(), 2u);
  EXPECT_EQ(plan.status.observed_generation, 2);

  SweepChild gone = children[1];
  gone.deleting = true;
  EXPECT_TRUE(PlanSweep(sweep, Points(sweep), {children[0], gone}, kSweepNow).create.empty());
  EXPECT_EQ(Created(PlanSweep(sweep, Points(sweep), {children[0]}, kSweepNow)), (std::vector<std::string>{"scale-1"}));
}

// The audit's endless rerun: a point's state came only from its live child, so a child deleted
// after it ended (its ttlSecondsAfterFinished, or by hand) was created again, and again. The
// sweep's status keeps each ended point, for the spec it ran, and counts it in the speedups.
TEST(SweepPlan, AnEndedPointWhoseChildIsGoneNeverRunsAgain) {
  BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> points = Points(sweep);
  SweepPlan plan = PlanSweep(sweep, points, {Child(sweep, points[0], "Succeeded", 100), Child(sweep, points[1], "Failed")},
                             kSweepNow);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-2"}));
  sweep.status = plan.status;

  // Both ended children are gone; the third runs.
  plan = PlanSweep(sweep, points, {Child(sweep, points[2], "Running")}, kSweepNow);
  EXPECT_TRUE(plan.create.empty()) << Created(plan)[0];
  EXPECT_EQ(plan.status.progress, "2/3");
  EXPECT_EQ(plan.status.points[0].phase, "Succeeded");
  EXPECT_EQ(plan.status.points[0].figures.at("samplesPerSecond").median, 100);
  EXPECT_EQ(plan.status.points[1].message, "PodFailed: rank 0 exited with 1");
  sweep.status = plan.status;

  // The third ends and goes too: compared with the first, which no child holds any more.
  plan = PlanSweep(sweep, points, {Child(sweep, points[2], "Succeeded", 240)}, kSweepNow);
  EXPECT_EQ(plan.status.points[2].baseline, "scale-0");
  EXPECT_DOUBLE_EQ(*plan.status.points[2].speedup, 2.4);
  EXPECT_DOUBLE_EQ(*plan.status.points[2].efficiency, 0.6);
  sweep.status = plan.status;
  plan = PlanSweep(sweep, points, {}, kSweepNow);
  EXPECT_TRUE(plan.create.empty());
  EXPECT_EQ(plan.status.phase, "Failed");
  EXPECT_EQ(plan.status.progress, "3/3");
  EXPECT_EQ(plan.status.best, "scale-2 (240 samples/s)");

  // An edit that changes a point runs it again, and only it.
  sweep.status = plan.status;
  sweep.metadata.generation = 2;
  sweep.spec.matrix.workers = {1, 3, 4};
  EXPECT_EQ(Created(PlanSweep(sweep, Points(sweep), {}, kSweepNow)), (std::vector<std::string>{"scale-1"}));
}

TEST(SweepPlan, ASweepAwaitsTheEndOfItsOwnPointsOnly) {
  const BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> points = Points(sweep);
  const nlohmann::json child = BuildSweepChild(sweep, points[0]);
  nlohmann::json object = {{"metadata", {{"name", "scale"}, {"uid", "sweep-uid"}}},
                           {"status", {{"points", {{{"benchmark", "scale-0"}, {"phase", "Running"}}}}}}};
  EXPECT_TRUE(SweepAwaitsItsEnd(child, &object));
  object["status"]["points"][0]["phase"] = "Failed";
  EXPECT_FALSE(SweepAwaitsItsEnd(child, &object)) << "read";
  object["status"] = nlohmann::json::object();
  EXPECT_TRUE(SweepAwaitsItsEnd(child, &object)) << "not yet in its status";
  object["metadata"]["deletionTimestamp"] = kSweepNow;
  EXPECT_FALSE(SweepAwaitsItsEnd(child, &object)) << "a sweep being deleted reads nothing more";
  object["metadata"].erase("deletionTimestamp");
  object["metadata"]["uid"] = "other";
  EXPECT_FALSE(SweepAwaitsItsEnd(child, &object)) << "a namesake";
  EXPECT_FALSE(SweepAwaitsItsEnd(child, nullptr)) << "gone";
}

TEST(SweepPlan, ANamesakeItDoesNotOwnFailsItsPointAndIsLeftAlone) {
  const BenchmarkSweep sweep = Sweep();
  const std::vector<SweepPoint> points = Points(sweep);
  SweepChild namesake = Child(sweep, points[0], "Succeeded", 5);
  namesake.controller_uid = "";
  const SweepPlan plan = PlanSweep(sweep, points, {namesake}, kSweepNow);
  EXPECT_TRUE(plan.remove.empty());
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"scale-1"}));
  EXPECT_EQ(plan.status.points[0].phase, "Failed");
  EXPECT_EQ(plan.status.points[0].message.rfind("NameTaken: ", 0), 0u);
}

TEST(SweepPlan, AnInvalidSweepFailsWithTheReason) {
  const BenchmarkSweepStatus status = InvalidSweepStatus(Sweep(), "spec.order: must be one of ...", kSweepNow);
  EXPECT_EQ(status.phase, "Failed");
  EXPECT_EQ(FindCondition(status.conditions, "Failed")->reason, "Invalid");
  EXPECT_EQ(FindCondition(status.conditions, "Failed")->message, "spec.order: must be one of ...");
}

}  // namespace
}  // namespace ergobench::controller
