#include "api/pricing/price_catalog.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "base/rfc3339.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

constexpr char kOne[] = R"(prices:
  - {provider: aws, instanceType: m5.xlarge, kind: instance, region: us-east-1, currency: USD,
     onDemandHour: 0.192, effectiveDate: "2024-01-01", source: list})";

TEST(PriceCatalog, EveryProblemIsNamedByItsField) {
  const Status bad = ParsePriceCatalog(R"(prices:
  - {instanceType: x, kind: machine, currency: dollars, onDemandHour: 0, effectiveDate: "2024-13-01", hourly: 2}
carbonIntensity:
  - {region: r, gramsPerKwh: 10})", "t.yaml").status();
  const std::string m(bad.message());
  for (const char* expected :
       {"prices[0].kind: must be instance or accelerator", "prices[0].currency: must be a three-letter ISO 4217 code",
        "prices[0].onDemandHour: must be a positive price", "prices[0].effectiveDate: is required, as YYYY-MM-DD",
        "prices[0].source: is required", "prices[0].hourly", "carbonIntensity[0].year: is required",
        "carbonIntensity[0].source: is required"}) {
    EXPECT_NE(m.find(expected), std::string::npos) << expected << " in " << m;
  }
  EXPECT_EQ(m.rfind("t.yaml: ", 0), 0u) << m;
  EXPECT_FALSE(ParsePriceCatalog("- {instanceType: x}", "t.yaml").ok()) << "the old list form";
}

TEST(PriceCatalog, ARegionsOwnPriceBeforeOneForAnyRegion) {
  PriceCatalog catalog = *ParsePriceCatalog(R"(prices:
  - {instanceType: m5.xlarge, currency: USD, onDemandHour: 0.2, effectiveDate: "2024-01-01", source: any}
  - {provider: aws, instanceType: m5.xlarge, region: eu-west-1, currency: USD, onDemandHour: 0.214,
     effectiveDate: "2024-01-01", source: eu})", "t.yaml");
  EXPECT_EQ(FindPrice(catalog, kPriceInstance, "aws", "m5.xlarge", "eu-west-1")->on_demand_hour, 0.214);
  EXPECT_EQ(FindPrice(catalog, kPriceInstance, "aws", "m5.xlarge", "us-west-2")->on_demand_hour, 0.2);
  EXPECT_EQ(FindPrice(catalog, kPriceInstance, "gcp", "m5.xlarge", "eu-west-1")->source, "any")
      << "another provider's entry is not this one's";
  EXPECT_EQ(FindPrice(catalog, kPriceAccelerator, "aws", "m5.xlarge", "eu-west-1"), nullptr);
  EXPECT_EQ(FindPrice(catalog, kPriceInstance, "aws", "m5.2xlarge", "eu-west-1"), nullptr);
}

TEST(PriceCatalog, ALaterFileReplacesAnEntryOfTheSameKeyAndAddsTheRest) {
  const std::string dir = ::testing::TempDir() + "/catalog-merge";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Write(dir + "/00-shipped.yaml", kOne);
  Write(dir + "/10-ours.yaml", R"(prices:
  - {provider: aws, instanceType: m5.xlarge, kind: instance, region: us-east-1, currency: USD,
     onDemandHour: 0.15, effectiveDate: "2026-11-01", source: our contract}
  - {provider: aws, instanceType: m5.2xlarge, kind: instance, region: us-east-1, currency: USD,
     onDemandHour: 0.30, effectiveDate: "2026-11-01", source: our contract})");
  Write(dir + "/README.txt", "not a catalog");
  StatusOr<PriceCatalog> catalog = LoadPriceCatalogDir(dir);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  ASSERT_EQ(catalog->prices.size(), 2u);
  EXPECT_EQ(FindPrice(*catalog, kPriceInstance, "aws", "m5.xlarge", "us-east-1")->on_demand_hour, 0.15);
  EXPECT_EQ(FindPrice(*catalog, kPriceInstance, "aws", "m5.xlarge", "us-east-1")->origin, dir + "/10-ours.yaml");
  EXPECT_EQ(catalog->origins.size(), 2u);
  EXPECT_FALSE(LoadPriceCatalogDir(dir + "/missing").ok());
}

TEST(PriceCatalogSource, ReReadsAChangedFileAndKeepsTheLastGoodOne) {
  const std::string dir = ::testing::TempDir() + "/catalog-source";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Write(dir + "/prices.yaml", kOne);
  PriceCatalogSource source(dir);
  EXPECT_EQ(source.Current().prices.at(0).on_demand_hour, 0.192);
  // An edit of another length: the fingerprint sees it whatever the file time's resolution.
  Write(dir + "/prices.yaml", std::string(kOne).replace(std::string(kOne).find("0.192"), 5, "0.2"));
  EXPECT_EQ(source.Current().prices.at(0).on_demand_hour, 0.2);
  EXPECT_TRUE(source.error().empty());
  Write(dir + "/prices.yaml", "prices: [{instanceType: broken}]");
  EXPECT_EQ(source.Current().prices.at(0).on_demand_hour, 0.2) << "the last good catalog";
  EXPECT_NE(source.error().find("prices[0].onDemandHour"), std::string::npos) << source.error();
}

// The audit's Low: an unreadable folder at start left an empty catalog, so runs cost nothing.
TEST(PriceCatalogSource, AFolderUnreadableFromTheStartGivesTheBuiltInCatalog) {
  PriceCatalogSource source(::testing::TempDir() + "/no-such-catalog");
  EXPECT_EQ(source.Current().prices.size(), BuiltInPriceCatalog().prices.size());
  EXPECT_FALSE(source.Current().prices.empty());
  EXPECT_NE(source.error(), "");
}

// The audit's Low: +Inf passed "must be positive".
TEST(PriceCatalog, AnInfinitePriceIsNoPrice) {
  for (const char* price : {".inf", ".nan"}) {
    std::string text = kOne;
    text.replace(text.find("0.192"), 5, price);
    const Status bad = ParsePriceCatalog(text, "t.yaml").status();
    EXPECT_NE(std::string(bad.message()).find("prices[0].onDemandHour: must be a positive price"), std::string::npos)
        << price << ": " << bad.message();
  }
}

TEST(BuiltInPriceCatalog, CoversTheThreeCloudsCpuAndGpuEachDatedAndSourced) {
  const PriceCatalog& catalog = BuiltInPriceCatalog();
  std::set<std::string> providers;
  bool a100 = false;
  bool h100 = false;
  for (const PriceEntry& e : catalog.prices) {
    providers.insert(e.provider);
    EXPECT_TRUE(e.source.starts_with("https://")) << e.instance_type << ": " << e.source;
    EXPECT_TRUE(ParseRfc3339(e.effective_date + "T00:00:00Z").has_value()) << e.instance_type;
    a100 = a100 || e.accelerator_model.find("A100") != std::string::npos;
    h100 = h100 || e.accelerator_model.find("H100") != std::string::npos;
  }
  EXPECT_EQ(providers, (std::set<std::string>{"aws", "azure", "gcp"}));
  EXPECT_TRUE(a100);
  EXPECT_TRUE(h100);
  EXPECT_FALSE(catalog.carbon.empty());
  for (const CarbonIntensity& c : catalog.carbon) EXPECT_TRUE(c.source.starts_with("https://")) << c.region;
}

}  // namespace
}  // namespace ergobench
