#include "api/pricing/cost.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/validation.h"
#include "base/rfc3339.h"

namespace ergobench {
namespace {

// Fixed test prices, not the shipped catalog's, so that each expected cost is worked out here.
constexpr char kCatalog[] = R"(
prices:
  - {provider: aws, instanceType: c5.4xlarge, kind: instance, region: us-east-1, currency: USD,
     onDemandHour: 0.68, spotHour: 0.25, effectiveDate: "2026-10-01", source: test}
  - {provider: aws, instanceType: c5.4xlarge, kind: instance, region: eu-west-1, currency: USD,
     onDemandHour: 0.76, effectiveDate: "2026-10-01", source: test}
  - {provider: gcp, instanceType: n1-standard-8, kind: instance, currency: USD,
     onDemandHour: 0.38, spotHour: 0.08, effectiveDate: "2026-10-01", source: test}
  - {provider: gcp, instanceType: nvidia-tesla-t4, kind: accelerator, currency: USD,
     onDemandHour: 0.35, spotHour: 0.14, effectiveDate: "2026-10-01", source: test}
  - {provider: azure, instanceType: Standard_D4s_v5, kind: instance, region: eastus, currency: USD,
     onDemandHour: 0.192, effectiveDate: "2020-01-01", source: old list}
carbonIntensity:
  - {provider: aws, region: us-east-1, gramsPerKwh: 400, year: 2022, source: test grid}
)";

const PriceCatalog& Catalog() {
  static const PriceCatalog catalog = *ParsePriceCatalog(kCatalog, "test.yaml");
  return catalog;
}

PricingContext Context() { return {&Catalog(), *ParseRfc3339("2026-11-24T00:00:00Z"), 365}; }

BenchmarkSpec Spec(int64_t workers) {
  Benchmark b;
  b.spec.task = "fmnist";
  b.spec.workers = workers;
  b.spec.resources.cpu = "4";
  b.spec.resources.memory = "8Gi";
  ApplyDefaults(&b);
  return b.spec;
}

NodeFacts Node(const std::string& name, const std::string& provider, const std::string& type, const std::string& region) {
  NodeFacts n;
  n.name = name;
  n.provider = provider;
  n.instance_type = type;
  n.region = region;
  n.cpus = 16;
  n.memory_bytes = 64.0 * (1 << 30);
  return n;
}

// An hour of timed region, half an hour to accuracy.
BenchmarkResults AnHourOfResults(const std::vector<NodeFacts>& nodes) {
  BenchmarkResults r;
  r.figures.run_seconds = 3600;
  r.figures.goal_reached = true;
  r.figures.time_to_accuracy_seconds = 1800;
  r.figures.samples = 2'000'000;
  r.system = DescribeSystem(nodes, {});
  return r;
}

TEST(Cost, TheSpecsPricesArePerWorkerAndWin) {
  BenchmarkSpec spec = Spec(4);
  spec.pricing = Pricing{"USD", 0.2092, 0.044, std::nullopt, "c5.4xlarge", ""};
  BenchmarkResults r = AnHourOfResults({Node("n1", "aws", "c5.4xlarge", "us-east-1")});
  r.figures.run_seconds = 1800;
  r.figures.time_to_accuracy_seconds = 900;
  PriceResults(spec, {{Node("n1", "aws", "c5.4xlarge", "us-east-1"), 4, true}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 4 * 0.5 * 0.2092);
  EXPECT_DOUBLE_EQ(*r.preemptible_cost_usd, 4 * 0.5 * 0.044);
  EXPECT_DOUBLE_EQ(*r.cost_to_accuracy_usd, 4 * 0.25 * 0.2092);
  EXPECT_DOUBLE_EQ(*r.preemptible_cost_to_accuracy_usd, 4 * 0.25 * 0.044);
  EXPECT_EQ(r.currency, "USD");
  EXPECT_EQ(r.cost_basis, "spec.pricing: 4 workers at the spec's prices");
}

TEST(Cost, GpusAddTheirAcceleratorHoursAndNoGoalNoCostToAccuracy) {
  BenchmarkSpec spec = Spec(2);
  spec.resources.gpu = 2;
  spec.pricing = Pricing{"USD", 0.2, std::nullopt, 0.35, "", ""};
  BenchmarkResults r = AnHourOfResults({});
  r.figures.goal_reached = false;
  PriceResults(spec, {}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 2 * 1 * (0.2 + 2 * 0.35));
  EXPECT_FALSE(r.cost_to_accuracy_usd.has_value());
  EXPECT_FALSE(r.preemptible_cost_usd.has_value()) << "no spot price was given";
}

TEST(Cost, ALabelIsOneInstancePerWorkerInTheNodesRegion) {
  BenchmarkSpec spec = Spec(3);
  spec.pricing = Pricing{"USD", std::nullopt, std::nullopt, std::nullopt, "c5.4xlarge", ""};
  BenchmarkResults r = AnHourOfResults({Node("n1", "", "", "eu-west-1")});
  PriceResults(spec, {}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 3 * 0.76);
  EXPECT_FALSE(r.preemptible_cost_usd) << "eu-west-1 has no spot price in the catalog";
  EXPECT_EQ(r.cost_basis, "spec.pricing.label: 3 x c5.4xlarge");
  // spec.pricing.region picks the region.
  spec.pricing->region = "us-east-1";
  BenchmarkResults east = AnHourOfResults({});
  PriceResults(spec, {}, Context(), &east);
  EXPECT_DOUBLE_EQ(*east.cost_usd, 3 * 0.68);
  EXPECT_DOUBLE_EQ(*east.preemptible_cost_usd, 3 * 0.25);
}

TEST(Cost, NodesHadAloneArePaidWhole) {
  const std::vector<NodeFacts> nodes = {Node("a", "aws", "c5.4xlarge", "us-east-1"), Node("b", "aws", "c5.4xlarge", "us-east-1")};
  BenchmarkResults r = AnHourOfResults(nodes);
  PriceResults(Spec(2), {{nodes[0], 1, true}, {nodes[1], 1, true}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 2 * 0.68);
  EXPECT_DOUBLE_EQ(*r.preemptible_cost_usd, 2 * 0.25);
  EXPECT_DOUBLE_EQ(*r.cost_to_accuracy_usd, 2 * 0.68 / 2);
  EXPECT_DOUBLE_EQ(*r.cost_per_million_samples, 2 * 0.68 / 2);
  EXPECT_EQ(r.cost_basis, "whole nodes: 2 x c5.4xlarge");
  ASSERT_EQ(r.prices.size(), 1u);
  EXPECT_EQ(r.prices[0].age_days, 54);
  EXPECT_FALSE(r.prices[0].stale);
  EXPECT_TRUE(r.cost_warnings.empty());
}

TEST(Cost, SharedNodesArePaidForTheLargestShareRequested) {
  const NodeFacts node = Node("a", "aws", "c5.4xlarge", "us-east-1");
  BenchmarkResults r = AnHourOfResults({node});
  // Two ranks of 4 CPUs and 8 GiB on a node of 16 CPUs and 64 GiB: half of it, by CPU.
  PriceResults(Spec(2), {{node, 2, false}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 0.5 * 0.68);
  EXPECT_EQ(r.cost_basis, "requested share: 0.5 of 1 x c5.4xlarge (nodes shared or not known to be alone)");
  // Memory decides when it is the larger share: 48 GiB of 64.
  BenchmarkSpec memory_bound = Spec(1);
  memory_bound.resources.memory = "48Gi";
  BenchmarkResults m = AnHourOfResults({node});
  PriceResults(memory_bound, {{node, 1, false}}, Context(), &m);
  EXPECT_DOUBLE_EQ(*m.cost_usd, 0.75 * 0.68);
}

TEST(Cost, ARunThatRequestedNothingIsChargedTheWholeNodeNotNothing) {
  const NodeFacts node = Node("a", "aws", "c5.4xlarge", "us-east-1");
  BenchmarkSpec spec = Spec(1);
  spec.resources.cpu.clear();
  spec.resources.memory.clear();
  BenchmarkResults r = AnHourOfResults({node});
  PriceResults(spec, {{node, 1, false}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 0.68);
}

TEST(Cost, AttachedGpusAreAddedPerDevice) {
  NodeFacts node = Node("g", "gcp", "n1-standard-8", "us-central1");
  node.accelerators = 2;
  node.accelerator_model = "nvidia-tesla-t4";
  BenchmarkSpec spec = Spec(1);
  spec.resources.gpu = 1;
  BenchmarkResults r = AnHourOfResults({node});
  PriceResults(spec, {{node, 1, true}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 0.38 + 2 * 0.35) << "the whole node: both of its GPUs";
  EXPECT_DOUBLE_EQ(*r.preemptible_cost_usd, 0.08 + 2 * 0.14);
  EXPECT_EQ(r.prices.size(), 2u);
}

TEST(Cost, AStalePriceIsUsedAndSaidNextToTheCost) {
  const NodeFacts node = Node("z", "azure", "Standard_D4s_v5", "eastus");
  BenchmarkResults r = AnHourOfResults({node});
  PriceResults(Spec(1), {{node, 1, true}}, Context(), &r);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 0.192);
  ASSERT_EQ(r.prices.size(), 1u);
  EXPECT_TRUE(r.prices[0].stale);
  EXPECT_EQ(r.prices[0].age_days, 2519);
  ASSERT_EQ(r.cost_warnings.size(), 1u);
  EXPECT_EQ(r.cost_warnings[0],
            "stale price: Standard_D4s_v5 in eastus is from 2020-01-01, 2519 days old (limit 365); refresh the catalog");
}

TEST(Cost, NoPriceIsNoCostAndSaysWhy) {
  const NodeFacts node = Node("x", "aws", "m9.huge", "us-east-1");
  BenchmarkResults r = AnHourOfResults({node});
  PriceResults(Spec(1), {{node, 1, true}}, Context(), &r);
  EXPECT_FALSE(r.cost_usd.has_value());
  ASSERT_EQ(r.cost_warnings.size(), 1u);
  EXPECT_EQ(r.cost_warnings[0], "no price for m9.huge in us-east-1 in the price catalog");
  // A node without an instance type says so.
  BenchmarkResults bare = AnHourOfResults({Node("kind-control-plane", "", "", "")});
  PriceResults(Spec(1), {{Node("kind-control-plane", "", "", ""), 1, true}}, Context(), &bare);
  EXPECT_FALSE(bare.cost_usd.has_value());
  EXPECT_EQ(bare.cost_warnings.at(0),
            "node kind-control-plane has no instance type to price it by (a node.kubernetes.io/instance-type label; "
            "give spec.pricing a label or workerHour otherwise)");
}

TEST(Cost, CarbonIsEnergyTimesTheRegionsGrid) {
  const NodeFacts node = Node("a", "aws", "c5.4xlarge", "us-east-1");
  BenchmarkResults r = AnHourOfResults({node});
  r.figures.energy_joules = 3.6e6;             // 1 kWh
  r.figures.energy_to_accuracy_joules = 1.8e6;  // 0.5 kWh
  PriceResults(Spec(1), {{node, 1, true}}, Context(), &r);
  ASSERT_TRUE(r.carbon.has_value());
  EXPECT_DOUBLE_EQ(*r.carbon->grams, 400);
  EXPECT_DOUBLE_EQ(*r.carbon->grams_to_accuracy, 200);
  EXPECT_EQ(r.carbon->source, "test grid");
  // No energy: no grams, never zero; no intensity for the region: no carbon at all.
  BenchmarkResults unmetered = AnHourOfResults({node});
  PriceResults(Spec(1), {{node, 1, true}}, Context(), &unmetered);
  EXPECT_FALSE(unmetered.carbon->grams.has_value());
  BenchmarkResults elsewhere = AnHourOfResults({Node("b", "aws", "c5.4xlarge", "eu-west-1")});
  elsewhere.figures.energy_joules = 3.6e6;
  PriceResults(Spec(1), {}, Context(), &elsewhere);
  EXPECT_FALSE(elsewhere.carbon.has_value());
}

TEST(Cost, PricingNeedsAPriceOrALabel) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "b";
  b.spec.task = "fmnist";
  b.spec.pricing = Pricing{};
  ApplyDefaults(&b);
  EXPECT_NE(ValidateBenchmark(b).ToString().find("spec.pricing.workerHour: is required when pricing is given, or a label"),
            std::string::npos);
  b.spec.pricing->region = "us-east-1";
  EXPECT_NE(ValidateBenchmark(b).ToString().find("spec.pricing.region: is the region of a label"), std::string::npos);
  b.spec.pricing->label = "c5.4xlarge";
  EXPECT_TRUE(ValidateBenchmark(b).empty()) << ValidateBenchmark(b).ToString();
}

}  // namespace
}  // namespace ergobench
