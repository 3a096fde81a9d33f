#include "operator/controller/benchmark/reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <thread>

#include <map>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/result.h"
#include "base/rfc3339.h"
#include "kube/client/api_error.h"
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

// A pod as the scheduler and the kubelet leave it once it runs.
json Started(json pod, size_t index) {
  pod["spec"]["nodeName"] = "node-" + pod["metadata"]["labels"].value("ergobench.io/rank", "launcher");
  pod["status"] = {{"phase", "Running"}, {"podIP", "10.0.0." + std::to_string(index + 1)}};
  return pod;
}

// The pods the last reconcile created, as the kubelet reports them once they run.
std::vector<json> RunningPodsCreatedBy(const std::vector<kube::HttpRequest>& requests) {
  std::vector<json> pods;
  for (const auto& r : requests) {
    if (r.method != "POST" || r.path != "/api/v1/namespaces/ns/pods") continue;
    pods.push_back(Started(json::parse(r.body), pods.size()));
  }
  return pods;
}

// The gang's pods as the kubelet leaves them when every rank has succeeded: each rank's result
// is its termination message.
// `node`: the node each rank says it ran on (the downward API's), and an hour's timed region.
std::vector<json> Succeeded(std::vector<json> pods, const std::string& node = "") {
  for (json& pod : pods) {
    RankResult result;
    if (!node.empty()) {
      result.environment["node"] = node;
      result.figures.run_seconds = 3600;
    }
    result.rank = std::stoi(pod["metadata"]["labels"]["ergobench.io/rank"].get<std::string>());
    result.benchmark = "b";
    result.task = "0a";
    result.world_size = 2;
    result.status = kRankSucceeded;
    result.summary = "rank " + std::to_string(result.rank) + " succeeded";
    pod["status"]["phase"] = "Succeeded";
    pod["status"]["containerStatuses"] = {
        {{"name", "runner"},
         {"state", {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}, {"message", SerializeRankResult(result)}}}}}}};
  }
  return pods;
}

// A k=2 Benchmark's first reconcile when it has a Secret too (MPI's keys, rank 0's token): the
// children concurrently (sorted by Requests()), the peer, the status.
const std::vector<std::string> kFirstRoundWithASecret = {
    "POST /api/v1/namespaces/ns/configmaps",
    "POST /api/v1/namespaces/ns/secrets",
    "POST /api/v1/namespaces/ns/services",
    "POST /api/v1/namespaces/ns/pods",
    "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
};

class ReconcilerTest : public ::testing::Test {
 protected:
  ReconcilerTest() : client_(&transport_) {
    time_.SetWallNow(kNow);
    // The API server echoes what it is sent, with a new resourceVersion.
    transport_.handler = [](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
      json body = r.body.empty() ? json::object() : json::parse(r.body);
      if (body.contains("metadata")) body["metadata"]["resourceVersion"] = "8";
      return kube::HttpResponse{r.method == "POST" ? 201 : 200, body.dump()};
    };
    pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  }

  runtime::ReconcileResult Reconcile(const json& object, const std::string& runner_image = "",
                                                          PodPolicy policy = {}) {
    benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {object}});
    ReconcilerDeps deps{&client_, &benchmarks_, &pods_, &datasets_, nullptr, &time_, nullptr, runner_image,
                        std::move(policy), [this](const std::string& ns, json event) {
                          ASSERT_TRUE(client_.Create(kube::Events(), ns, event).ok());
                        }};
    deps.artifact_token = artifact_token_;
    deps.network_policy_metrics_peers = network_policy_peers_;
    return BenchmarkReconciler(std::move(deps)).Reconcile("ns/b");
  }

  // The Service's and the ConfigMap's requests go out concurrently: they come first, in any
  // order, and are sorted here.
  std::vector<std::string> Requests() const {
    std::vector<std::string> out;
    for (const auto& r : transport_.requests) out.push_back(r.method + " " + r.path);
    auto children_end = std::find_if_not(out.begin(), out.end(), [](const std::string& r) {
      return r.find("/services") != std::string::npos || r.find("/configmaps") != std::string::npos ||
             r.find("/secrets") != std::string::npos || r.find("/networkpolicies") != std::string::npos;
    });
    std::sort(out.begin(), children_end);
    return out;
  }

  json PostedBody(const std::string& path) const {
    for (const auto& r : transport_.requests) {
      if (r.method == "POST" && r.path == path) return json::parse(r.body);
    }
    return json();
  }

  // Answers `method` on `path` with `code` and `body`; every other request is echoed as before.
  void Refuse(const std::string& method, const std::string& path, int code, const std::string& body) {
    auto echo = transport_.handler;
    transport_.handler = [=](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
      if (r.method == method && r.path == path) return kube::HttpResponse{code, body};
      return echo(r);
    };
  }

  // Pod creates get `code` and `body`; every other request is echoed as before.
  void RefusePodCreates(int code, const std::string& body) {
    auto echo = transport_.handler;
    transport_.handler = [echo, code, body](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
      if (r.method == "POST" && r.path == "/api/v1/namespaces/ns/pods") return kube::HttpResponse{code, body};
      return echo(r);
    };
  }

  // Reconciles a Benchmark until its whole gang runs, the scheduler placing and the kubelet
  // starting each pod once it is created (peers first, then rank 0). Returns the pods; the
  // status last written is in gang_status_.
  std::vector<json> StartGang(const json& object) {
    json current = object;
    std::vector<json> pods;
    for (int round = 0; round < 3; ++round) {
      transport_.requests.clear();
      EXPECT_TRUE(Reconcile(current).ok());
      current["status"] = LastStatusWriteOr(current.value("status", json()));
      pods.clear();
      pods_.ForEach([&pods](const json& pod) { pods.push_back(Started(pod, pods.size())); });
      pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
    }
    gang_status_ = current["status"];
    return pods;
  }

  // A k=2 0a gang that ran and whose ranks all succeeded, as the finishing reconcile finds it.
  void FinishGang() {
    const json spec = {{"task", "0a"}, {"workers", 2}};
    pods_.Apply({runtime::WatcherEvent::kRestarted, Succeeded(StartGang(BenchmarkObject(spec)))});
    benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, gang_status_)}});
  }

  // Deps that record Events through the fake API and keep rank 0's files in `artifacts`.
  // The gracePeriodSeconds of each DELETE sent (null: the pod's own), by path.
  std::map<std::string, json> DeleteGracePeriods() const {
    std::map<std::string, json> grace;
    for (const auto& r : transport_.requests) {
      if (r.method == "DELETE") grace[r.path] = json::parse(r.body).value("gracePeriodSeconds", json());
    }
    return grace;
  }

  // Reconciles a 0a k=2 Benchmark being deleted in the foreground, its gang started and its
  // rank 1 in `phase`.
  void ReconcileDeletedWithRankOne(const std::string& phase) {
    const json spec = {{"task", "0a"}, {"workers", 2}};
    std::vector<json> pods = StartGang(BenchmarkObject(spec));
    ASSERT_EQ(pods.size(), 2u);
    for (json& pod : pods) {
      if (pod["metadata"]["labels"]["ergobench.io/rank"] == "1") pod["status"]["phase"] = phase;
    }
    pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
    json deleting = BenchmarkObject(spec, 1, gang_status_);
    deleting["metadata"]["deletionTimestamp"] = Rfc3339(kNow);
    deleting["metadata"]["finalizers"] = {"foregroundDeletion"};
    transport_.requests.clear();
    ASSERT_TRUE(Reconcile(deleting).ok());
  }

  ReconcilerDeps FinishingDeps(ArtifactCache* artifacts) {
    ReconcilerDeps deps{&client_, &benchmarks_, &pods_, &datasets_, nullptr, &time_, nullptr, "", {}, {}, artifacts};
    deps.record_event = [this](const std::string& ns, json event) {
      ASSERT_TRUE(client_.Create(kube::Events(), ns, event).ok());
    };
    return deps;
  }

  // The status the finishing reconcile writes for a k=2 0a run of an hour on node-a, with
  // spec.baseline `baseline`.
  json RunAgainst(const json& baseline) {
    const json spec = {{"task", "0a"}, {"workers", 2}, {"baseline", baseline}};
    pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
    pods_.Apply({runtime::WatcherEvent::kRestarted, Succeeded(StartGang(BenchmarkObject(spec)), "node-a")});
    benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, gang_status_)}});
    transport_.requests.clear();
    ArtifactCache artifacts;
    EXPECT_TRUE(BenchmarkReconciler(FinishingDeps(&artifacts)).Reconcile("ns/b").ok());
    return LastStatusWrite();
  }

  json LastStatusWrite() const { return LastStatusWriteOr(json()); }

  json LastStatusWriteOr(const json& otherwise) const {
    for (auto it = transport_.requests.rbegin(); it != transport_.requests.rend(); ++it) {
      if (it->method == "PUT" && it->path.ends_with("/status")) return json::parse(it->body)["status"];
    }
    return otherwise;
  }

  FakeTime time_;
  testing::FakeTransport transport_;
  kube::KubeClient client_;
  runtime::Store benchmarks_, pods_{WorkerPodOwnerKey}, datasets_;
  json gang_status_;
  std::function<StatusOr<std::string>(const std::string&)> artifact_token_;  // empty: rank 0's files unguarded
  std::optional<json> network_policy_peers_;                                 // empty: no NetworkPolicy
};

