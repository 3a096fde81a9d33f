#include "api/v1alpha1/sweep.h"

#include <gtest/gtest.h>

#include "base/yaml_json.h"

namespace ergobench {
namespace {

BenchmarkSweep Parse(const std::string& yaml, FieldErrors* errors) {
  auto documents = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(documents.ok()) << documents.status().ToString();
  return DecodeSweep(documents->front(), errors);
}

const char kScaling[] = R"(
apiVersion: ergobench.io/v1alpha1
kind: BenchmarkSweep
metadata: {name: scale, namespace: team}
spec:
  template:
    task: fmnist
    backend: gloo
    goal: {light: true}
    hyperparameters: {batchSize: 64}
  matrix:
    workers: [1, 2, 4]
    hyperparameters: {learningRate: [0.01, 0.02]}
  repeats: 3
)";

std::vector<SweepPoint> Expand(const std::string& yaml, FieldErrors* errors) {
  BenchmarkSweep sweep = Parse(yaml, errors);
  EXPECT_TRUE(errors->empty()) << errors->ToString();
  return ExpandSweep(sweep, errors);
}

TEST(Sweep, ExpandsTheMatrixWithWorkersInnermostIntoValidNamedPoints) {
  FieldErrors errors;
  const std::vector<SweepPoint> points = Expand(kScaling, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  ASSERT_EQ(points.size(), 6u);
  const int64_t workers[] = {1, 2, 4, 1, 2, 4};
  const double rates[] = {0.01, 0.01, 0.01, 0.02, 0.02, 0.02};
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    EXPECT_EQ(p.index, static_cast<int64_t>(i));
    EXPECT_EQ(p.benchmark.metadata.name, "scale-" + std::to_string(i));
    EXPECT_EQ(p.benchmark.metadata.namespace_name, "team");
    EXPECT_EQ(p.benchmark.metadata.labels.at(kSweepLabel), "scale");
    EXPECT_EQ(p.benchmark.metadata.labels.at(kSweepPointLabel), std::to_string(i));
    EXPECT_EQ(p.benchmark.spec.workers, workers[i]);
    EXPECT_EQ(p.benchmark.spec.repeats, 3);
    EXPECT_EQ(p.benchmark.spec.hyperparameters["learningRate"], rates[i]);
    EXPECT_EQ(p.benchmark.spec.hyperparameters["batchSize"], 64) << "weak scaling keeps each worker's batch";
    EXPECT_EQ(p.parameters, (SweepParameters{workers[i], "gloo", "", {{"learningRate", rates[i]}}, std::nullopt}));
    EXPECT_EQ(p.spec["workers"], workers[i]);
    EXPECT_FALSE(p.spec.contains("maxEpochs")) << "the child is created before defaults, as a user would write it";
  }
  EXPECT_EQ(DescribeParameters(points[4].parameters), "workers=2 backend=gloo learningRate=0.02");
}

TEST(Sweep, StrongScalingSharesTheGlobalBatchAmongTheWorkers) {
  std::string yaml = kScaling;
  yaml.replace(yaml.find("  repeats: 3"), 12, "  scaling: strong");
  FieldErrors errors;
  const std::vector<SweepPoint> points = Expand(yaml, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_EQ(points[0].benchmark.spec.hyperparameters["batchSize"], 64);
  EXPECT_EQ(points[1].benchmark.spec.hyperparameters["batchSize"], 32);
  EXPECT_EQ(points[2].benchmark.spec.hyperparameters["batchSize"], 16);
  EXPECT_EQ(points[2].spec["hyperparameters"]["batchSize"], 16) << "the child is created with its share";

  yaml.replace(yaml.find("[1, 2, 4]"), 9, "[1, 3]");
  errors = FieldErrors();
  EXPECT_TRUE(Expand(yaml, &errors).empty());
  EXPECT_EQ(errors.ToString(),
            "point scale-1 (workers=3 backend=gloo learningRate=0.01) spec.hyperparameters.batchSize: strong scaling "
            "shares the global batch 64 among 3 workers: it must be a multiple of workers\n"
            "point scale-3 (workers=3 backend=gloo learningRate=0.02) spec.hyperparameters.batchSize: strong scaling "
            "shares the global batch 64 among 3 workers: it must be a multiple of workers");
}

TEST(Sweep, OrdersAreReversedOrAFixedShuffle) {
  std::string yaml = kScaling;
  yaml += "  order: reversed\n";
  FieldErrors errors;
  std::vector<int64_t> order;
  for (const SweepPoint& p : Expand(yaml, &errors)) order.push_back(p.index);
  EXPECT_EQ(order, (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  yaml.replace(yaml.find("order: reversed"), 15, "order: shuffled");
  std::vector<int64_t> shuffled;
  for (const SweepPoint& p : Expand(yaml, &errors)) shuffled.push_back(p.index);
  std::vector<int64_t> again;
  for (const SweepPoint& p : Expand(yaml, &errors)) again.push_back(p.index);
  EXPECT_EQ(shuffled, again) << "the same sweep runs in the same order";
  EXPECT_NE(shuffled, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  std::vector<int64_t> sorted = shuffled;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4, 5})) << "every point runs once";
}

TEST(Sweep, SystemsAndBackendsSetTheirPointsSchedulingAndBackend) {
  const char yaml[] = R"(
kind: BenchmarkSweep
metadata: {name: where}
spec:
  template: {task: "0a"}
  matrix:
    backend: [gloo, mpi]
    systems:
      - {name: c5, scheduling: {nodeSelector: {node.kubernetes.io/instance-type: c5.4xlarge}}, pricing: {label: c5.4xlarge, region: us-east-1}}
      - {name: n2, scheduling: {nodeSelector: {node.kubernetes.io/instance-type: n2-standard-8}}}
)";
  FieldErrors errors;
  const std::vector<SweepPoint> points = Expand(yaml, &errors);
  ASSERT_EQ(points.size(), 4u) << errors.ToString();
  EXPECT_EQ(points[1].parameters, (SweepParameters{1, "mpi", "c5", nlohmann::json::object(), std::nullopt}));
  EXPECT_EQ(points[1].benchmark.spec.scheduling.node_selector.at("node.kubernetes.io/instance-type"), "c5.4xlarge");
  EXPECT_EQ(points[1].benchmark.spec.pricing->label, "c5.4xlarge");
  EXPECT_EQ(points[2].parameters, (SweepParameters{1, "gloo", "n2", nlohmann::json::object(), std::nullopt}));
  EXPECT_FALSE(points[2].benchmark.spec.pricing.has_value());
}

TEST(Sweep, EveryProblemIsNamedByItsFieldAndATemplatesByTheTemplate) {
  const char yaml[] = R"(
kind: BenchmarkSweep
metadata: {name: bad}
spec:
  template: {task: fmnist, hyperparameters: {momentum: 7}}
  matrix:
    workers: [1, 2, 2, 2000]
  concurrency: 0
  order: random
)";
  FieldErrors errors;
  BenchmarkSweep sweep = Parse(yaml, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  ExpandSweep(sweep, &errors);
  EXPECT_EQ(errors.ToString(),
            "spec.order: must be one of listed, reversed, shuffled, got \"random\"\n"
            "spec.concurrency: must be between 1 and 256, got 0\n"
            "spec.matrix.workers[2]: repeats an earlier value");
  sweep.spec.order = kOrderListed;
  sweep.spec.concurrency = 1;
  sweep.spec.matrix.workers = {1, 2000};
  errors = FieldErrors();
  ExpandSweep(sweep, &errors);
  const std::string text = errors.ToString();
  EXPECT_NE(text.find("spec.template.hyperparameters.momentum: "), std::string::npos) << text;
  EXPECT_NE(text.find("point bad-1 (workers=2000 backend=gloo) spec.workers: "), std::string::npos) << text;
  EXPECT_EQ(text.find("point bad-0"), std::string::npos) << "the template's error is said once: " << text;
}

TEST(Sweep, RefusesAMatrixOfMoreThanItsLimitAndAMissingTemplate) {
  FieldErrors errors;
  BenchmarkSweep sweep = Parse("kind: BenchmarkSweep\nmetadata: {name: big}\nspec: {matrix: {}}\n", &errors);
  EXPECT_EQ(errors.ToString(), "spec.template: is required: the Benchmark spec every point starts from");
  errors = FieldErrors();
  sweep.spec.template_spec = {{"task", "0a"}};
  for (int i = 0; i < 20; ++i) sweep.spec.matrix.hyperparameters["sizes"].push_back(i + 1);
  for (int i = 0; i < 20; ++i) sweep.spec.matrix.workers.push_back(i + 1);
  EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
  EXPECT_EQ(errors.ToString(), "spec.matrix: has 400 points; at most 256 run in one sweep");
}

// The audit's crash: strong scaling divided the global batch by the template's workers before
// validation said they were 0: SIGFPE, which the operator's reconcile loop cannot catch.
TEST(Sweep, StrongScalingOverNoWorkersIsAnErrorNotADivisionByZero) {
  FieldErrors errors;
  BenchmarkSweep sweep = Parse(R"(
kind: BenchmarkSweep
metadata: {name: strong}
spec:
  template: {task: fmnist, workers: 0, hyperparameters: {batchSize: 64}}
  scaling: strong
)", &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
  EXPECT_EQ(errors.ToString(), "point strong-0 (workers=0 backend=gloo) spec.workers: must be between 1 and 1024, got 0");
  errors = FieldErrors();
  sweep.spec.matrix.workers = {-1, 0};
  EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
  EXPECT_EQ(errors.ToString(), "point strong-0 (workers=-1 backend=gloo) spec.workers: must be between 1 and 1024, got -1\n"
                               "point strong-1 (workers=0 backend=gloo) spec.workers: must be between 1 and 1024, got 0");
}

// The audit's OOM: six axes of 20 values were 64 million points, built whole (tens of GB)
// before the limit was checked. The count comes first now, overflow and all.
TEST(Sweep, AMatrixIsCountedBeforeAnyPointIsBuilt) {
  FieldErrors errors;
  BenchmarkSweep sweep = Parse("kind: BenchmarkSweep\nmetadata: {name: huge}\nspec: {template: {task: 0a}}\n", &errors);
  for (const char* axis : {"a", "b", "c", "d", "e", "f"}) {
    for (int i = 0; i < 20; ++i) sweep.spec.matrix.hyperparameters[axis].push_back(i);
  }
  EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
  EXPECT_EQ(errors.ToString(), "spec.matrix: has 64000000 points; at most 256 run in one sweep");
  for (const char* axis : {"g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"}) {
    for (int i = 0; i < 20; ++i) sweep.spec.matrix.hyperparameters[axis].push_back(i);
  }
  errors = FieldErrors();
  EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
  EXPECT_EQ(errors.ToString(), "spec.matrix: has over 2^63 points; at most 256 run in one sweep");
}

// The audit's abort: a template whose hyperparameters were a list met a hyperparameter axis,
// and setting the point's value into the list threw out of the expansion.
TEST(Sweep, ATemplatesHyperparametersMustBeAnObject) {
  FieldErrors errors;
  Parse(R"(
kind: BenchmarkSweep
metadata: {name: shape}
spec:
  template: {task: fmnist, hyperparameters: [1, 2]}
  matrix: {hyperparameters: {batchSize: [32, 64]}}
)", &errors);
  EXPECT_EQ(errors.ToString(), "spec.template.hyperparameters: must be an object (name: value), got list");
}

// An error every point has is the sweep's, under the field that set it: spec.repeats is the
// sweep's own, a matrix axis is the matrix's, the rest is the template's.
TEST(Sweep, AnErrorEveryPointHasIsNamedByTheSweepsFieldThatSetIt) {
  FieldErrors errors;
  BenchmarkSweep sweep = Parse(R"(
kind: BenchmarkSweep
metadata: {name: paths}
spec:
  template: {task: fmnist, maxEpochs: 0}
  matrix: {workers: [1, 2], hyperparameters: {momentum: [7]}}
  repeats: 0
)", &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  ExpandSweep(sweep, &errors);
  const std::string text = errors.ToString();
  EXPECT_NE(text.find("spec.repeats: must be between 1 and"), std::string::npos) << text;
  EXPECT_NE(text.find("spec.matrix.hyperparameters.momentum: "), std::string::npos) << text;
  EXPECT_NE(text.find("spec.template.maxEpochs: "), std::string::npos) << text;
  EXPECT_EQ(text.find("spec.template.repeats"), std::string::npos) << text;
  EXPECT_EQ(text.find("point "), std::string::npos) << text;
}

const char kInstances[] = R"(
kind: BenchmarkSweep
metadata: {name: weak}
spec:
  template: {task: fmnist, workers: 1}
  matrix: {workers: [1, 2]}
  instances: 3
)";

