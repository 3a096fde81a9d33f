#include "api/v1alpha1/defaults.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/catalog.h"

namespace ergobench {
namespace {

Benchmark Minimal(const std::string& task) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "x";
  b.spec.task = task;
  return b;
}

TEST(DefaultsTest, FillsEngineDefaults) {
  Benchmark b = Minimal("0a");
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.workers, 1);
  EXPECT_EQ(b.spec.scheduling.ranks_per_node, 1);  // MLBench: one worker per node
  EXPECT_EQ(b.spec.backend, "gloo");
  EXPECT_EQ(b.spec.device, "cpu");
  EXPECT_EQ(b.spec.image, DefaultRunnerImage());
  EXPECT_EQ(b.spec.run_policy.clean_pod_policy, "All");
  EXPECT_EQ(b.spec.run_policy.backoff_limit, 0);
  EXPECT_FALSE(b.spec.run_policy.active_deadline_seconds);
}

TEST(DefaultsTest, FillsTheTaskRecipe) {
  Benchmark b = Minimal("0a");
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.dataset.source, "synthetic");
  EXPECT_EQ(b.spec.hyperparameters["minElements"], 1);
  EXPECT_EQ(b.spec.hyperparameters["maxElements"], 100000000);
  EXPECT_EQ(b.spec.hyperparameters["sizes"], 80);
  EXPECT_EQ(b.spec.hyperparameters["repetitions"], 100);
  EXPECT_EQ(b.spec.hyperparameters["dtype"], "float32");
  // 0a does not train: no goal, no epochs.
  EXPECT_FALSE(b.spec.goal);
  EXPECT_FALSE(b.spec.max_epochs);
}

TEST(DefaultsTest, KeepsWhatTheUserSet) {
  Benchmark b = Minimal("0a");
  b.spec.workers = 3;
  b.spec.backend = "mpi";
  b.spec.hyperparameters["repetitions"] = 7;
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.workers, 3);
  EXPECT_EQ(b.spec.backend, "mpi");
  EXPECT_EQ(b.spec.hyperparameters["repetitions"], 7);
  EXPECT_EQ(b.spec.hyperparameters["sizes"], 80);
}

TEST(DefaultsTest, IsIdempotent) {
  Benchmark b = Minimal("0a");
  ApplyDefaults(&b);
  nlohmann::json before = b.spec.hyperparameters;
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.hyperparameters, before);
}

TEST(DefaultsTest, UnknownTaskGetsOnlyEngineDefaults) {
  Benchmark b = Minimal("nope");
  ApplyDefaults(&b);
  EXPECT_EQ(b.spec.backend, "gloo");
  EXPECT_TRUE(b.spec.hyperparameters.empty());
  EXPECT_TRUE(b.spec.dataset.source.empty());
}

TEST(CatalogTest, FindsTasksById) {
  ASSERT_NE(FindTask("0a"), nullptr);
  EXPECT_EQ(FindTask("0a")->origin, "MLBench task 0a");
  EXPECT_EQ(FindTask("zz"), nullptr);
  EXPECT_NE(KnownTaskIds().find("0a"), std::string::npos);
  // Every default satisfies its own bounds, or defaulted specs would fail validation.
  for (const TaskDef& task : TaskCatalog()) {
    for (const HyperparameterDef& h : task.hyperparameters) {
      if (h.default_value.is_number()) {
        EXPECT_GE(h.default_value.get<double>(), h.min.value_or(-1e300)) << task.id << "." << h.name;
        EXPECT_LE(h.default_value.get<double>(), h.max.value_or(1e300)) << task.id << "." << h.name;
      }
    }
  }
}

}  // namespace
}  // namespace ergobench
