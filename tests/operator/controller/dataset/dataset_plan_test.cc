#include "operator/controller/dataset/dataset_plan.h"

#include <gtest/gtest.h>

namespace ergobench::controller {
namespace {

constexpr char kDatasetNow[] = "2026-11-24T10:00:00Z";

Dataset UrlDataset(int64_t generation = 1) {
  Dataset d;
  d.api_version = kApiVersion;
  d.kind = kDatasetKind;
  d.metadata.name = "cifar";
  d.metadata.namespace_name = "ns";
  d.metadata.uid = "d-1";
  d.metadata.generation = generation;
  d.spec.source.url = "http://10.0.0.1/c.tgz";
  d.spec.source.sha256 = std::string(64, 'a');
  d.spec.storage.size = "1Gi";
  return d;
}

StagingPod Ended(bool succeeded, int exit_code, std::string message, std::string at, int64_t generation = 1) {
  StagingPod pod;
  pod.generation = generation;
  pod.succeeded = succeeded;
  pod.exit_code = exit_code;
  pod.message = std::move(message);
  pod.finished_at = std::move(at);
  pod.failed_tries = succeeded ? 0 : 1;
  return pod;
}

TEST(DatasetPlanTest, ANewUrlDatasetCreatesItsClaimAndJobAndStages) {
  const DatasetPlan plan = PlanDataset(UrlDataset(), std::nullopt, {}, kDatasetNow);
  EXPECT_TRUE(plan.create_claim);
  EXPECT_TRUE(plan.create_job);
  EXPECT_EQ(plan.status.phase, kDatasetStaging);
  EXPECT_EQ(plan.status.claim_name, "cifar-data");
  EXPECT_EQ(plan.status.path, std::string(64, 'a') + "/data");
  EXPECT_EQ(plan.status.conditions.at(0).reason, "Staging");
  EXPECT_EQ(plan.status.observed_generation, 1);
}

TEST(DatasetPlanTest, AFailedTryIsRetriedByTheJobAndSaidInStatus) {
  StagingJob job{"j-1", 1, false, false, ""};
  const DatasetPlan plan = PlanDataset(UrlDataset(), job, {Ended(false, 1, "cannot download: connection reset", "t1")}, kDatasetNow);
  EXPECT_FALSE(plan.create_job);
  EXPECT_EQ(plan.delete_job_uid, "");
  EXPECT_EQ(plan.status.phase, kDatasetStaging);
  EXPECT_NE(plan.status.conditions.at(0).message.find("try 2, the last ended: cannot download: connection reset"),
            std::string::npos);
}

// The kubelet restarts a failed try in the same pod (restartPolicy OnFailure): its restarts
// are tries too.
TEST(DatasetPlanTest, TriesAreCountedAcrossRestartsInOnePod) {
  StagingJob job{"j-1", 1, false, false, ""};
  StagingPod restarted = Ended(false, 1, "cannot download: timed out", "t3");
  restarted.failed_tries = 2;
  const DatasetPlan plan = PlanDataset(UrlDataset(), job, {restarted}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetStaging);
  EXPECT_NE(plan.status.conditions.at(0).message.find("try 3, the last ended: cannot download: timed out"),
            std::string::npos) << plan.status.conditions.at(0).message;
}

TEST(DatasetPlanTest, ACompleteJobMakesItReadyWithWhatWasStagedAndGoes) {
  StagingJob job{"j-1", 1, true, false, ""};
  const DatasetPlan plan = PlanDataset(
      UrlDataset(), job, {Ended(true, 0, R"({"path":"x","bytes":185000000,"files":8})", "t2")}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetReady);
  EXPECT_EQ(plan.status.conditions.at(0).status, "True");
  EXPECT_EQ(plan.status.bytes, 185000000);
  EXPECT_EQ(plan.status.size, "176Mi") << "kubectl's Size column";
  EXPECT_EQ(plan.status.files, 8);
  EXPECT_EQ(plan.status.staged_time, kDatasetNow);
  EXPECT_EQ(plan.delete_job_uid, "j-1");
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].reason, "Staged");
}