TEST(Sweep, InstancesAreAPointsModelsEachWithItsOwnSeedAndRunAtOnce) {
  FieldErrors errors;
  const std::vector<SweepPoint> points = Expand(kInstances, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  ASSERT_EQ(points.size(), 6u);
  const int64_t workers[] = {1, 1, 1, 2, 2, 2};
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const int64_t instance = static_cast<int64_t>(i % 3);
    EXPECT_EQ(p.benchmark.metadata.name, "weak-" + std::to_string(i));
    EXPECT_EQ(p.parameters, (SweepParameters{workers[i], "gloo", "", nlohmann::json::object(), instance}));
    EXPECT_EQ(p.benchmark.spec.hyperparameters["seed"], 42 + instance) << "fmnist's seed 42 plus the instance";
    EXPECT_EQ(p.spec["hyperparameters"]["seed"], 42 + instance) << "the child is created with its seed";
  }
  EXPECT_EQ(DescribeParameters(points[4].parameters), "workers=2 backend=gloo instance=1");
  BenchmarkSweep sweep = Parse(kInstances, &errors);
  EXPECT_EQ(sweep.spec.concurrency, 3) << "unwritten, as many as the instances: they train at once";
  EXPECT_EQ(Parse(std::string(kInstances) + "  concurrency: 2\n", &errors).spec.concurrency, 2);
  EXPECT_EQ(Parse(kScaling, &errors).spec.concurrency, 1);
  EXPECT_EQ(EncodeSweepSpec(sweep.spec)["instances"], 3);
  EXPECT_FALSE(EncodeSweepSpec(Parse(kScaling, &errors).spec).contains("instances"));

  std::string seeded = kInstances;
  seeded.replace(seeded.find("workers: 1}"), 11, "workers: 1, hyperparameters: {seed: 2147483646}}");
  const std::vector<SweepPoint> wrapped = Expand(seeded, &errors);
  ASSERT_EQ(wrapped.size(), 6u) << errors.ToString();
  EXPECT_EQ(wrapped[2].benchmark.spec.hyperparameters["seed"], 0) << "within the seed's range, as a repeat's";
}

