#include "api/validation.h"

#include <gtest/gtest.h>

#include "api/defaults.h"

namespace ergobench {
namespace {

Benchmark Valid() {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "task0a-k2";
  b.spec.task = "0a";
  b.spec.workers = 2;
  ApplyDefaults(&b);
  return b;
}

// The one error validation reports, or a failure listing all of them.
std::string OnlyError(const Benchmark& b) {
  FieldErrors errors = ValidateBenchmark(b);
  EXPECT_EQ(errors.size(), 1u) << errors.ToString();
  return errors.empty() ? "" : errors.errors().front().ToString();
}

TEST(ValidationTest, DefaultedMinimalBenchmarkIsValid) {
  FieldErrors errors = ValidateBenchmark(Valid());
  EXPECT_TRUE(errors.empty()) << errors.ToString();
}

TEST(ValidationTest, ApiVersionAndKind) {
  Benchmark b = Valid();
  b.api_version = "ergobench.io/v1";
  EXPECT_EQ(OnlyError(b), "apiVersion: must be ergobench.io/v1alpha1, got \"ergobench.io/v1\"");
  b = Valid();
  b.kind = "Job";
  EXPECT_EQ(OnlyError(b), "kind: must be Benchmark, got \"Job\"");
}

TEST(ValidationTest, Name) {
  Benchmark b = Valid();
  b.metadata.name = "";
  EXPECT_EQ(OnlyError(b), "metadata.name: is required");
  b.metadata.name = "Bad_Name";
  EXPECT_NE(OnlyError(b).find("metadata.name: must be lowercase"), std::string::npos);
  b.metadata.name = std::string(60, 'a');
  EXPECT_EQ(OnlyError(b), "metadata.name: must be at most 54 characters so that worker pod names fit in 63, got 60");
  EXPECT_EQ(MaxNameLength(1), 54u);
  EXPECT_EQ(MaxNameLength(11), 53u);
  EXPECT_EQ(MaxNameLength(1024), 51u);
}

TEST(ValidationTest, Task) {
  Benchmark b = Valid();
  b.spec.task = "9z";
  EXPECT_EQ(OnlyError(b), "spec.task: unknown task \"9z\"; known tasks: 0a, 1a, fmnist, 2a, gpt");
  b.spec.task = "";
  EXPECT_EQ(OnlyError(b), "spec.task: is required; known tasks: 0a, 1a, fmnist, 2a, gpt");
}

TEST(ValidationTest, Workers) {
  Benchmark b = Valid();
  b.spec.workers = 0;
  EXPECT_EQ(OnlyError(b), "spec.workers: must be between 1 and 1024, got 0");
  b.spec.workers = 1025;
  EXPECT_EQ(OnlyError(b), "spec.workers: must be between 1 and 1024, got 1025");
  b.spec.workers = 1024;
  EXPECT_TRUE(ValidateBenchmark(b).empty());
}

TEST(ValidationTest, BackendAndDevice) {
  Benchmark b = Valid();
  b.spec.backend = "tcp";
  EXPECT_EQ(OnlyError(b), "spec.backend: must be one of gloo, mpi or nccl, got \"tcp\"");
  b = Valid();
  b.spec.device = "tpu";
  EXPECT_EQ(OnlyError(b), "spec.device: must be one of cpu or cuda, got \"tpu\"");
  b = Valid();
  b.spec.backend = "nccl";
  EXPECT_EQ(OnlyError(b), "spec.backend: nccl needs device cuda, got device \"cpu\"");
  b.spec.device = "cuda";
  EXPECT_EQ(OnlyError(b), "spec.resources.gpu: must be at least 1 when device is cuda, got 0");
  b.spec.resources.gpu = 1;
  EXPECT_TRUE(ValidateBenchmark(b).empty());
}

TEST(ValidationTest, GoalAndEpochsOnANonTrainingTask) {
  Benchmark b = Valid();
  b.spec.goal = Goal{"accuracy", 0.8, false};
  EXPECT_EQ(OnlyError(b), "spec.goal: task 0a has no accuracy goal");
  b = Valid();
  b.spec.max_epochs = 3;
  EXPECT_EQ(OnlyError(b), "spec.maxEpochs: task 0a does not train");
}

TEST(ValidationTest, ALanguageModelsGoalIsALossAtOrBelowAPositiveTarget) {
  Benchmark b = Valid();
  b.spec.task = "gpt";
  b.spec.hyperparameters = nlohmann::json::object();
  b.spec.dataset.source = "path";
  b.spec.dataset.path = "/corpus";
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.goal->metric, "loss");
  EXPECT_EQ(*b.spec.goal->target, 3.3);
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << ValidateBenchmark(b).ToString();
  b.spec.goal->target = 0;
  EXPECT_EQ(OnlyError(b), "spec.goal.target: must be between 1e-09 and 100, got 0");
  b.spec.goal = Goal{"accuracy", 0.8, false};
  EXPECT_EQ(OnlyError(b), "spec.goal.metric: task gpt measures loss, got \"accuracy\"");
  b.spec.goal = Goal{"loss", 2.5, false};
  b.spec.hyperparameters["precision"] = "fp8";
  EXPECT_EQ(OnlyError(b).rfind("spec.hyperparameters.precision: ", 0), 0u);
}

TEST(ValidationTest, Hyperparameters) {
  Benchmark b = Valid();
  b.spec.hyperparameters["repetitons"] = 5;
  EXPECT_NE(OnlyError(b).find("spec.hyperparameters.repetitons: unknown hyperparameter for task 0a; known: "),
            std::string::npos);
  b = Valid();
  b.spec.hyperparameters["repetitions"] = 0;
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.repetitions: must be between 1 and 100000, got 0");
  b = Valid();
  b.spec.hyperparameters["sizes"] = "many";
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.sizes: must be an integer, got string \"many\"");
  b = Valid();
  b.spec.hyperparameters["sizes"] = 2.5;
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.sizes: must be an integer, got number 2.5");
  b = Valid();
  b.spec.hyperparameters["dtype"] = "int8";
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.dtype: must be one of float32 or float16, got \"int8\"");
  b = Valid();
  b.spec.hyperparameters["minElements"] = 1000;
  b.spec.hyperparameters["maxElements"] = 10;
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.minElements: must not exceed maxElements (10), got 1000");
  b = Valid();
  b.spec.backend = "mpi";
  b.spec.hyperparameters["dtype"] = "float16";
  EXPECT_NE(OnlyError(b).find("float16 is not supported by backend mpi"), std::string::npos);
}