// The staging Job's time and its rate: 185 MB extracted in 7.4 s is 25 MB/s.
TEST(DatasetPlanTest, TheStagingTimeAndRateAreKept) {
  StagingJob job{"j-1", 1, true, false, ""};
  const DatasetPlan plan = PlanDataset(
      UrlDataset(), job, {Ended(true, 0, R"({"path":"x","bytes":185000000,"files":8,"seconds":7.4})", "t2")},
      kDatasetNow);
  EXPECT_EQ(plan.status.staging_seconds, 7.4);
  EXPECT_DOUBLE_EQ(*plan.status.staging_bytes_per_second, 25e6);
}

// The result is a pod's termination message: a time that is not one is left out, not kept.
TEST(DatasetPlanTest, AStagingTimeThatIsNotOneIsLeftOut) {
  StagingJob job{"j-1", 1, true, false, ""};
  for (const char* seconds : {"-1", "\"7.4\"", "1e300", "null", "[1]"}) {
    const std::string result = std::string(R"({"path":"x","bytes":185000000,"files":8,"seconds":)") + seconds + "}";
    const DatasetPlan plan = PlanDataset(UrlDataset(), job, {Ended(true, 0, result, "t2")}, kDatasetNow);
    EXPECT_EQ(plan.status.phase, kDatasetReady) << seconds;
    EXPECT_EQ(plan.status.bytes, 185000000) << seconds;
    EXPECT_FALSE(plan.status.staging_seconds) << seconds;
    EXPECT_FALSE(plan.status.staging_bytes_per_second) << seconds;
  }
  const DatasetPlan instant = PlanDataset(  // already there: no time, no rate to divide by it
      UrlDataset(), job, {Ended(true, 0, R"({"path":"x","bytes":185000000,"files":8,"seconds":0})", "t2")}, kDatasetNow);
  EXPECT_EQ(instant.status.staging_seconds, 0.0);
  EXPECT_FALSE(instant.status.staging_bytes_per_second);
}

// A checksum mismatch will not pass on a retry: the Dataset fails at once and the Job goes.
TEST(DatasetPlanTest, APermanentErrorFailsAtOnceAndStopsTheRetries) {
  StagingJob job{"j-1", 1, false, false, ""};
  const DatasetPlan plan =
      PlanDataset(UrlDataset(), job, {Ended(false, 2, "spec.dataset.sha256: http://x has sha256 b, expected a", "t1")}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetFailed);
  EXPECT_EQ(plan.status.conditions.at(0).reason, "StagingFailed");
  EXPECT_EQ(plan.status.conditions.at(0).message, "spec.dataset.sha256: http://x has sha256 b, expected a");
  EXPECT_EQ(plan.delete_job_uid, "j-1");
}

TEST(DatasetPlanTest, AJobOutOfTriesFailsWithTheLastError) {
  StagingJob job{"j-1", 1, false, true, "Job has reached the specified backoff limit"};
  const DatasetPlan plan = PlanDataset(UrlDataset(), job,
                                       {Ended(false, 1, "timeout", "t1"), Ended(false, 1, "connection refused", "t2")}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetFailed);
  EXPECT_EQ(plan.status.conditions.at(0).message, "connection refused (Job has reached the specified backoff limit)");
}

// The audit's Medium: a server trickling just above the low-speed limit held the staging pod and
// its claim for as long as it liked. The Job's deadline ends it, and the Dataset says so.
TEST(DatasetPlanTest, AJobPastItsDeadlineFailsSayingSo) {
  const nlohmann::json job = {
      {"metadata", {{"uid", "j-1"}, {"labels", {{"ergobench.io/generation", "1"}}}}},
      {"status", {{"conditions", {{{"type", "Failed"}, {"status", "True"}, {"reason", "DeadlineExceeded"},
                                   {"message", "Job was active longer than specified deadline"}}}}}}};
  const DatasetPlan plan = PlanDataset(UrlDataset(), ReadStagingJob(job), {}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetFailed);
  EXPECT_EQ(plan.status.conditions.at(0).reason, "StagingFailed");
  EXPECT_EQ(plan.status.conditions.at(0).message, "Job was active longer than specified deadline");
  EXPECT_EQ(plan.delete_job_uid, "j-1");
}

