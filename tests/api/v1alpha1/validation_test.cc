#include "api/v1alpha1/validation.h"

#include <sstream>

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/load.h"
#include "base/yaml_json.h"
#include "tests/testing/test_paths.h"

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
  // The audit's Low: accepted, then the API server refused its Service.
  b.metadata.name = "9lives";
  EXPECT_EQ(OnlyError(b), "metadata.name: must start with a letter (its Service \"9lives-workers\" is a DNS-1035 "
                          "label), got \"9lives\"");
  b.metadata.name = std::string(60, 'a');
  EXPECT_EQ(OnlyError(b), "metadata.name: must be at most 54 characters so that worker pod names fit in 63, got 60");
  EXPECT_EQ(MaxNameLength(1), 54u);
  EXPECT_EQ(MaxNameLength(11), 53u);
  EXPECT_EQ(MaxNameLength(1024), 51u);
}

// The audit's crash: the name's std::regex recursed once per character, and a name of 100,000
// overflowed the stack. Its length is checked first now, and the grammar takes a loop.
TEST(ValidationTest, ANameOfAHundredThousandCharactersIsRefusedByItsLength) {
  Benchmark b = Valid();
  b.metadata.name = std::string(100000, 'a');
  EXPECT_EQ(OnlyError(b), "metadata.name: must be at most 63 characters, got 100000");
  b.metadata.name = std::string(100000, 'a') + "_";
  EXPECT_EQ(OnlyError(b), "metadata.name: must be at most 63 characters, got 100001");
}