TEST_F(ReconcilerTest, ANewBenchmarkGetsItsChildrenThenItsStatus) {
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(Requests(), (std::vector<std::string>{
                            "POST /api/v1/namespaces/ns/configmaps",
                            "POST /api/v1/namespaces/ns/services",
                            "POST /api/v1/namespaces/ns/pods",
                            "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
                        }));
  EXPECT_EQ(PostedBody("/api/v1/namespaces/ns/pods")["metadata"]["name"], "b-worker-1") << "the peer first";
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["startTime"], Rfc3339(kNow));
  // Its own writes are in the caches: a second look, before the peer is placed, sends nothing.
  const json peer = PostedBody("/api/v1/namespaces/ns/pods");
  transport_.requests.clear();
  BenchmarkReconciler again({&client_, &benchmarks_, &pods_, &datasets_, nullptr, &time_, nullptr, "", {}, {}});
  ASSERT_TRUE(again.Reconcile("ns/b").ok());
  EXPECT_EQ(Requests(), std::vector<std::string>{});

  // Placed: rank 0 follows, and the gang is Created.
  pods_.Apply({runtime::WatcherEvent::kRestarted, {Started(peer, 0)}});
  ASSERT_TRUE(again.Reconcile("ns/b").ok());
  EXPECT_EQ(Requests(), (std::vector<std::string>{
                            "POST /api/v1/namespaces/ns/pods",
                            "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
                        }));
  EXPECT_EQ(PostedBody("/api/v1/namespaces/ns/pods")["metadata"]["name"], "b-worker-0");
  EXPECT_EQ(LastStatusWrite()["conditions"][0]["type"], "Created");
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

// Pods go out in the Job controller's slow-start batches, each batch at once: the 3 peers of
// k=4 in batches of 1 and 2, so that two creates are in flight together and never three.
TEST_F(ReconcilerTest, PodsAreCreatedInSlowStartBatches) {
  std::atomic<int> in_flight{0}, most{0};
  auto echo = transport_.handler;
  transport_.handler = [&, echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method != "POST" || r.path != "/api/v1/namespaces/ns/pods") return echo(r);
    const int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --in_flight;
    return echo(r);
  };
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 4}})).ok());
  EXPECT_EQ(PodImages(transport_.requests).size(), 3u);
  EXPECT_EQ(most.load(), 2);
}

TEST_F(ReconcilerTest, TheOperatorsRunnerImageFillsOnlyAnEmptySpecImage) {
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 1}}), "registry.example/runner:2").ok());
  EXPECT_EQ(PodImages(transport_.requests), std::vector<std::string>{"registry.example/runner:2"});

  transport_.requests.clear();
  pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  json named = BenchmarkObject({{"task", "0a"}, {"workers", 1}, {"image", "mine:1"}});
  named["metadata"]["uid"] = "u-2";
  PodPolicy mine;
  mine.allowed_images = {"mine:*"};
  ASSERT_TRUE(Reconcile(named, "registry.example/runner:2", mine).ok());
  EXPECT_EQ(PodImages(transport_.requests), std::vector<std::string>{"mine:1"});
}

// The operator creates pods on the author's behalf: an image its policy does not allow fails
// the Benchmark once, with the reason, instead of a pod that runs it (or a retry loop).
TEST_F(ReconcilerTest, AnImageThePolicyForbidsFailsOnce) {
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 1}, {"image", "docker.io/evil/miner:1"}}),
                        "registry.example/runner:2")
                  .ok());
  EXPECT_EQ(PodImages(transport_.requests).size(), 0u);
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["conditions"][0]["reason"], "PolicyViolation");
  EXPECT_NE(status["conditions"][0]["message"].get<std::string>().find("spec.image: \"docker.io/evil/miner:1\" is not allowed"),
            std::string::npos);
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 1}, {"image", "docker.io/evil/miner:1"}}, 1, status),
                        "registry.example/runner:2")
                  .ok());
  EXPECT_TRUE(Requests().empty()) << "terminal: no retry of the same generation";
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
  EXPECT_EQ(LastStatusWrite().value("conditions", json::array()).size(), 0u) << "generation 1's Failed is gone";
  EXPECT_EQ(PodImages(transport_.requests).size(), 1u);
}

// The ConfigMap the new gang reads is our own, already there: it is replaced with the new spec
// before any pod of the new generation is created.
TEST_F(ReconcilerTest, ASpecEditReplacesTheConfigMapBeforeTheNewGangStarts) {
  const json spec = {{"task", "fmnist"}, {"workers", 2}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec)).ok());
  const json old_config = PostedBody("/api/v1/namespaces/ns/configmaps");
  StartGang(BenchmarkObject(spec));
  const json running = gang_status_;
  ASSERT_EQ(running["phase"], "Running");

  auto echo = transport_.handler;
  transport_.handler = [echo, old_config](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "POST" && (r.path == "/api/v1/namespaces/ns/configmaps" || r.path == "/api/v1/namespaces/ns/services")) {
      return kube::HttpResponse{409, R"({"kind":"Status","code":409,"reason":"AlreadyExists"})"};
    }
    if (r.method == "GET" && r.path == "/api/v1/namespaces/ns/configmaps/b-config") {
      json existing = old_config;
      existing["metadata"]["resourceVersion"] = "5";
      existing["metadata"]["ownerReferences"][0]["uid"] = "u-1";
      return kube::HttpResponse{200, existing.dump()};
    }
    if (r.method == "GET" && r.path == "/api/v1/namespaces/ns/services/b-workers") {
      return kube::HttpResponse{200, json({{"metadata", {{"ownerReferences", {{{"controller", true}, {"uid", "u-1"}}}}}}}).dump()};
    }
    return echo(r);
  };
  transport_.requests.clear();
  json edited = spec;
  edited["hyperparameters"] = {{"batchSize", 32}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(edited, 2, running)).ok());

  std::vector<std::string> writes;
  json replaced;
  for (const std::string& r : Requests()) {
    if (!r.starts_with("GET ")) writes.push_back(r);
  }
  for (const auto& r : transport_.requests) {
    if (r.method == "PUT" && r.path == "/api/v1/namespaces/ns/configmaps/b-config") replaced = json::parse(r.body);
  }
  EXPECT_EQ(writes, (std::vector<std::string>{
                        "POST /api/v1/namespaces/ns/configmaps",
                        "POST /api/v1/namespaces/ns/services",
                        "PUT /api/v1/namespaces/ns/configmaps/b-config",
                        "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
                        "DELETE /api/v1/namespaces/ns/pods/b-worker-0",
                        "DELETE /api/v1/namespaces/ns/pods/b-worker-1",
                        "POST /api/v1/namespaces/ns/events",
                    }));
  ASSERT_TRUE(replaced.is_object());
  EXPECT_EQ(replaced["metadata"]["resourceVersion"], "5") << "replaced only over the version read";
  const json runner_spec = json::parse(replaced["data"]["benchmark.json"].get<std::string>())["spec"];
  EXPECT_EQ(runner_spec["hyperparameters"]["batchSize"], 32);
  EXPECT_EQ(LastStatusWrite()["observedGeneration"], 2);

  // The old pods are gone: the new gang carries the new generation.
  pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {}});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(edited, 2, LastStatusWriteOr(running))).ok());
  const std::vector<json> peers = RunningPodsCreatedBy(transport_.requests);
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(peers[0]["metadata"]["labels"]["ergobench.io/generation"], "2");
}