// An edit stages the new generation from the start: the old Job goes first, the claim stays.
TEST(DatasetPlanTest, AnEditReplacesTheOldGenerationsJob) {
  Dataset edited = UrlDataset(2);
  edited.status.phase = kDatasetReady;
  edited.status.observed_generation = 1;
  StagingJob old{"j-1", 1, true, false, ""};
  DatasetPlan plan = PlanDataset(edited, old, {Ended(true, 0, "{}", "t1", 1)}, kDatasetNow);
  EXPECT_EQ(plan.delete_job_uid, "j-1");
  EXPECT_FALSE(plan.create_job);
  EXPECT_EQ(plan.status.phase, kDatasetStaging);
  plan = PlanDataset(edited, std::nullopt, {}, kDatasetNow);
  EXPECT_TRUE(plan.create_job);
}

TEST(DatasetPlanTest, ASettledGenerationCreatesNothing) {
  Dataset ready = UrlDataset();
  ready.status.phase = kDatasetReady;
  ready.status.observed_generation = 1;
  const DatasetPlan plan = PlanDataset(ready, std::nullopt, {}, kDatasetNow);
  EXPECT_FALSE(plan.create_claim);
  EXPECT_FALSE(plan.create_job);
  EXPECT_EQ(plan.status.phase, kDatasetReady);
}

TEST(DatasetPlanTest, AnExistingClaimIsReadyAtOnce) {
  Dataset d = UrlDataset();
  d.spec.source = {};
  d.spec.source.claim_name = "nfs-cifar";
  d.spec.source.claim_path = "cifar";
  const DatasetPlan plan = PlanDataset(d, std::nullopt, {}, kDatasetNow);
  EXPECT_FALSE(plan.create_claim);
  EXPECT_FALSE(plan.create_job);
  EXPECT_EQ(plan.status.phase, kDatasetReady);
  EXPECT_EQ(plan.status.claim_name, "nfs-cifar");
  EXPECT_EQ(plan.status.path, "cifar");
}

TEST(DatasetPlanTest, ReadsTheJobsEndAndThePodsExit) {
  const nlohmann::json job = {{"metadata", {{"uid", "j"}, {"labels", {{"ergobench.io/generation", "3"}}}}},
                              {"status", {{"conditions", {{{"type", "Failed"}, {"status", "True"}, {"message", "deadline"}}}}}}};
  const StagingJob read = ReadStagingJob(job);
  EXPECT_EQ(read.generation, 3);
  EXPECT_TRUE(read.failed);
  EXPECT_EQ(read.failure, "deadline");
  const nlohmann::json pod = {
      {"metadata", {{"labels", {{"ergobench.io/generation", "3"}}}}},
      {"status",
       {{"phase", "Failed"},
        {"containerStatuses", {{{"state", {{"terminated", {{"exitCode", 2}, {"message", "bad sum"}, {"finishedAt", "t"}}}}}}}}}}};
  const auto ended = ReadStagingPod(pod);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->exit_code, 2);
  EXPECT_EQ(ended->message, "bad sum");
  EXPECT_EQ(ended->failed_tries, 1);
  EXPECT_FALSE(ReadStagingPod({{"metadata", nlohmann::json::object()}, {"status", {{"phase", "Running"}}}}).has_value());
}

// A try that failed and waits for its restart: the pod runs on, its last try is in lastState.
TEST(DatasetPlanTest, ReadsATryThatWaitsForItsRestart) {
  const nlohmann::json pod = nlohmann::json::parse(R"({
    "metadata": {"labels": {"ergobench.io/generation": "1"}},
    "status": {"phase": "Running", "containerStatuses": [{
      "restartCount": 1,
      "state": {"waiting": {"reason": "CrashLoopBackOff"}},
      "lastState": {"terminated": {"exitCode": 2, "message": "bad sum", "finishedAt": "t1"}}}]}})");
  const auto ended = ReadStagingPod(pod);
  ASSERT_TRUE(ended.has_value());
  EXPECT_FALSE(ended->succeeded);
  EXPECT_EQ(ended->exit_code, 2);
  EXPECT_EQ(ended->message, "bad sum");
  EXPECT_EQ(ended->failed_tries, 1);
  const DatasetPlan plan = PlanDataset(UrlDataset(), StagingJob{"j-1", 1, false, false, ""}, {*ended}, kDatasetNow);
  EXPECT_EQ(plan.status.phase, kDatasetFailed);
  EXPECT_EQ(plan.delete_job_uid, "j-1");
}

}  // namespace
}  // namespace ergobench::controller