TEST(Sweep, InstancesTrainOnceEachFromASeedWithinTheLimit) {
  const auto errors_of = [](const std::string& yaml) {
    FieldErrors errors;
    BenchmarkSweep sweep = Parse(yaml, &errors);
    EXPECT_TRUE(ExpandSweep(sweep, &errors).empty());
    return errors.ToString();
  };
  EXPECT_EQ(errors_of(std::string(kInstances) + "  repeats: 3\n"),
            "spec.repeats: must be 1 with spec.instances: a weak-scaling sweep's instances train once each");
  std::string zero = kInstances;
  zero.replace(zero.find("instances: 3"), 12, "instances: 0");
  EXPECT_EQ(errors_of(zero), "spec.instances: must be between 1 and 256, got 0");
  std::string many = kInstances;
  many.replace(many.find("instances: 3"), 12, "instances: 200");
  EXPECT_EQ(errors_of(many), "spec.instances: 2 points x 200 instances are 400 runs; at most 256 run in one sweep");
  EXPECT_EQ(errors_of("kind: BenchmarkSweep\nmetadata: {name: w}\nspec: {template: {task: \"0a\"}, instances: 2}\n"),
            "spec.template.hyperparameters.seed: instances train a model each from a seed of their own, which task "
            "\"0a\" has not");
}