// An edit that makes a running Benchmark invalid fails it, and its workers stop with it.
TEST_F(ReconcilerTest, AnEditThatMakesARunningBenchmarkInvalidStopsItsWorkers) {
  const json spec = {{"task", "0a"}, {"workers", 2}};
  StartGang(BenchmarkObject(spec));
  const json running = gang_status_;
  transport_.requests.clear();
  json bad = spec;
  bad["workers"] = 0;
  ASSERT_TRUE(Reconcile(BenchmarkObject(bad, 2, running)).ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Failed");
  std::vector<std::string> deletes;
  for (const auto& r : transport_.requests) {
    if (r.method == "DELETE") deletes.push_back(r.path);
  }
  EXPECT_EQ(deletes, (std::vector<std::string>{"/api/v1/namespaces/ns/pods/b-worker-0",
                                               "/api/v1/namespaces/ns/pods/b-worker-1"}));
}

// The audit's crash: 600 two-byte characters in spec.task made the Event's message, cut at byte
// 1024, end inside a character; nlohmann's dump() threw and the worker thread took the process
// down. Values are quoted shortened now, but field paths are not: non-ASCII hyperparameter names
// still make a message past 1 KiB. The Event goes out, cut between characters.
TEST_F(ReconcilerTest, ANonAsciiSpecIsRejectedWithoutCrashing) {
  std::string task;
  for (int i = 0; i < 600; ++i) task += "\u00e9";
  json hyperparameters = json::object();
  for (int i = 0; i < 8; ++i) hyperparameters["x" + std::to_string(i) + task.substr(0, 300)] = 1;
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", task}, {"workers", 1}})).ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Failed");
  ASSERT_TRUE(Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 1}, {"hyperparameters", hyperparameters}}, 2)).ok());
  const auto& event = transport_.requests.back();
  ASSERT_EQ(event.path, "/api/v1/namespaces/ns/events");
  const json sent = json::parse(event.body);  // throws on invalid UTF-8
  const std::string message = sent["message"];
  EXPECT_LE(message.size(), 1024u);
  EXPECT_GT(message.size(), 1020u);
  EXPECT_EQ(message.rfind("spec.hyperparameters.x0", 0), 0u) << message;
  EXPECT_NO_THROW(json(message).dump()) << "the cut falls between characters";
}

// An MPI run gets its Secret of fresh ssh keys with its Service and ConfigMap, its workers,
// and its launcher once they are placed; the keys go nowhere but the Secret.
TEST_F(ReconcilerTest, AnMpiRunGetsItsKeysItsWorkersThenItsLauncher) {
  const json object = BenchmarkObject({{"task", "0a"}, {"workers", 2}, {"backend", "mpi"}});
  ASSERT_TRUE(Reconcile(object).ok());
  EXPECT_EQ(Requests(), kFirstRoundWithASecret);
  const json secret = PostedBody("/api/v1/namespaces/ns/secrets");
  EXPECT_EQ(secret["metadata"]["name"], "b-ssh-u-1");
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], object["metadata"]["uid"]);
  const std::string private_key = secret["stringData"]["id_ed25519"];
  EXPECT_EQ(private_key.rfind("-----BEGIN OPENSSH PRIVATE KEY-----", 0), 0u);
  EXPECT_NE(secret["stringData"]["ssh_host_ed25519_key"], private_key) << "two keys, not one";
  EXPECT_TRUE(PostedBody("/api/v1/namespaces/ns/configmaps")["data"].contains("hostfile"));

  const std::vector<json> pods = StartGang(object);
  std::vector<std::string> names;
  for (const json& pod : pods) names.push_back(pod["metadata"]["name"]);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"b-launcher", "b-worker-0", "b-worker-1"}));
  const std::string body = secret["stringData"]["id_ed25519"].get<std::string>().substr(40, 40);
  for (const auto& r : transport_.requests) {
    if (r.path.find("/secrets") == std::string::npos) {
      EXPECT_EQ(r.body.find(body), std::string::npos) << r.path;
    }
  }
}

// Rank 0's files are guarded by the Benchmark's token: a Secret the operator derives and sends
// with the Service and ConfigMap, which rank 0 alone mounts and names to the runner. The Secret
// is never read: its name holds the Benchmark's uid, so one that exists is this Benchmark's
// (the operator has no get on tenants' Secrets).
TEST_F(ReconcilerTest, RankZerosFilesAreGuardedByATokenSecretThatOnlyRankZeroMounts) {
  artifact_token_ = [](const std::string& uid) { return StatusOr<std::string>("token-of-" + uid); };
  const json object = BenchmarkObject({{"task", "0a"}, {"workers", 2}});
  ASSERT_TRUE(Reconcile(object).ok());
  EXPECT_EQ(Requests(), kFirstRoundWithASecret);
  const json secret = PostedBody("/api/v1/namespaces/ns/secrets");
  EXPECT_EQ(secret["metadata"]["name"], "b-artifacts-u-1");
  EXPECT_EQ(secret["stringData"], (json{{"token", "token-of-u-1"}}));
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], "u-1");

  for (const json& pod : StartGang(object)) {
    const json& spec = pod["spec"];
    const json& args = spec["containers"][0]["args"];
    const bool mounted = spec["volumes"].dump().find("b-artifacts-u-1") != std::string::npos;
    const auto flag = std::find(args.begin(), args.end(), "--artifact-token-file");
    if (pod["metadata"]["labels"][kRankLabel] == "0") {
      EXPECT_TRUE(mounted);
      ASSERT_NE(flag, args.end());
      EXPECT_EQ(*std::next(flag), "/var/run/ergobench/artifacts/token");
      EXPECT_NE(spec["containers"][0]["volumeMounts"].dump().find("/var/run/ergobench/artifacts"), std::string::npos);
    } else {
      EXPECT_FALSE(mounted) << "rank 1 has no use for the token";
      EXPECT_EQ(flag, args.end());
    }
  }

  // Already there (an earlier round made it, the cache not yet showing the pods): not read.
  pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  transport_.requests.clear();
  Refuse("POST", "/api/v1/namespaces/ns/secrets", 409,
         R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"exists"})");
  ASSERT_TRUE(Reconcile(object).ok());
  for (const std::string& request : Requests()) EXPECT_NE(request.rfind("GET", 0), 0u) << request;
}

