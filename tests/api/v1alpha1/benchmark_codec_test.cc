#include "api/v1alpha1/benchmark_codec.h"

#include <gtest/gtest.h>

#include "base/yaml_json.h"

namespace ergobench {
namespace {

constexpr const char* kFullBenchmark = R"(
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata:
  name: task1a-k4
  namespace: bench
  labels: {team: hpc}
  ownerReferences: [{kind: Thing, name: x}]
spec:
  task: 0a
  workers: 4
  backend: mpi
  device: cpu
  dataset: {source: synthetic}
  hyperparameters: {repetitions: 10, dtype: float32}
  image: registry.example/ergobench-runner:1
  resources: {cpu: 3, memory: 8Gi, gpu: 0}
  scheduling:
    ranksPerNode: 2
    nodeSelector: {pool: cpu}
    tolerations: [{key: dedicated, operator: Exists}]
    schedulerName: volcano
    priorityClassName: high
  pricing: {currency: USD, workerHour: 0.2092, preemptibleWorkerHour: 0.044, label: n1-standard-4}
  runPolicy: {backoffLimit: 2, activeDeadlineSeconds: 86400, ttlSecondsAfterFinished: 60, cleanPodPolicy: Running, keepResults: true}
status:
  phase: Running
  conditions:
  - {type: Running, status: "True", reason: PodsRunning, message: all up, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 3}
  startTime: "2026-01-01T00:00:00Z"
  observedGeneration: 3
  restarts: 1
  workers: {ready: 4, running: 4, succeeded: 0, failed: 0}
  progress: {epoch: 3, step: 1200, metric: accuracy, value: 0.61}
  results: {initSeconds: 1.5, runSeconds: 20, samplesPerSecond: 1000, phaseSeconds: {communication: 2.5}}
)";

Benchmark Decode(const std::string& yaml, FieldErrors* errors) {
  auto docs = ParseYamlDocuments(yaml, "t.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return DecodeBenchmark(docs->front(), errors);
}

TEST(BenchmarkCodecTest, DecodesEveryField) {
  FieldErrors errors;
  Benchmark b = Decode(kFullBenchmark, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_EQ(b.metadata.name, "task1a-k4");
  EXPECT_EQ(b.metadata.namespace_name, "bench");
  EXPECT_EQ(b.metadata.labels.at("team"), "hpc");
  EXPECT_EQ(b.spec.task, "0a");
  EXPECT_EQ(b.spec.workers, 4);
  EXPECT_EQ(b.spec.backend, "mpi");
  EXPECT_EQ(b.spec.hyperparameters["repetitions"], 10);
  EXPECT_EQ(b.spec.resources.cpu, "3");
  EXPECT_EQ(b.spec.resources.memory, "8Gi");
  EXPECT_EQ(b.spec.scheduling.node_selector.at("pool"), "cpu");
  EXPECT_EQ(b.spec.scheduling.tolerations[0]["key"], "dedicated");
  EXPECT_EQ(b.spec.scheduling.scheduler_name, "volcano");
  EXPECT_EQ(b.spec.scheduling.ranks_per_node, 2);
  ASSERT_TRUE(b.spec.pricing);
  EXPECT_DOUBLE_EQ(*b.spec.pricing->worker_hour, 0.2092);
  EXPECT_DOUBLE_EQ(*b.spec.pricing->preemptible_worker_hour, 0.044);
  EXPECT_EQ(b.spec.run_policy.backoff_limit, 2);
  EXPECT_EQ(b.spec.run_policy.active_deadline_seconds, 86400);
  EXPECT_EQ(b.spec.run_policy.ttl_seconds_after_finished, 60);
  EXPECT_EQ(b.spec.run_policy.clean_pod_policy, "Running");
  EXPECT_TRUE(b.spec.run_policy.keep_results);
  EXPECT_EQ(b.status.phase, "Running");
  ASSERT_EQ(b.status.conditions.size(), 1u);
  EXPECT_EQ(b.status.conditions[0].observed_generation, 3);
  EXPECT_EQ(b.status.observed_generation, 3);
  EXPECT_EQ(b.status.restarts, 1);
  EXPECT_EQ(b.status.workers.ready, 4);
  EXPECT_EQ(b.status.progress->step, 1200);
  EXPECT_DOUBLE_EQ(*b.status.progress->value, 0.61);
  EXPECT_DOUBLE_EQ(*b.status.results->figures.samples_per_second, 1000);
  EXPECT_DOUBLE_EQ(b.status.results->figures.phase_seconds.at("communication"), 2.5);
}

TEST(BenchmarkCodecTest, RoundTripIsLossless) {
  FieldErrors errors;
  Benchmark b = Decode(kFullBenchmark, &errors);
  ASSERT_TRUE(errors.empty());
  nlohmann::json once = EncodeBenchmark(b);
  FieldErrors errors2;
  Benchmark again = DecodeBenchmark(once, &errors2);
  ASSERT_TRUE(errors2.empty()) << errors2.ToString();
  EXPECT_EQ(EncodeBenchmark(again), once);
  // Server-owned metadata survives the trip.
  EXPECT_EQ(once["metadata"]["ownerReferences"][0]["name"], "x");
}

TEST(BenchmarkCodecTest, UnknownFieldsAreReportedWithPaths) {
  FieldErrors errors;
  Decode("apiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: a}\n"
         "spec: {task: 0a, workres: 4, runPolicy: {backofLimit: 1}}\nextra: 1\n",
         &errors);
  std::string all = errors.ToString();
  EXPECT_NE(all.find("spec.workres: unknown field"), std::string::npos) << all;
  EXPECT_NE(all.find("spec.runPolicy.backofLimit: unknown field"), std::string::npos) << all;
  EXPECT_NE(all.find("extra: unknown field"), std::string::npos) << all;
  EXPECT_EQ(errors.size(), 3u) << all;
}

TEST(BenchmarkCodecTest, WrongTypesAreReportedWithPaths) {
  FieldErrors errors;
  Decode("apiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: a}\n"
         "spec: {task: 0a, workers: four, backend: 3, hyperparameters: [1], scheduling: {tolerations: {}}}\n",
         &errors);
  std::string all = errors.ToString();
  EXPECT_NE(all.find("spec.workers: must be an integer, got string \"four\""), std::string::npos) << all;
  EXPECT_NE(all.find("spec.backend: must be a string, got integer 3"), std::string::npos) << all;
  EXPECT_NE(all.find("spec.hyperparameters: must be an object, got list"), std::string::npos) << all;
  EXPECT_NE(all.find("spec.scheduling.tolerations: must be a list, got object"), std::string::npos) << all;
}

TEST(BenchmarkCodecTest, QuotedTaskIdStaysAString) {
  FieldErrors errors;
  Benchmark b = Decode("spec: {task: \"1.10\"}\n", &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(b.spec.task, "1.10");
}

TEST(BenchmarkCodecTest, EmptyStatusIsOmitted) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "x";
  nlohmann::json json = EncodeBenchmark(b);
  EXPECT_FALSE(json.contains("status"));
  // The spec holds plain values: one worker unless said, one run without repeats.
  EXPECT_EQ(json["spec"]["workers"], 1);
  EXPECT_FALSE(json["spec"].contains("repeats"));
}

TEST(BenchmarkCodecTest, AbsentCountsReadAsTheirDefaultsAndZeroStaysZero) {
  FieldErrors errors;
  Benchmark b = Decode("spec: {task: fmnist}\n", &errors);
  EXPECT_EQ(b.spec.workers, 1);
  EXPECT_EQ(b.spec.repeats, 1);
  EXPECT_EQ(b.spec.scheduling.ranks_per_node, 1);
  b = Decode("spec: {task: fmnist, workers: 0, repeats: 0, scheduling: {ranksPerNode: 0}}\n", &errors);
  EXPECT_EQ(b.spec.workers, 0);  // validation says it is wrong (validation_test)
  EXPECT_EQ(b.spec.repeats, 0);
  EXPECT_EQ(b.spec.scheduling.ranks_per_node, 0);
  EXPECT_EQ(EncodeBenchmark(b)["spec"]["repeats"], 0);
  EXPECT_TRUE(errors.empty()) << errors.ToString();
}

}  // namespace
}  // namespace ergobench
