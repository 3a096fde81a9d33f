#include "operator/controller/reconciler.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "tests/testing/fake_transport.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

const auto kNow = std::chrono::system_clock::from_time_t(1795000000);

json BenchmarkObject(const json& spec, int generation = 1, const json& status = json()) {
  json object = {{"apiVersion", "ergobench.io/v1alpha1"},
                 {"kind", "Benchmark"},
                 {"metadata",
                  {{"name", "b"}, {"namespace", "ns"}, {"uid", "u-1"}, {"generation", generation}, {"resourceVersion", "7"}}},
                 {"spec", spec}};
  if (!status.is_null()) object["status"] = status;
  return object;
}

class ReconcilerTest : public ::testing::Test {
 protected:
  ReconcilerTest() : client_(&transport_) {
    // The API server echoes what it is sent, with a new resourceVersion.
    transport_.handler = [](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
      json body = r.body.empty() ? json::object() : json::parse(r.body);
      if (body.contains("metadata")) body["metadata"]["resourceVersion"] = "8";
      return kube::HttpResponse{r.method == "POST" ? 201 : 200, body.dump()};
    };
    pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  }

  StatusOr<std::optional<std::chrono::seconds>> Reconcile(const json& object, const std::string& runner_image = "") {
    benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {object}});
    BenchmarkReconciler reconciler({&client_, &benchmarks_, &pods_, nullptr, [] { return kNow; }, nullptr, runner_image});
    return reconciler.Reconcile("ns/b");
  }

  std::vector<std::string> Requests() const {
    std::vector<std::string> out;
    for (const auto& r : transport_.requests) out.push_back(r.method + " " + r.path);
    return out;
  }

  json LastStatusWrite() const {
    for (auto it = transport_.requests.rbegin(); it != transport_.requests.rend(); ++it) {
      if (it->method == "PUT") return json::parse(it->body)["status"];
    }
    return json();
  }

  testing::FakeTransport transport_;
  kube::KubeClient client_;
  runtime::Store benchmarks_, pods_;
};

TEST_F(ReconcilerTest, ANewBenchmarkGetsItsChildrenThenItsStatus) {
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(Requests(), (std::vector<std::string>{
                            "POST /api/v1/namespaces/ns/services",
                            "POST /api/v1/namespaces/ns/configmaps",
                            "POST /api/v1/namespaces/ns/pods",
                            "POST /api/v1/namespaces/ns/pods",
                            "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
                            "POST /api/v1/namespaces/ns/events",
                        }));
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["startTime"], Rfc3339(kNow));
  EXPECT_EQ(status["conditions"][0]["type"], "Created");
  // Its own writes are in the caches: a second look changes nothing and sends nothing.
  transport_.requests.clear();
  BenchmarkReconciler again({&client_, &benchmarks_, &pods_, nullptr, [] { return kNow; }, nullptr, ""});
  ASSERT_TRUE(again.Reconcile("ns/b").ok());
  EXPECT_EQ(Requests(), std::vector<std::string>{});
}

std::vector<std::string> PodImages(const std::vector<kube::HttpRequest>& requests) {
  std::vector<std::string> images;
  for (const auto& r : requests) {
    if (r.method == "POST" && r.path == "/api/v1/namespaces/ns/pods") {
      images.push_back(json::parse(r.body)["spec"]["containers"][0]["image"]);
    }
  }
  return images;
}

TEST_F(ReconcilerTest, TheOperatorsRunnerImageFillsOnlyAnEmptySpecImage) {
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 1}}), "registry.example/runner:2").ok());
  EXPECT_EQ(PodImages(transport_.requests), std::vector<std::string>{"registry.example/runner:2"});

  transport_.requests.clear();
  pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  json named = BenchmarkObject({{"task", "0a"}, {"workers", 1}, {"image", "mine:1"}});
  named["metadata"]["uid"] = "u-2";
  ASSERT_TRUE(Reconcile(named, "registry.example/runner:2").ok());
  EXPECT_EQ(PodImages(transport_.requests), std::vector<std::string>{"mine:1"});
}

TEST_F(ReconcilerTest, InvalidIsWrittenOnceAndStartsOverAfterAnEdit) {
  const json bad = {{"task", "0a"}, {"workers", 2}, {"hyperparameters", {{"repetitons", 5}}}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(bad)).ok());
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["conditions"][0]["reason"], "Invalid");
  EXPECT_NE(status["conditions"][0]["message"].get<std::string>().find("spec.hyperparameters.repetitons"),
            std::string::npos);
  EXPECT_EQ(Requests().size(), 2u);  // the status and an Event; nothing created

  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(bad, 1, status)).ok());
  EXPECT_TRUE(Requests().empty()) << "no retry of the same generation";

  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}, 2, status)).ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Pending");
  EXPECT_EQ(LastStatusWrite()["conditions"].size(), 1u);
}

TEST_F(ReconcilerTest, MpiIsRefusedInACluster) {
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}, {"backend", "mpi"}})).ok());
  EXPECT_NE(LastStatusWrite()["conditions"][0]["message"].get<std::string>().find("spec.backend"), std::string::npos);
}

TEST_F(ReconcilerTest, ApiErrorsComeBackForARetry) {
  transport_.handler = [](const kube::HttpRequest&) -> StatusOr<kube::HttpResponse> {
    return kube::HttpResponse{403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"cannot create pods"})"};
  };
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(result.status().message().find("create Service b-workers"), std::string::npos);
}

// The pods the last reconcile created, as the kubelet reports them once they run.
std::vector<json> RunningPodsCreatedBy(const std::vector<kube::HttpRequest>& requests) {
  std::vector<json> pods;
  for (const auto& r : requests) {
    if (r.method != "POST" || r.path != "/api/v1/namespaces/ns/pods") continue;
    json pod = json::parse(r.body);
    pod["status"] = {{"phase", "Running"}, {"podIP", "10.0.0." + std::to_string(pods.size() + 1)}};
    pods.push_back(pod);
  }
  return pods;
}

TEST_F(ReconcilerTest, RunningStatusCarriesThePollersProgressOfTheCurrentGang) {
  const json spec = {{"task", "fmnist"}, {"workers", 2}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec)).ok());
  const json pending = LastStatusWrite();
  pods_.Apply({runtime::WatcherEvent::kRestarted, RunningPodsCreatedBy(transport_.requests)});
  benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, pending)}});
  ProgressCache progress;
  progress.Put("ns/b", /*attempt=*/0, Progress{2, 300, "accuracy", 0.71});
  transport_.requests.clear();

  BenchmarkReconciler reconciler({&client_, &benchmarks_, &pods_, &progress, [] { return kNow; }, nullptr, ""});
  ASSERT_TRUE(reconciler.Reconcile("ns/b").ok());
  const json running = LastStatusWrite();
  EXPECT_EQ(running["phase"], "Running");
  EXPECT_EQ(running["progress"], json({{"epoch", 2}, {"step", 300}, {"metric", "accuracy"}, {"value", 0.71}}));
}

TEST_F(ReconcilerTest, ABenchmarkBeingDeletedIsLeftAlone) {
  json object = BenchmarkObject({{"task", "0a"}, {"workers", 2}});
  object["metadata"]["deletionTimestamp"] = "2026-11-22T06:00:00Z";
  ASSERT_TRUE(Reconcile(object).ok());
  EXPECT_TRUE(Requests().empty());
}

}  // namespace
}  // namespace ergobench::controller