TEST_F(ReconcilerTest, WithNetworkPoliciesOnAGangGetsItsOwnWithItsOtherChildren) {
  const json object = BenchmarkObject({{"task", "0a"}, {"workers", 2}});
  ASSERT_TRUE(Reconcile(object).ok());
  for (const std::string& request : Requests()) EXPECT_EQ(request.find("networkpolicies"), std::string::npos) << "off by default";

  transport_.requests.clear();
  pods_.Apply({runtime::WatcherEvent::kRestarted, {}});
  network_policy_peers_ = NamespacePeers("ergobench-system");
  ASSERT_TRUE(Reconcile(object).ok());
  EXPECT_EQ(Requests(), (std::vector<std::string>{
                            "POST /api/v1/namespaces/ns/configmaps",
                            "POST /api/v1/namespaces/ns/services",
                            "POST /apis/networking.k8s.io/v1/namespaces/ns/networkpolicies",
                            "POST /api/v1/namespaces/ns/pods",
                            "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status",
                        }));
  const json policy = PostedBody("/apis/networking.k8s.io/v1/namespaces/ns/networkpolicies");
  FieldErrors errors;
  EXPECT_EQ(policy, BuildGangNetworkPolicy(DecodeBenchmark(object, &errors), NamespacePeers("ergobench-system")));
}

TEST_F(ReconcilerTest, ATokenThatCannotBeDerivedCreatesNoPodAndIsRetried) {
  artifact_token_ = [](const std::string&) { return StatusOr<std::string>(Status::Unavailable("connection refused")); };
  const auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("derive the artifact token"), std::string::npos) << result.status().ToString();
  for (const std::string& request : Requests()) EXPECT_EQ(request.find("/pods"), std::string::npos) << request;
}

// A refusal the API will repeat (RBAC, a quota, Pod Security admission) is shown in status with
// the API's own words, and retried with backoff: a quota may free up, a policy be fixed.
TEST_F(ReconcilerTest, AForbiddenCreateIsShownAndRetried) {
  RefusePodCreates(403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"pods \"b-worker-1\" is forbidden: exceeded quota: compute"})");
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(result.status().message().find("create Pod b-worker-1"), std::string::npos);
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Pending");
  ASSERT_EQ(status["conditions"].size(), 1u) << status.dump();
  EXPECT_EQ(status["conditions"][0]["type"], "Created");
  EXPECT_EQ(status["conditions"][0]["status"], "False");
  EXPECT_EQ(status["conditions"][0]["reason"], "CreateForbidden");
  EXPECT_NE(status["conditions"][0]["message"].get<std::string>().find("exceeded quota: compute"), std::string::npos);
}

// 422: the API found the object invalid, and will every time. The Benchmark fails with the
// API's causes instead of retrying forever.
TEST_F(ReconcilerTest, AnInvalidChildFailsTheBenchmarkOnce) {
  RefusePodCreates(422, R"({"kind":"Status","code":422,"reason":"Invalid","message":"Pod \"b-worker-1\" is invalid: spec.tolerations[0].operator: Unsupported value: \"Sometimes\""})");
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->requeue_after()) << "no retry";
  EXPECT_TRUE(kube::IsInvalid(result->terminal_error())) << "a terminal error: " << result->terminal_error().ToString();
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Failed");
  const json failed = status["conditions"].back();
  EXPECT_EQ(failed["type"], "Failed");
  EXPECT_EQ(failed["reason"], "CreateRejected");
  EXPECT_NE(failed["message"].get<std::string>().find("spec.tolerations[0].operator"), std::string::npos);
}

// After `kubectl delete` and a re-create under the same name, the old Benchmark's children wait
// for garbage collection under the old UID. They are not adopted: the new Benchmark waits, says
// why, and creates its own once they are gone.
TEST_F(ReconcilerTest, ChildrenOfANamesakeAreNotAdopted) {
  std::string owner = "u-old";
  auto echo = transport_.handler;
  transport_.handler = [echo, &owner](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "POST" && r.path == "/api/v1/namespaces/ns/services") {
      return kube::HttpResponse{409, R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"services \"b-workers\" already exists"})"};
    }
    if (r.method == "GET" && r.path == "/api/v1/namespaces/ns/services/b-workers") {
      const json service = {{"metadata",
                             {{"name", "b-workers"},
                              {"ownerReferences", {{{"kind", "Benchmark"}, {"name", "b"}, {"uid", owner}, {"controller", true}}}}}}};
      return kube::HttpResponse{200, service.dump()};
    }
    return echo(r);
  };
  auto result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(result.status().message().find("Service b-workers belongs to an earlier Benchmark b (uid u-old)"),
            std::string::npos)
      << result.status().message();
  EXPECT_EQ(PodImages(transport_.requests).size(), 0u) << "nothing created next to a stale child";
  EXPECT_EQ(LastStatusWrite()["conditions"][0]["reason"], "WaitingForStaleChildren");

  owner = "u-1";  // ours after all: our own create raced our cache
  transport_.requests.clear();
  result = Reconcile(BenchmarkObject({{"task", "0a"}, {"workers", 2}}));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(PodImages(transport_.requests).size(), 1u) << "the peer; rank 0 once it is placed";
}

TEST_F(ReconcilerTest, RunningStatusCarriesThePollersProgressOfTheCurrentGang) {
  const json spec = {{"task", "fmnist"}, {"workers", 2}};
  StartGang(BenchmarkObject(spec));
  benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, gang_status_)}});
  ProgressCache progress;
  Progress read;
  read.epoch = 2;
  read.step = 300;
  read.metric = "accuracy";
  read.value = 0.71;
  read.communication_ratio = 0.25;
  read.percent = 25;
  read.seconds_left = 460;
  read.estimated_from = "work";
  progress.Put("ns/b", Gang{1, 0}, read);
  transport_.requests.clear();

  BenchmarkReconciler reconciler({&client_, &benchmarks_, &pods_, &datasets_, &progress, &time_, nullptr, "", {}, {}});
  ASSERT_TRUE(reconciler.Reconcile("ns/b").ok());
  const json running = LastStatusWrite();
  EXPECT_EQ(running["phase"], "Running");
  // With the epochs and goal of the spec (fmnist's defaults: 10 epochs, accuracy 0.85).
  EXPECT_EQ(running["progress"], json({{"epoch", 2}, {"maxEpochs", 10}, {"step", 300}, {"metric", "accuracy"},
                                       {"value", 0.71}, {"goal", 0.85}, {"percent", 25.0}, {"secondsLeft", 460},
                                       {"estimatedFrom", "work"}, {"communicationRatio", 0.25}}));
  EXPECT_EQ(running["display"], json({{"progress", "25% · epoch 2/10 · accuracy 0.71→0.85 · ≤7m40s left"}}))
      << "kubectl's PROGRESS column";
}

// A status written by a newer operator (a result field this one does not know) is not the
// user's error: the finished Benchmark stays Succeeded, and nothing is written.
TEST_F(ReconcilerTest, AStatusFromAnotherVersionDoesNotInvalidateTheSpec) {
  const json status = {{"phase", "Succeeded"},
                       {"completionTime", "2026-11-22T06:00:00Z"},
                       {"conditions", {{{"type", "Succeeded"}, {"status", "True"}, {"reason", "GoalReached"}}}},
                       {"results", {{"samplesPerSecond", 812.5}, {"carbonGrams", 3.2}}},
                       {"futureField", {{"x", 1}}}};
  json spec = {{"task", "0a"}, {"workers", 1}, {"runPolicy", {{"cleanPodPolicy", "None"}}}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, status)).ok());
  EXPECT_EQ(Requests(), std::vector<std::string>{});
}