TEST(Sweep, StatusRoundTripsThroughJson) {
  BenchmarkSweepStatus status;
  status.phase = "Running";
  status.total = 2;
  status.succeeded = 1;
  status.progress = "1/2";
  status.best = "s-0 (120 samples/s)";
  SweepPointStatus point;
  point.index = 0;
  point.benchmark = "s-0";
  point.parameters = {1, "gloo", "", {{"batchSize", 32}}, std::nullopt};
  point.phase = "Succeeded";
  point.figures["samplesPerSecond"] = Summary{3, 120, 100, 130, 116, 15, 120, 80, 150};
  point.speedup = 1;
  point.efficiency = 1;
  point.baseline = "s-0";
  point.spec_digest = "0123456789abcdef";
  point.mlperf = MlperfScore{"resnet", 5, 5, 4, 10.5, 47500, 9.5, true, ""};
  point.parameters.instance = 0;
  point.run_start_ms = 1764000000000;
  point.run_stop_ms = 1764000090000;
  status.weak_scaling = {WeakScalingScore{{1, "gloo", "", {{"batchSize", 32}}, std::nullopt},
                                          2, 1, {"s-1: Failed"}, 1.5, 0.666, 0, false, "a note"}};
  status.points = {point, SweepPointStatus{1, "s-1", {2, "gloo", "", {{"batchSize", 32}}, 1}, "Running", "", {}, {}, {}, "", "", std::nullopt, std::nullopt, std::nullopt}};
  FieldErrors errors;
  const BenchmarkSweep decoded = DecodeSweep({{"kind", kSweepKind}, {"spec", {{"template", nlohmann::json::object()}}},
                                              {"status", EncodeSweepStatus(status)}},
                                             &errors, &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_EQ(EncodeSweepStatus(decoded.status), EncodeSweepStatus(status));
  EXPECT_EQ(decoded.status.points[0].figures.at("samplesPerSecond").ci95_high, 150);
  EXPECT_EQ(decoded.status.points[0].mlperf, point.mlperf);
  EXPECT_EQ(EncodeSweepStatus(status)["points"][0]["mlperf"]["timeToTrainMinutes"], 10.5);
  EXPECT_EQ(decoded.status.points[0].run_stop_ms, 1764000090000);
  EXPECT_EQ(decoded.status.points[0].parameters.instance, 0) << "instance 0 is written";
  EXPECT_EQ(decoded.status.weak_scaling, status.weak_scaling);
  EXPECT_EQ(EncodeSweepStatus(status)["weakScaling"][0]["modelsPerMinute"], 0.666);
}

}  // namespace
}  // namespace ergobench