TEST(ValidationTest, Dataset) {
  Benchmark b = Valid();
  b.spec.dataset.source = "ftp";
  EXPECT_EQ(OnlyError(b), "spec.dataset.source: must be one of synthetic, path or url, got \"ftp\"");
  b.spec.dataset.source = "path";
  FieldErrors errors = ValidateBenchmark(b);
  EXPECT_NE(errors.ToString().find("spec.dataset.path: is required when source is path"), std::string::npos);
  EXPECT_NE(errors.ToString().find("spec.dataset.source: task 0a supports synthetic, got \"path\""), std::string::npos);
  b.spec.dataset = {"url", "", "https://example.org/x.tgz", "abc"};
  errors = ValidateBenchmark(b);
  EXPECT_NE(errors.ToString().find("spec.dataset.sha256: must be 64 lowercase hex digits"), std::string::npos);
}

TEST(ValidationTest, Resources) {
  Benchmark b = Valid();
  b.spec.resources.cpu = "three";
  EXPECT_NE(OnlyError(b).find("spec.resources.cpu: \"three\" is not a quantity"), std::string::npos);
  b.spec.resources.cpu = "500m";
  b.spec.resources.memory = "0";
  EXPECT_EQ(OnlyError(b), "spec.resources.memory: must be positive, got \"0\"");
  b.spec.resources.memory = "8Gi";
  b.spec.resources.gpu = -1;
  EXPECT_EQ(OnlyError(b), "spec.resources.gpu: must be 0 or more, got -1");
}

TEST(ValidationTest, Scheduling) {
  Benchmark b = Valid();
  b.spec.scheduling.tolerations = nlohmann::json::array({nlohmann::json::object(), 3});
  EXPECT_EQ(OnlyError(b), "spec.scheduling.tolerations[1]: must be an object, got integer");
}

TEST(ValidationTest, Pricing) {
  Benchmark b = Valid();
  b.spec.pricing = Pricing{"usd", 0.2, -1.0, std::nullopt, ""};
  FieldErrors errors = ValidateBenchmark(b);
  EXPECT_EQ(errors.size(), 2u) << errors.ToString();
  EXPECT_NE(errors.ToString().find("spec.pricing.currency: must be a three-letter ISO 4217 code"), std::string::npos);
  EXPECT_NE(errors.ToString().find("spec.pricing.preemptibleWorkerHour: must be 0 or more, got -1"), std::string::npos);
  b.spec.pricing = Pricing{"USD", std::nullopt, std::nullopt, std::nullopt, ""};
  EXPECT_EQ(OnlyError(b), "spec.pricing.workerHour: is required when pricing is given (or a label from the price table)");
}

TEST(ValidationTest, RunPolicy) {
  Benchmark b = Valid();
  b.spec.run_policy.backoff_limit = -1;
  EXPECT_EQ(OnlyError(b), "spec.runPolicy.backoffLimit: must be between 0 and 100, got -1");
  b = Valid();
  b.spec.run_policy.active_deadline_seconds = 0;
  EXPECT_EQ(OnlyError(b), "spec.runPolicy.activeDeadlineSeconds: must be at least 1, got 0");
  b = Valid();
  b.spec.run_policy.ttl_seconds_after_finished = -5;
  EXPECT_EQ(OnlyError(b), "spec.runPolicy.ttlSecondsAfterFinished: must be 0 or more, got -5");
  b = Valid();
  b.spec.run_policy.clean_pod_policy = "Some";
  EXPECT_EQ(OnlyError(b), "spec.runPolicy.cleanPodPolicy: must be one of All, Running or None, got \"Some\"");
}

TEST(ValidationTest, ReportsEveryProblemAtOnce) {
  Benchmark b = Valid();
  b.spec.workers = 0;
  b.spec.backend = "x";
  b.spec.hyperparameters["warmup"] = -1;
  EXPECT_EQ(ValidateBenchmark(b).size(), 3u);
}

}  // namespace
}  // namespace ergobench