// A delete names the UID it means: a stale cache (or a deposed leader) cannot delete a newer
// object that took the name.
TEST_F(ReconcilerTest, DeletesCarryTheUidTheyMean) {
  const json spec = {{"task", "0a"}, {"workers", 1}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec)).ok());
  std::vector<json> pods = RunningPodsCreatedBy(transport_.requests);
  ASSERT_EQ(pods.size(), 1u);
  pods[0]["metadata"]["uid"] = "pod-uid-7";
  pods[0]["status"]["phase"] = "Succeeded";
  pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
  transport_.requests.clear();
  const json finished = {{"phase", "Succeeded"}, {"completionTime", Rfc3339(kNow - std::chrono::hours(1))}};
  json ttl_spec = spec;
  ttl_spec["runPolicy"] = {{"ttlSecondsAfterFinished", 0}};
  ASSERT_TRUE(Reconcile(BenchmarkObject(ttl_spec, 1, finished)).ok());
  std::map<std::string, std::string> uids;
  for (const auto& r : transport_.requests) {
    if (r.method == "DELETE") uids[r.path] = json::parse(r.body)["preconditions"].value("uid", "");
  }
  EXPECT_EQ(uids, (std::map<std::string, std::string>{
                      {"/apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b", "u-1"}}));
  // The pods go with cleanPodPolicy on a Benchmark that stays.
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, finished)).ok());
  uids.clear();
  for (const auto& r : transport_.requests) {
    if (r.method == "DELETE") uids[r.path] = json::parse(r.body)["preconditions"].value("uid", "");
  }
  EXPECT_EQ(uids, (std::map<std::string, std::string>{{"/api/v1/namespaces/ns/pods/b-worker-0", "pod-uid-7"}}));
}

// A failed rank restarts the gang. Its pod has ended and goes at once (grace 0), so that its
// name is free for the next gang without waiting for the kubelet's container collection; its
// running peer is stopped gracefully.
TEST_F(ReconcilerTest, AnEndedPodIsDeletedAtOnceARunningOneGracefully) {
  const json spec = {{"task", "0a"}, {"workers", 2}, {"runPolicy", {{"backoffLimit", 1}}}};
  std::vector<json> pods = StartGang(BenchmarkObject(spec));
  ASSERT_EQ(pods.size(), 2u);
  for (json& pod : pods) {
    if (pod["metadata"]["labels"]["ergobench.io/rank"] != "1") continue;
    pod["status"]["phase"] = "Failed";
    pod["status"]["containerStatuses"] = {
        {{"name", "runner"},
         {"state", {{"terminated", {{"exitCode", 137}, {"reason", "Error"}, {"finishedAt", Rfc3339(kNow)}}}}}}};
  }
  pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, gang_status_)).ok());
  EXPECT_EQ(LastStatusWrite()["restarts"], 1);
  EXPECT_EQ(DeleteGracePeriods(), (std::map<std::string, json>{{"/api/v1/namespaces/ns/pods/b-worker-0", json()},
                                                               {"/api/v1/namespaces/ns/pods/b-worker-1", 0}}));
}

// A node that stops reporting: after node-monitor-grace-period the node lifecycle controller
// sets its Ready condition Unknown and marks its pods not Ready. The gang restarts, and the
// pod on that node is deleted with no grace period: no kubelet will ever confirm it, and the
// next gang needs its name. A pod that is merely not Ready (its probe) on a reporting node is
// left alone, and so is one on a node the operator may not read, though both are looked at again.
TEST_F(ReconcilerTest, APodOnANodeThatStoppedReportingIsDeletedAtOnceAndTheGangRestarts) {
  const json spec = {{"task", "0a"}, {"workers", 2}, {"runPolicy", {{"backoffLimit", 1}}}};
  std::vector<json> pods = StartGang(BenchmarkObject(spec));
  ASSERT_EQ(pods.size(), 2u);
  for (json& pod : pods) {
    if (pod["metadata"]["labels"]["ergobench.io/rank"] == "1") pod["status"]["conditions"] = {{{"type", "Ready"}, {"status", "False"}}};
  }
  pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
  for (const std::string ready : {"True", "forbidden"}) {
    if (ready == "forbidden") {
      Refuse("GET", "/api/v1/nodes/node-1", 403, R"({"kind":"Status","reason":"Forbidden","code":403})");
    } else {
      Refuse("GET", "/api/v1/nodes/node-1", 200, json{{"status", {{"conditions", {{{"type", "Ready"}, {"status", ready}}}}}}}.dump());
    }
    transport_.requests.clear();
    const auto result = Reconcile(BenchmarkObject(spec, 1, gang_status_));
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(DeleteGracePeriods(), (std::map<std::string, json>{})) << ready;
    // Its node is looked at again: a pod marked not Ready before its node stopped reporting
    // (its probe had not yet passed) gets no second mark, and so no event, when it does.
    EXPECT_EQ(*result, runtime::Result::RequeueAfter(kLostNodeRecheck)) << ready;
  }
  for (const std::string how : {"Unknown", "gone"}) {
    if (how == "gone") {
      Refuse("GET", "/api/v1/nodes/node-1", 404, R"({"kind":"Status","reason":"NotFound","code":404})");
    } else {
      Refuse("GET", "/api/v1/nodes/node-1", 200,
             json{{"status", {{"conditions", {{{"type", "Ready"}, {"status", "Unknown"}, {"reason", "NodeStatusUnknown"}}}}}}}.dump());
    }
    transport_.requests.clear();
    ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, gang_status_)).ok());
    EXPECT_EQ(LastStatusWrite()["restarts"], 1) << how;
    EXPECT_EQ(DeleteGracePeriods(), (std::map<std::string, json>{{"/api/v1/namespaces/ns/pods/b-worker-0", json()},
                                                                 {"/api/v1/namespaces/ns/pods/b-worker-1", 0}}))
        << how;
    const std::string message = LastStatusWrite()["conditions"].dump();
    EXPECT_NE(message.find(how == "gone" ? "lost with its node: node node-1 no longer exists"
                                         : "lost with its node: node node-1 stopped reporting (NodeStatusUnknown)"),
              std::string::npos)
        << message;
  }
}

// A pod still Pending has done no work, and a SIGTERM that reaches its container as it starts is
// lost (the runner is PID 1 and has no handler yet): it stops after a second, not after its 30 s
// grace period (traced in a full test run: a sweep point's replaced gang held its names 39 s).
TEST_F(ReconcilerTest, APodNotYetStartedIsStoppedWithoutItsGracePeriod) {
  ReconcileDeletedWithRankOne("Pending");
  EXPECT_EQ(DeleteGracePeriods(),
            (std::map<std::string, json>{{"/api/v1/namespaces/ns/pods/b-worker-0", json()},
                                         {"/api/v1/namespaces/ns/pods/b-worker-1", kStartingPodGraceSeconds}}));
}

// A pod deleted gracefully while it ran, whose container has since ended, is deleted again with
// no grace: the API then removes it at once. A kubelet before v1.22 removes the object only once
// it has also removed the container, which for such a pod often waits for its once-a-minute
// garbage collection (traced in a full test run: a spec edit's old gang held its names for 40 s
// after it had ended). One still running is left to its grace period; for the Benchmark being
// deleted as well.
TEST_F(ReconcilerTest, APodBeingDeletedThatHasEndedIsRemovedAtOnce) {
  const json spec = {{"task", "0a"}, {"workers", 2}};
  std::vector<json> pods = StartGang(BenchmarkObject(spec));
  ASSERT_EQ(pods.size(), 2u);
  for (json& pod : pods) {
    pod["metadata"]["deletionTimestamp"] = Rfc3339(kNow);
    if (pod["metadata"]["labels"]["ergobench.io/rank"] != "1") continue;
    pod["status"]["phase"] = "Failed";
    pod["status"]["containerStatuses"] = {
        {{"name", "runner"},
         {"state", {{"terminated", {{"exitCode", 143}, {"reason", "Error"}, {"finishedAt", Rfc3339(kNow)}}}}}}};
  }
  pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
  json edited = spec;
  edited["hyperparameters"] = {{"repetitions", 3}};
  const std::map<std::string, json> only_the_ended_one{{"/api/v1/namespaces/ns/pods/b-worker-1", 0}};
  for (json object : {BenchmarkObject(edited, 2, gang_status_), BenchmarkObject(spec, 1, gang_status_)}) {
    if (object["metadata"]["generation"] == 1) object["metadata"]["deletionTimestamp"] = Rfc3339(kNow);
    transport_.requests.clear();
    ASSERT_TRUE(Reconcile(object).ok());
    EXPECT_EQ(DeleteGracePeriods(), only_the_ended_one) << "generation " << object["metadata"]["generation"];
  }
}

