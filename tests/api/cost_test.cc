#include "api/cost.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "api/defaults.h"
#include "api/validation.h"

namespace ergobench {
namespace {

TEST(PriceTable, TheDefaultTableParsesWithDatesAndSources) {
  auto table = LoadPriceTable();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const auto n1 = std::find_if(table->begin(), table->end(), [](const PriceEntry& e) { return e.label == "n1-standard-4"; });
  ASSERT_NE(n1, table->end());
  EXPECT_DOUBLE_EQ(n1->hour, 0.2092);
  EXPECT_DOUBLE_EQ(*n1->preemptible_hour, 0.044);
  for (const PriceEntry& e : *table) {
    EXPECT_FALSE(e.date.empty()) << e.label;
    EXPECT_FALSE(e.source.empty()) << e.label;
  }
}

TEST(PriceTable, BadTablesAreNamed) {
  EXPECT_NE(ParsePriceTable("- {label: x, kind: instance, currency: USD, hour: 1}", "t.yaml").status().message()
                .find("t.yaml[0]: every price needs its date and its source"),
            std::string::npos);
  EXPECT_NE(ParsePriceTable("- {label: x, hour: 1, date: d, source: s, hourly: 2}", "t.yaml").status().message()
                .find("hourly"),
            std::string::npos);
  EXPECT_FALSE(ParsePriceTable("label: x", "t.yaml").ok());
}

Benchmark Priced(const Pricing& pricing, int64_t workers = 4) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "b";
  b.spec.task = "fmnist";
  b.spec.workers = workers;
  b.spec.pricing = pricing;
  ApplyDefaults(&b);
  return b;
}

TEST(Cost, ALabelTakesItsPricesFromTheTable) {
  Pricing p;
  p.label = "n1-standard-4";
  const Benchmark b = Priced(p);
  EXPECT_DOUBLE_EQ(*b.spec.pricing->worker_hour, 0.2092);
  EXPECT_DOUBLE_EQ(*b.spec.pricing->preemptible_worker_hour, 0.044);
  EXPECT_EQ(b.spec.pricing->currency, "USD");
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << ValidateBenchmark(b).ToString();
  // Prices in the spec win over the table.
  p.worker_hour = 1.0;
  EXPECT_DOUBLE_EQ(*Priced(p).spec.pricing->worker_hour, 1.0);
}

TEST(Cost, AnUnknownLabelIsAnError) {
  Pricing p;
  p.label = "m5.xlarge";
  const FieldErrors errors = ValidateBenchmark(Priced(p));
  EXPECT_NE(errors.ToString().find("spec.pricing.label: \"m5.xlarge\" is not an instance in the price table"),
            std::string::npos)
      << errors.ToString();
}

TEST(Cost, RanksTimesHoursTimesPrice) {
  Pricing p;
  p.label = "n1-standard-4";
  const Benchmark b = Priced(p, 4);
  BenchmarkResults results;
  results.figures.run_seconds = 1800;  // half an hour
  results.figures.goal_reached = true;
  results.figures.time_to_accuracy_seconds = 900;
  PriceResults(b.spec, &results);
  EXPECT_DOUBLE_EQ(*results.cost_usd, 4 * 0.5 * 0.2092);
  EXPECT_DOUBLE_EQ(*results.preemptible_cost_usd, 4 * 0.5 * 0.044);
  EXPECT_DOUBLE_EQ(*results.cost_to_accuracy_usd, 4 * 0.25 * 0.2092);
  EXPECT_DOUBLE_EQ(*results.preemptible_cost_to_accuracy_usd, 4 * 0.25 * 0.044);
  EXPECT_EQ(results.currency, "USD");
}

TEST(Cost, GpusAddTheirAcceleratorHoursAndNoGoalNoCostToAccuracy) {
  Pricing p;
  p.worker_hour = 0.2;
  p.accelerator_hour = 0.35;
  Benchmark b = Priced(p, 2);
  b.spec.resources.gpu = 2;
  BenchmarkResults results;
  results.figures.run_seconds = 3600;
  results.figures.goal_reached = false;
  results.figures.time_to_accuracy_seconds = 100;
  PriceResults(b.spec, &results);
  EXPECT_DOUBLE_EQ(*results.cost_usd, 2 * 1 * (0.2 + 2 * 0.35));
  EXPECT_FALSE(results.cost_to_accuracy_usd.has_value());
  EXPECT_FALSE(results.preemptible_cost_usd.has_value());
}

TEST(Cost, AnOverrideTable) {
  const std::string path = ::testing::TempDir() + "/prices.yaml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("- {label: my-node, kind: instance, currency: EUR, hour: 2.5, date: \"2026-11\", source: contract}\n", f);
  std::fclose(f);
  setenv("ERGOBENCH_PRICE_TABLE", path.c_str(), 1);
  Pricing p;
  p.label = "my-node";
  const Benchmark b = Priced(p);
  unsetenv("ERGOBENCH_PRICE_TABLE");
  EXPECT_DOUBLE_EQ(*b.spec.pricing->worker_hour, 2.5);
  EXPECT_EQ(b.spec.pricing->currency, "EUR");
}

}  // namespace
}  // namespace ergobench
