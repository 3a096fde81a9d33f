#include "cli/cluster/cluster_run.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cli/exit_codes.h"
#include "tests/testing/fake_transport.h"
#include "tests/testing/temp_dir.h"

namespace ergobench {
namespace {

using testing::FakeTransport;
using testing::Json;

constexpr char kSmokeBenchmark[] = R"(apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: smoke}
spec: {task: 0a, workers: 1}
)";

nlohmann::json ReadAnswer(const std::string& phase, const nlohmann::json& display, const nlohmann::json& conditions = nlohmann::json::array()) {
  return {{"kind", "Benchmark"},
          {"metadata", {{"name", "smoke"}, {"namespace", "team"}}},
          {"status", {{"phase", phase}, {"display", display}, {"conditions", conditions}}}};
}

class ClusterRunTest : public ::testing::Test {
 protected:
  ClusterRunOptions Options(const std::string& text) {
    const std::string path = (dir_.path() / "b.yaml").string();
    std::ofstream(path) << text;
    ClusterRunOptions options;
    options.files = {path};
    options.poll_seconds = 2;
    return options;
  }

  int Run(const ClusterRunOptions& options) {
    kube::KubeClient client(&transport_);
    ClusterRunClock clock{[this] { return now_; }, [this](double s) { now_ += s, ++sleeps_; },
                          [this] { return interrupt_at_ > 0 && now_ >= interrupt_at_; }};
    return RunOnCluster(options, client, "team", clock);
  }

  std::vector<std::string> Verbs() const {
    std::vector<std::string> verbs;
    for (const auto& r : transport_.requests) verbs.push_back(r.method + " " + r.path);
    return verbs;
  }

  TempDir dir_;
  FakeTransport transport_;
  double now_ = 0;
  int sleeps_ = 0;
  double interrupt_at_ = 0;
};

// Created as written in the default namespace, read every poll until it ends, then gone with --rm.
TEST_F(ClusterRunTest, CreatesFollowsToTheEndAndRemoves) {
  const nlohmann::json created = ReadAnswer("", nlohmann::json::object());
  transport_.responses = {Json(201, created.dump()),
                          Json(200, ReadAnswer("Running", {{"progress", "starting"}}).dump()),
                          Json(200, ReadAnswer("Running", {{"progress", "50% · ≤0:10 left"}}).dump()),
                          Json(200, ReadAnswer("Succeeded", {{"progress", "done"}, {"throughput", "1.2 GB/s"}}).dump()),
                          Json(200, "{}")};
  ClusterRunOptions options = Options(kSmokeBenchmark);
  options.remove = true;
  EXPECT_EQ(Run(options), kExitOk);
  EXPECT_EQ(Verbs(), (std::vector<std::string>{
                         "POST /apis/ergobench.io/v1alpha1/namespaces/team/benchmarks",
                         "GET /apis/ergobench.io/v1alpha1/namespaces/team/benchmarks/smoke",
                         "GET /apis/ergobench.io/v1alpha1/namespaces/team/benchmarks/smoke",
                         "GET /apis/ergobench.io/v1alpha1/namespaces/team/benchmarks/smoke",
                         "DELETE /apis/ergobench.io/v1alpha1/namespaces/team/benchmarks/smoke"}));
  const nlohmann::json sent = nlohmann::json::parse(transport_.requests[0].body);
  EXPECT_EQ(sent["spec"], nlohmann::json({{"task", "0a"}, {"workers", 1}})) << "as written: the operator defaults it";
  EXPECT_EQ(sent["metadata"]["namespace"], "team");
  EXPECT_EQ(sleeps_, 2) << "one poll interval between reads";
}

TEST_F(ClusterRunTest, AFailedRunExitsOneAndATimeoutCountsAsFailed) {
  const nlohmann::json failed = ReadAnswer("Failed", nlohmann::json::object(),
                           {{{"type", "Failed"}, {"status", "True"}, {"reason", "PodFailed"}, {"message", "rank 0"}}});
  transport_.responses = {Json(201, "{}"), Json(200, failed.dump())};
  EXPECT_EQ(Run(Options(kSmokeBenchmark)), kExitFailed);
  EXPECT_EQ(ClusterOutcomeLine(failed), "smoke: Failed (PodFailed: rank 0)");

  transport_.requests.clear();
  transport_.handler = [](const kube::HttpRequest& request) -> StatusOr<kube::HttpResponse> {
    if (request.method == "POST") return Json(201, "{}");
    return Json(200, ReadAnswer("Running", nlohmann::json::object()).dump());
  };
  ClusterRunOptions options = Options(kSmokeBenchmark);
  options.timeout_seconds = 5;
  now_ = 0;
  EXPECT_EQ(Run(options), kExitFailed);
  EXPECT_EQ(now_, 6) << "reads at 0, 2, 4 and 6 s: 6 is past 5";
}

TEST_F(ClusterRunTest, BadInputCreatesNothingAndATakenNameIsBadInput) {
  EXPECT_EQ(Run(Options("apiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: smoke}\n"
                        "spec: {task: 0a, workers: 0}\n")),
            kExitBadInput);
  EXPECT_TRUE(transport_.requests.empty()) << "validated before anything is created";
  transport_.responses = {Json(409, R"({"kind":"Status","reason":"AlreadyExists","message":"exists"})")};
  EXPECT_EQ(Run(Options(kSmokeBenchmark)), kExitBadInput);
  transport_.responses = {Json(403, R"({"kind":"Status","reason":"Forbidden","message":"no"})")};
  EXPECT_EQ(Run(Options(kSmokeBenchmark)), kExitCluster);
}

TEST_F(ClusterRunTest, CtrlCStopsFollowingAndRemoveStillDeletes) {
  transport_.handler = [](const kube::HttpRequest& request) -> StatusOr<kube::HttpResponse> {
    if (request.method == "POST") return Json(201, "{}");
    if (request.method == "DELETE") return Json(200, "{}");
    return Json(200, ReadAnswer("Running", nlohmann::json::object()).dump());
  };
  interrupt_at_ = 4;
  ClusterRunOptions options = Options(kSmokeBenchmark);
  options.remove = true;
  EXPECT_EQ(Run(options), kExitInterrupted);
  EXPECT_EQ(transport_.requests.back().method, "DELETE");
}

TEST(ClusterRunLines, ProgressAndOutcomeAreTheColumnsKubectlShows) {
  const nlohmann::json running = ReadAnswer("Running", {{"progress", "42% · epoch 3/164"}});
  EXPECT_EQ(ClusterProgressLine(running), "smoke · Running · 42% · epoch 3/164");
  EXPECT_EQ(ClusterProgressLine(nlohmann::json{{"metadata", {{"name", "new"}}}}), "new · Pending");
  const nlohmann::json done = ReadAnswer("Succeeded", {{"throughput", "13.8k samples/s"}, {"timeToAccuracy", "4.9 s"},
                                       {"energy", "35.2 kJ"}, {"cost", "0.00189 USD"}});
  EXPECT_EQ(ClusterOutcomeLine(done), "smoke: Succeeded · 13.8k samples/s · TTA 4.9 s · 35.2 kJ · 0.00189 USD");
  const nlohmann::json sweep = {{"kind", "BenchmarkSweep"},
                      {"metadata", {{"name", "scaling"}}},
                      {"status", {{"phase", "Running"}, {"progress", "3/6"}}}};
  EXPECT_EQ(ClusterProgressLine(sweep), "scaling · Running · 3/6 points");
}

}  // namespace
}  // namespace ergobench