// A Benchmark being deleted in the foreground (a sweep replacing an edited point) stops its gang
// at once: left to run, it held the deletion, and the sweep's next point, for the rest of the
// run and then for the garbage collector's pass. Ended pods go at once, running ones
// gracefully; nothing is created.
TEST_F(ReconcilerTest, ABenchmarkBeingDeletedStopsItsGangAtOnce) {
  ReconcileDeletedWithRankOne("Succeeded");
  for (const auto& r : transport_.requests) EXPECT_EQ(r.method, "DELETE") << r.method << " " << r.path;
  EXPECT_EQ(DeleteGracePeriods(), (std::map<std::string, json>{{"/api/v1/namespaces/ns/pods/b-worker-0", json()},
                                                               {"/api/v1/namespaces/ns/pods/b-worker-1", 0}}));
}

// A sweep's point whose ttlSecondsAfterFinished has passed waits for its sweep to read how it
// ended: deleted first, the sweep would run the point again. A minute at most past the TTL.
TEST_F(ReconcilerTest, ASweepsFinishedPointWaitsForItsSweepBeforeItsTtlDeletesIt) {
  const json spec = {{"task", "0a"}, {"workers", 1}, {"runPolicy", {{"ttlSecondsAfterFinished", 0}}}};
  const auto finished_ago = [&](std::chrono::seconds ago) {
    json object = BenchmarkObject(spec, 1, {{"phase", "Succeeded"}, {"completionTime", Rfc3339(kNow - ago)}});
    object["metadata"]["labels"] = {{"ergobench.io/sweep", "s"}};
    object["metadata"]["ownerReferences"] = {{{"apiVersion", "ergobench.io/v1alpha1"}, {"kind", "BenchmarkSweep"},
                                              {"name", "s"}, {"uid", "sweep-uid"}, {"controller", true}}};
    benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {object}});
  };
  json sweep = {{"metadata", {{"name", "s"}, {"namespace", "ns"}, {"uid", "sweep-uid"}}},
                {"status", {{"points", {{{"benchmark", "b"}, {"phase", "Running"}}}}}}};
  runtime::Store sweeps;
  ReconcilerDeps deps = FinishingDeps(nullptr);
  deps.sweeps = &sweeps;
  const auto deleted = [&] {
    transport_.requests.clear();
    auto requeue = BenchmarkReconciler(deps).Reconcile("ns/b");
    EXPECT_TRUE(requeue.ok()) << requeue.status().ToString();
    for (const auto& r : transport_.requests) {
      if (r.method == "DELETE" && r.path == "/apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b") return true;
    }
    if (requeue.ok()) {
      EXPECT_EQ(*requeue, runtime::Result::RequeueAfter(std::chrono::seconds(1))) << "looks again soon";
    }
    return false;
  };
  sweeps.Apply({runtime::WatcherEvent::kRestarted, {sweep}});
  finished_ago(std::chrono::seconds(5));
  EXPECT_FALSE(deleted()) << "the sweep last saw it Running";
  sweep["status"]["points"][0]["phase"] = "Succeeded";
  sweeps.Apply({runtime::WatcherEvent::kRestarted, {sweep}});
  EXPECT_TRUE(deleted()) << "the sweep has it";

  sweep["status"]["points"][0]["phase"] = "Running";
  sweeps.Apply({runtime::WatcherEvent::kRestarted, {sweep}});
  finished_ago(std::chrono::seconds(61));
  EXPECT_TRUE(deleted()) << "past the grace: a sweep that does not reconcile keeps no point";
  finished_ago(std::chrono::seconds(5));
  sweep["metadata"]["uid"] = "another-sweep";
  sweeps.Apply({runtime::WatcherEvent::kRestarted, {sweep}});
  EXPECT_TRUE(deleted()) << "a namesake sweep is not its sweep";
}

TEST_F(ReconcilerTest, ABenchmarkBeingDeletedIsLeftAlone) {
  json object = BenchmarkObject({{"task", "0a"}, {"workers", 2}});
  object["metadata"]["deletionTimestamp"] = "2026-11-22T06:00:00Z";
  ASSERT_TRUE(Reconcile(object).ok());
  EXPECT_TRUE(Requests().empty());
}

// What the pods measured outlives them: the reconcile that finishes the Benchmark writes the
// results ConfigMap, with rank 0's files the poller took, before the status that lets the pods go.
TEST_F(ReconcilerTest, TheFinishingReconcileKeepsTheResultsBeforeThePodsGo) {
  FinishGang();
  ArtifactCache artifacts;
  ArtifactBundle bundle;
  bundle.files["rank-0.mllog"] = ":::MLLOG {\"key\": \"run_stop\"}\n";
  artifacts.Put("ns/b", Gang{1, 0}, bundle);
  transport_.requests.clear();

  ASSERT_TRUE(BenchmarkReconciler(FinishingDeps(&artifacts)).Reconcile("ns/b").ok());
  std::vector<std::string> requests;
  for (const auto& r : transport_.requests) requests.push_back(r.method + " " + r.path);
  ASSERT_GE(requests.size(), 3u);
  EXPECT_EQ(requests[0], "POST /api/v1/namespaces/ns/configmaps");
  EXPECT_EQ(requests[1], "PUT /apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status");
  EXPECT_EQ(requests[2], "DELETE /api/v1/namespaces/ns/pods/b-worker-0");
  EXPECT_EQ(LastStatusWrite()["phase"], "Succeeded");
  const json cm = PostedBody("/api/v1/namespaces/ns/configmaps");
  EXPECT_EQ(cm["metadata"]["name"], "b-results");
  EXPECT_EQ(cm["data"]["rank-0.mllog"], ":::MLLOG {\"key\": \"run_stop\"}\n");
  EXPECT_EQ(cm["data"]["rank-1.summary"], "rank 1 succeeded\n");
  EXPECT_EQ(json::parse(cm["data"]["benchmark.json"].get<std::string>())["status"]["phase"], "Succeeded");
  EXPECT_FALSE(artifacts.Has("ns/b", Gang{1, 0})) << "kept, so forgotten";
}