TEST(ValidationTest, Task) {
  Benchmark b = Valid();
  b.spec.task = "9z";
  EXPECT_EQ(OnlyError(b), "spec.task: unknown task \"9z\"; known tasks: 0a, 1a, fmnist, resnet50, 2a, gpt, 4a, 4b, cosmoflow");
  b.spec.task = "";
  EXPECT_EQ(OnlyError(b), "spec.task: is required; known tasks: 0a, 1a, fmnist, resnet50, 2a, gpt, 4a, 4b, cosmoflow");
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
  b.spec.resources.gpu = 1;
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << "0a over NCCL on a GPU";
  b.spec.resources.gpu = 0;
  EXPECT_EQ(OnlyError(b), "spec.resources.gpu: must be at least 1 when device is cuda, got 0");
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

TEST(ValidationTest, ATranslationsGoalIsABleuOfAtMost100) {
  Benchmark b = Valid();
  b.spec.task = "4b";
  b.spec.hyperparameters = nlohmann::json::object();
  b.spec.dataset.source = "synthetic";
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.goal->metric, "bleu");
  EXPECT_EQ(*b.spec.goal->target, 25.0);  // MLBench's
  EXPECT_EQ(b.spec.hyperparameters["gradientAccumulation"], 0);  // max(16 / k, 1) in the runner
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << ValidateBenchmark(b).ToString();
  b.spec.goal->target = 100.5;
  EXPECT_EQ(OnlyError(b), "spec.goal.target: must be between 0 and 100, got 100.5");
  b.spec.goal = Goal{"accuracy", 0.8, false};
  EXPECT_EQ(OnlyError(b), "spec.goal.metric: task 4b measures bleu, got \"accuracy\"");
  b.spec.goal = Goal{"bleu", 25, false};
  b.spec.hyperparameters["heads"] = 0;
  EXPECT_EQ(OnlyError(b).rfind("spec.hyperparameters.heads: ", 0), 0u);
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

// ZeRO stage 3 gathers parameters block by block, which only gpt's model does.
TEST(ValidationTest, ZeroStageThreeIsForGptOnly) {
  Benchmark b = Valid();
  b.spec.task = "fmnist";
  b.spec.dataset.source = "synthetic";
  b.spec.hyperparameters = {{"gradientSync", "sharded"}, {"zeroStage", 3}};
  EXPECT_EQ(OnlyError(b), "spec.hyperparameters.zeroStage: must be between 1 and 2, got 3");
  b.spec.task = "gpt";
  b.spec.hyperparameters = {{"gradientSync", "sharded"}, {"zeroStage", 3}};
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << ValidateBenchmark(b).ToString();
}

TEST(ValidationTest, Dataset) {
  Benchmark b = Valid();
  b.spec.dataset.source = "ftp";
  EXPECT_EQ(OnlyError(b), "spec.dataset.source: must be one of synthetic, path or url, got \"ftp\"");
  b.spec.dataset.source = "path";
  FieldErrors errors = ValidateBenchmark(b);
  EXPECT_NE(errors.ToString().find("spec.dataset.path: is required when source is path"), std::string::npos);
  EXPECT_NE(errors.ToString().find("spec.dataset.source: task 0a supports synthetic, got \"path\""), std::string::npos);
  b.spec.dataset = {};
  b.spec.dataset.source = "url";
  b.spec.dataset.url = "https://example.org/x.tgz";
  b.spec.dataset.sha256 = "abc";
  errors = ValidateBenchmark(b);
  EXPECT_NE(errors.ToString().find("spec.dataset.sha256: must be 64 lowercase hex digits"), std::string::npos);
  // A Benchmark's own url gets a Dataset's checks (file:// aside, for a local run).
  b.spec.dataset.url = "https://me:s3cret@example.org/x.tgz";
  errors = ValidateBenchmark(b);
  EXPECT_NE(errors.ToString().find("spec.dataset.url: must not hold credentials"), std::string::npos) << errors.ToString();
  EXPECT_EQ(errors.ToString().find("s3cret"), std::string::npos);
  b.spec.dataset.url = "gopher://example.org/x.tgz";
  EXPECT_NE(ValidateBenchmark(b).ToString().find("spec.dataset.url: must be an http:// or https:// URL (or file:// for "
                                                 "a local run), got \"gopher://example.org/x.tgz\""),
            std::string::npos);
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
  b.spec.pricing = Pricing{"usd", 0.2, -1.0, std::nullopt, "", ""};
  FieldErrors errors = ValidateBenchmark(b);
  EXPECT_EQ(errors.size(), 2u) << errors.ToString();
  EXPECT_NE(errors.ToString().find("spec.pricing.currency: must be a three-letter ISO 4217 code"), std::string::npos);
  EXPECT_NE(errors.ToString().find("spec.pricing.preemptibleWorkerHour: must be 0 or more, got -1"), std::string::npos);
  b.spec.pricing = Pricing{"USD", std::nullopt, std::nullopt, std::nullopt, "", ""};
  EXPECT_EQ(OnlyError(b),
            "spec.pricing.workerHour: is required when pricing is given, or a label: an instance type of the price "
            "catalog (leave pricing out to price the run by its nodes' instance type)");
}

TEST(ValidationTest, RanksPerNode) {
  Benchmark b = Valid();
  b.spec.scheduling.ranks_per_node = 0;
  EXPECT_EQ(OnlyError(b), "spec.scheduling.ranksPerNode: must be between 1 and 1024, got 0");
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

TEST(ValidationTest, Repeats) {
  Benchmark b = Valid();
  b.spec.repeats = 0;
  EXPECT_EQ(OnlyError(b), "spec.repeats: must be between 1 and 100, got 0");
  b.spec.repeats = 3;
  EXPECT_TRUE(ValidateBenchmark(b).empty());
}

TEST(ValidationTest, Baseline) {
  Benchmark b = Valid();
  b.spec.baseline = Baseline{};
  EXPECT_EQ(OnlyError(b), "spec.baseline: needs exactly one of benchmark, configMap or path, got 0");
  b.spec.baseline = Baseline{"old", "old-results", "", {}};
  EXPECT_EQ(OnlyError(b), "spec.baseline: needs exactly one of benchmark, configMap or path, got 2");
  b.spec.baseline = Baseline{"old", "", "", {{"samplesPerSecond", 100}}};
  EXPECT_EQ(OnlyError(b), "spec.baseline.tolerances.samplesPerSecond: must be between 0 and 99.999, got 100");
  b.spec.baseline = Baseline{"old", "", "", {{"timeToAccuracySeconds", 150}, {"accuracy", 5}}};
  EXPECT_EQ(OnlyError(b).rfind("spec.baseline.tolerances.accuracy: is not a headline figure; known: ", 0), 0u);
  // A ratio's band is in percentage points: a ratio cannot rise by more than 100 of them.
  b.spec.baseline = Baseline{"old", "", "", {{"communicationRatio", 150}}};
  EXPECT_EQ(OnlyError(b), "spec.baseline.tolerances.communicationRatio: must be between 0 and 100, got 150");
  b.spec.baseline = Baseline{"", "", "results/old", {{"runSeconds", 20}}};
  EXPECT_TRUE(ValidateBenchmark(b).empty());
}

// The audit's Low: a baseline named "other-team/x" went into the API path as it was. A baseline
// is read in the Benchmark's own namespace, by a name.
TEST(ValidationTest, ABaselineIsANameInThisNamespace) {
  Benchmark b = Valid();
  b.spec.baseline = Baseline{"other-team/x", "", "", {}};
  EXPECT_EQ(OnlyError(b), "spec.baseline.benchmark: must be lowercase letters, digits and '-', starting and ending "
                          "with a letter or digit, got \"other-team/x\"");
  b.spec.baseline = Baseline{"", "../secrets", "", {}};
  EXPECT_EQ(OnlyError(b), "spec.baseline.configMap: must be a ConfigMap's name in this namespace (lowercase letters, "
                          "digits, '-' and '.'), got \"../secrets\"");
  b.spec.baseline = Baseline{"", "team.results-1", "", {}};
  EXPECT_TRUE(ValidateBenchmark(b).empty());
}

// The CRD's maxLengths hold for `ergobench run` too, which has no API server in front of it,
// and a long value is quoted shortened, so an error stays short enough for an Event.
TEST(ValidationTest, LongStringsAreRefusedAndQuotedShort) {
  Benchmark b = Valid();
  b.spec.task = std::string(64, 'x');
  const std::string error = OnlyError(b);
  EXPECT_EQ(error.rfind("spec.task: must be at most 63 bytes, got 64", 0), 0u) << error;
  b.spec.task = std::string(2000, 'x');
  EXPECT_LT(OnlyError(b).size(), 200u);

  b = Valid();
  b.spec.scheduling.scheduler_name = std::string(254, 's');
  EXPECT_EQ(OnlyError(b), "spec.scheduling.schedulerName: must be at most 253 bytes, got 254");
  b = Valid();
  b.spec.scheduling.node_selector["zone"] = std::string(64, 'z');
  EXPECT_EQ(OnlyError(b), "spec.scheduling.nodeSelector.zone: must be at most 63 bytes, got 64");
  b = Valid();
  b.spec.scheduling.tolerations = nlohmann::json::array();
  for (int i = 0; i < 33; ++i) b.spec.scheduling.tolerations.push_back({{"operator", "Exists"}});
  EXPECT_EQ(OnlyError(b), "spec.scheduling.tolerations: must have at most 32 items, got 33");
}

// Each limit here is the CRD's: one number, two places that enforce it.
TEST(ValidationTest, LimitsAreTheCrds) {
  auto text = ReadFile(std::string(testing::kSourceDir) + "/manifests/crd/benchmarks.ergobench.io.yaml");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto docs = ParseYamlDocuments(*text, "crd");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  nlohmann::json spec = (*docs)[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  for (const SpecLimit& limit : SpecLimits()) {
    nlohmann::json* node = &spec;
    std::stringstream path(limit.path.substr(std::string("spec.").size()));
    for (std::string name; std::getline(path, name, '.');) {
      node = name == "*" ? &(*node)["additionalProperties"] : &(*node)["properties"][name];
    }
    ASSERT_TRUE(node->is_object()) << limit.path << " is not in the CRD";
    EXPECT_EQ(node->value(limit.keyword, nlohmann::json()), limit.max) << limit.path << " " << limit.keyword;
  }
}

// The image-reference grammar of the distribution project (what a kubelet accepts); anything
// else sat in InvalidImageName, or was a shell fragment.
TEST(ValidationTest, ImageReferences) {
  for (const char* good : {"ergobench-runner:0.2.0", "registry.example:5000/team/runner:v1", "runner",
                           "localhost/ergobench-runner:latest", "a.b/c__d/e-f.g@sha256:" 
                           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                           "ghcr.io/org/runner:1.2@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}) {
    Benchmark b = Valid();
    b.spec.image = good;
    EXPECT_TRUE(ValidateBenchmark(b).empty()) << good << ": " << ValidateBenchmark(b).ToString();
  }
  for (const char* bad : {"x; rm -rf /", "Runner:1", "runner:", "runner:-x", "/runner", "runner@sha256:12",
                          "a//b", "runner:1 ", ""}) {
    Benchmark b = Valid();
    b.spec.image = bad;
    if (std::string(bad).empty()) continue;  // empty: the operator's default image
    EXPECT_EQ(OnlyError(b).rfind("spec.image: ", 0), 0u) << bad;
  }
  Benchmark b = Valid();
  b.spec.image = "r/" + std::string(600, 'a');
  EXPECT_EQ(OnlyError(b), "spec.image: must be at most 512 bytes, got 602");
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