// A failed write of the ConfigMap leaves the status unwritten, so the next try writes both;
// the files the poller took are still there for it.
// The finishing reconcile reads the ranks' node once and prices the run from the catalog by the
// node's instance type and region: here two ranks of 4 CPUs and 8 GiB on a 16-CPU, 64 GiB
// c5.4xlarge that no agent said was theirs alone, so half of it for an hour.
TEST_F(ReconcilerTest, AFinishedRunIsDescribedAndPricedByItsNode) {
  const std::string dir = ::testing::TempDir() + "/reconciler-prices";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/catalog.yaml") << R"(prices:
  - {provider: aws, instanceType: c5.4xlarge, region: us-east-1, currency: USD, onDemandHour: 0.68,
     spotHour: 0.25, effectiveDate: "2026-10-01", source: "https://aws.amazon.com/ec2/pricing/on-demand/"})";
  PriceCatalogSource prices(dir);
  auto echo = transport_.handler;
  transport_.handler = [echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method != "GET" || r.path != "/api/v1/nodes/node-a") return echo(r);
    const json node = {{"metadata", {{"name", "node-a"}, {"labels", {{"node.kubernetes.io/instance-type", "c5.4xlarge"},
                                                                    {"topology.kubernetes.io/region", "us-east-1"}}}}},
                       {"spec", {{"providerID", "aws:///us-east-1a/i-0abc"}}},
                       {"status", {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}}}}}};
    return kube::HttpResponse{200, node.dump()};
  };
  const json spec = {{"task", "0a"}, {"workers", 2}, {"resources", {{"cpu", "4"}, {"memory", "8Gi"}}}};
  pods_.Apply({runtime::WatcherEvent::kRestarted, Succeeded(StartGang(BenchmarkObject(spec)), "node-a")});
  benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, gang_status_)}});
  transport_.requests.clear();
  ArtifactCache artifacts;
  ReconcilerDeps deps = FinishingDeps(&artifacts);
  deps.prices = &prices;
  ASSERT_TRUE(BenchmarkReconciler(std::move(deps)).Reconcile("ns/b").ok());

  EXPECT_EQ(std::count_if(transport_.requests.begin(), transport_.requests.end(),
                          [](const auto& r) { return r.path == "/api/v1/nodes/node-a"; }),
            1) << "one read for both ranks";
  const json results = LastStatusWrite()["results"];
  EXPECT_EQ(results["system"]["instanceType"], "c5.4xlarge");
  EXPECT_EQ(results["system"]["provider"], "aws");
  EXPECT_EQ(results["system"]["nodes"], json::array({"node-a"}));
  EXPECT_DOUBLE_EQ(results["costUSD"].get<double>(), 0.5 * 0.68);
  EXPECT_DOUBLE_EQ(results["preemptibleCostUSD"].get<double>(), 0.5 * 0.25);
  EXPECT_EQ(results["costBasis"], "requested share: 0.5 of 1 x c5.4xlarge (nodes shared or not known to be alone)");
  EXPECT_EQ(results["prices"][0]["source"], "https://aws.amazon.com/ec2/pricing/on-demand/");
  const json kept = json::parse(PostedBody("/api/v1/namespaces/ns/configmaps")["data"]["benchmark.json"].get<std::string>());
  EXPECT_EQ(kept["status"]["results"]["costUSD"], results["costUSD"]) << "the kept results are the priced ones";
}

// A finished run of `spec` judged against whatever the fake API answers for the baseline.
// The last repeat's gang finishes the run: the results ConfigMap keeps its ranks' results and
// the files its rank 0 offered, although the repeats done have moved into status.results.
TEST_F(ReconcilerTest, ARepeatedRunKeepsItsLastRepeatsResults) {
  const json spec = {{"task", "0a"}, {"workers", 2}, {"repeats", 2}};
  const json one_done = {{"repeats", {{{"repeat", 0}, {"seed", 0}, {"figures", {{"runSeconds", 3600}}}}}}};
  const std::vector<json> pods = Succeeded(StartGang(BenchmarkObject(spec, 1, one_done)), "node-a");
  ASSERT_EQ(pods[0]["metadata"]["labels"]["ergobench.io/repeat"], "1");
  pods_.Apply({runtime::WatcherEvent::kRestarted, pods});
  benchmarks_.Apply({runtime::WatcherEvent::kRestarted, {BenchmarkObject(spec, 1, gang_status_)}});
  ArtifactCache artifacts;
  ArtifactBundle bundle;
  bundle.files["rank-0.mllog"] = ":::MLLOG {\"key\": \"run_stop\"}\n";
  artifacts.Put("ns/b", Gang{1, 0, 1}, bundle);
  transport_.requests.clear();

  ASSERT_TRUE(BenchmarkReconciler(FinishingDeps(&artifacts)).Reconcile("ns/b").ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Succeeded");
  EXPECT_EQ(LastStatusWrite()["results"]["repeats"].size(), 2u);
  const json cm = PostedBody("/api/v1/namespaces/ns/configmaps");
  EXPECT_EQ(cm["data"]["rank-1.summary"], "rank 1 succeeded\n");
  EXPECT_EQ(cm["data"]["rank-0.mllog"], ":::MLLOG {\"key\": \"run_stop\"}\n");
}

TEST_F(ReconcilerTest, AFinishedRunSlowerThanItsBaselineIsRegressed) {
  auto echo = transport_.handler;
  transport_.handler = [echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "GET" && r.path == "/apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/old") {
      const json old = BenchmarkObject({{"task", "0a"}}, 1, {{"phase", "Succeeded"}, {"results", {{"runSeconds", 1800}}}});
      return kube::HttpResponse{200, old.dump()};
    }
    if (r.method == "GET" && r.path.starts_with("/api/v1/namespaces/ns/configmaps/")) {
      return kube::HttpResponse{404, R"({"kind":"Status","reason":"NotFound","code":404,"message":"not found"})"};
    }
    return echo(r);
  };
  // An hour's run against the baseline's half hour: twice as slow, beyond the 10% band.
  json regressed = RunAgainst({{"benchmark", "old"}});
  EXPECT_EQ(regressed["results"]["baseline"], "Benchmark old");
  EXPECT_EQ(regressed["results"]["verdicts"][0],
            json({{"figure", "runSeconds"}, {"baseline", 1800.0}, {"value", 3600.0}, {"bandPercent", 10.0},
                  {"basis", "values"}, {"regressed", true}}));
  const json* condition = nullptr;
  for (const json& c : regressed["conditions"]) {
    if (c["type"] == "Regressed") condition = &c;
  }
  ASSERT_NE(condition, nullptr);
  EXPECT_EQ((*condition)["status"], "True");
  EXPECT_EQ((*condition)["reason"], "FigureRegressed");
  EXPECT_EQ((*condition)["message"], "against Benchmark old: runSeconds 3600 against 1800 (+100.0%, band +10%, values)");
  EXPECT_EQ(regressed["phase"], "Succeeded") << "a regression is a finding, not a failure";

  // A band that allows it.
  json within = RunAgainst({{"benchmark", "old"}, {"tolerances", {{"runSeconds", 150}}}});
  EXPECT_EQ(within["conditions"].back()["status"], "False");
  EXPECT_EQ(within["conditions"].back()["reason"], "WithinTolerance");

  // A baseline that is not there: the verdict is Unknown, saying why, and the run still finishes.
  json unknown = RunAgainst({{"configMap", "gone-results"}});
  EXPECT_EQ(unknown["phase"], "Succeeded");
  EXPECT_EQ(unknown["conditions"].back()["status"], "Unknown");
  EXPECT_EQ(unknown["conditions"].back()["reason"], "BaselineUnavailable");
  EXPECT_NE(unknown["conditions"].back()["message"].get<std::string>().find("ConfigMap gone-results"), std::string::npos);
}

TEST_F(ReconcilerTest, AFailedResultsWriteIsRetriedWithTheFilesStillThere) {
  FinishGang();
  ArtifactCache artifacts;
  const Gang gang = Gang{1, 0};
  artifacts.Put("ns/b", gang, ArtifactBundle{});
  auto echo = transport_.handler;
  transport_.handler = [echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.path.ends_with("/configmaps")) return kube::HttpResponse{500, R"({"kind":"Status","message":"etcd"})"};
    return echo(r);
  };
  transport_.requests.clear();
  EXPECT_FALSE(BenchmarkReconciler(FinishingDeps(&artifacts)).Reconcile("ns/b").ok());
  EXPECT_TRUE(LastStatusWrite().is_null()) << "no status before the results are kept";
  EXPECT_TRUE(artifacts.Has("ns/b", gang));
}

// A refusal no retry mends (here a quota on ConfigMaps) does not hold the Benchmark unfinished:
// it finishes, with its results in status, and an Event says what was not kept.
TEST_F(ReconcilerTest, AResultsConfigMapTheApiRefusesForGoodIsShownAndTheBenchmarkFinishes) {
  FinishGang();
  auto echo = transport_.handler;
  transport_.handler = [echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "POST" && r.path.ends_with("/configmaps")) {
      return kube::HttpResponse{403, R"({"kind":"Status","reason":"Forbidden","message":"exceeded quota: q, requested: configmaps=1"})"};
    }
    return echo(r);
  };
  transport_.requests.clear();
  ASSERT_TRUE(BenchmarkReconciler(FinishingDeps(nullptr)).Reconcile("ns/b").ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Succeeded");
  const json event = PostedBody("/api/v1/namespaces/ns/events");
  EXPECT_EQ(event["reason"], "ResultsNotKept");
  EXPECT_NE(event["message"].get<std::string>().find("exceeded quota"), std::string::npos) << event["message"];
}

// Kept results of an earlier Benchmark of the same name are not overwritten: an Event says so,
// and this run finishes with its results in status.
TEST_F(ReconcilerTest, AnotherBenchmarksKeptResultsStay) {
  FinishGang();
  auto echo = transport_.handler;
  transport_.handler = [echo](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "POST" && r.path.ends_with("/configmaps")) return kube::HttpResponse{409, R"({"kind":"Status","reason":"AlreadyExists"})"};
    if (r.method == "GET" && r.path.ends_with("/configmaps/b-results")) {
      return kube::HttpResponse{200, R"({"metadata":{"name":"b-results","annotations":{"ergobench.io/benchmark-uid":"u-0"}}})"};
    }
    return echo(r);
  };
  transport_.requests.clear();
  ASSERT_TRUE(BenchmarkReconciler(FinishingDeps(nullptr)).Reconcile("ns/b").ok());
  EXPECT_EQ(LastStatusWrite()["phase"], "Succeeded");
  const json event = PostedBody("/api/v1/namespaces/ns/events");
  EXPECT_EQ(event["reason"], "ResultsNotKept");
  EXPECT_NE(event["message"].get<std::string>().find("uid u-0"), std::string::npos);
  for (const auto& r : transport_.requests) {
    EXPECT_FALSE(r.method == "PUT" && r.path.find("/configmaps/") != std::string::npos) << "the kept results were replaced";
  }
}

// A Dataset the Benchmark reads must be Ready first: until then no pod exists and the
// condition says why; once it is, every worker mounts its claim read-only and the runner reads
// the Dataset's folder inside it.
TEST_F(ReconcilerTest, ABenchmarkWaitsPendingForItsDatasetThenMountsItsClaimReadOnly) {
  const json spec = {{"task", "1a"}, {"workers", 1}, {"dataset", {{"ref", "cifar"}, {"path", "cifar-10-batches-bin"}}}};
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {}});
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec)).ok());
  json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["conditions"][0]["type"], "DatasetReady");
  EXPECT_EQ(status["conditions"][0]["status"], "False");
  EXPECT_EQ(status["conditions"][0]["reason"], "DatasetNotFound");
  EXPECT_TRUE(PostedBody("/api/v1/namespaces/ns/pods").is_null()) << "no worker before the data";

  json dataset = {{"apiVersion", "ergobench.io/v1alpha1"},
                  {"kind", "Dataset"},
                  {"metadata", {{"name", "cifar"}, {"namespace", "ns"}, {"uid", "d-1"}, {"generation", 2}}},
                  {"spec", {{"source", {{"url", "http://x/c.tgz"}, {"sha256", std::string(64, 'a')}}}}},
                  {"status", {{"phase", "Staging"}, {"observedGeneration", 2}}}};
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {dataset}});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, status)).ok());
  status = LastStatusWrite();
  EXPECT_EQ(status["conditions"][0]["reason"], "DatasetNotReady");
  EXPECT_TRUE(PostedBody("/api/v1/namespaces/ns/pods").is_null());

  // Ready for an older generation of its spec is not ready.
  dataset["status"] = {{"phase", "Ready"}, {"observedGeneration", 1}, {"claimName", "cifar-data"}, {"path", "aaa/data"}};
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {dataset}});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, status)).ok());
  EXPECT_TRUE(PostedBody("/api/v1/namespaces/ns/pods").is_null());

  dataset["status"]["observedGeneration"] = 2;
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {dataset}});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, status)).ok());
  const json pod = PostedBody("/api/v1/namespaces/ns/pods");
  ASSERT_FALSE(pod.is_null());
  EXPECT_EQ(pod["spec"]["volumes"].back(),
            json({{"name", "dataset"}, {"persistentVolumeClaim", {{"claimName", "cifar-data"}, {"readOnly", true}}}}));
  EXPECT_EQ(pod["spec"]["containers"][0]["volumeMounts"].back(),
            json({{"name", "dataset"}, {"mountPath", "/data"}, {"readOnly", true}}));
  const json config = json::parse(PostedBody("/api/v1/namespaces/ns/configmaps")["data"]["benchmark.json"].get<std::string>());
  EXPECT_EQ(config["spec"]["dataset"]["path"], "/data/aaa/data/cifar-10-batches-bin");
  EXPECT_EQ(config["spec"]["dataset"]["source"], "path");
  status = LastStatusWrite();
  EXPECT_EQ(status["conditions"][0]["type"], "DatasetReady");
  EXPECT_EQ(status["conditions"][0]["status"], "True");
}

// A Dataset that failed to stage holds its readers back with its own words, rather than
// failing them: an edit of the Dataset lets them start.
TEST_F(ReconcilerTest, AFailedDatasetHoldsItsReadersWithItsReason) {
  const json spec = {{"task", "1a"}, {"dataset", {{"ref", "cifar"}}}};
  const json dataset = {{"apiVersion", "ergobench.io/v1alpha1"},
                        {"kind", "Dataset"},
                        {"metadata", {{"name", "cifar"}, {"namespace", "ns"}, {"uid", "d-1"}, {"generation", 1}}},
                        {"spec", json::object()},
                        {"status",
                         {{"phase", "Failed"},
                          {"observedGeneration", 1},
                          {"conditions", {{{"type", "Ready"}, {"status", "False"}, {"message", "sha256 mismatch"}}}}}}};
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {dataset}});
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec)).ok());
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["conditions"][0]["reason"], "DatasetFailed");
  EXPECT_NE(status["conditions"][0]["message"].get<std::string>().find("sha256 mismatch"), std::string::npos);
}

// A gang already running keeps its mount: a Dataset deleted (or re-staging) under it holds
// back only pods yet to be created, never the status of the ranks that run or finish.
TEST_F(ReconcilerTest, ARunningGangWhoseDatasetGoesStillFinishes) {
  const json spec = {{"task", "1a"}, {"workers", 2}, {"dataset", {{"ref", "cifar"}}}};
  const json dataset = {{"apiVersion", "ergobench.io/v1alpha1"},
                        {"kind", "Dataset"},
                        {"metadata", {{"name", "cifar"}, {"namespace", "ns"}, {"uid", "d-1"}, {"generation", 1}}},
                        {"spec", json::object()},
                        {"status", {{"phase", "Ready"}, {"observedGeneration", 1}, {"claimName", "cifar-data"}}}};
  datasets_.Apply({runtime::WatcherEvent::kRestarted, {dataset}});
  const std::vector<json> pods = StartGang(BenchmarkObject(spec));
  ASSERT_EQ(pods.size(), 2u);
  ASSERT_EQ(gang_status_["phase"], "Running");

  datasets_.Apply({runtime::WatcherEvent::kRestarted, {}});  // deleted while the gang runs
  pods_.Apply({runtime::WatcherEvent::kRestarted, Succeeded(pods)});
  transport_.requests.clear();
  ASSERT_TRUE(Reconcile(BenchmarkObject(spec, 1, gang_status_)).ok());
  const json status = LastStatusWrite();
  EXPECT_EQ(status["phase"], "Succeeded");
  const auto ready = std::find_if(status["conditions"].begin(), status["conditions"].end(),
                                  [](const json& c) { return c["type"] == "DatasetReady"; });
  ASSERT_NE(ready, status["conditions"].end());
  EXPECT_EQ((*ready)["reason"], "DatasetNotFound");
  EXPECT_TRUE(PostedBody("/api/v1/namespaces/ns/pods").is_null());
}

}  // namespace
}  // namespace ergobench::controller
