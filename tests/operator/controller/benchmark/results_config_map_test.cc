#include "operator/controller/benchmark/results_config_map.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"
#include "tests/testing/golden.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;
using testing::ExpectGolden;

Benchmark Finished(bool keep_results = false) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "sweep";
  b.metadata.namespace_name = "bench";
  b.metadata.uid = "0b9d2c1e-5f3a-4c0e-9a7b-1d2e3f405162";
  b.spec.task = "0a";
  b.spec.workers = 2;
  b.spec.run_policy.keep_results = keep_results;
  ApplyDefaults(&b);
  b.status.phase = "Succeeded";
  return b;
}

std::vector<RankResult> Ranks() {
  std::vector<RankResult> ranks(2);
  for (int i = 0; i < 2; ++i) {
    ranks[i].rank = i;
    ranks[i].benchmark = "sweep";
    ranks[i].status = kRankSucceeded;
    ranks[i].summary = "rank " + std::to_string(i) + " succeeded";
  }
  return ranks;
}

ArtifactBundle Bundle() {
  ArtifactBundle bundle;
  bundle.files = {{"rank-0.mllog", ":::MLLOG {\"key\": \"run_stop\"}\n"}, {"allreduce.csv", "bytes,busbw\n4,1000\n"}};
  bundle.skipped = {{"trace.bin", 4, "not UTF-8 text"}};
  return bundle;
}

TEST(ResultsConfigMapTest, HoldsWhatALocalRunLeavesAndSaysSo) {
  ExpectGolden(BuildResultsConfigMap(Finished(), Ranks(), {Bundle(), ""}), "results-configmap.json");
}

TEST(ResultsConfigMapTest, WhatDoesNotFitIsListedNeverCut) {
  ArtifactBundle bundle = Bundle();
  bundle.files["allreduce.json"] = std::string(6000, 'x');
  const json cm = BuildResultsConfigMap(Finished(), Ranks(), {bundle, ""}, 8000);
  const json& data = cm["data"];
  EXPECT_TRUE(data.contains("benchmark.json"));
  EXPECT_TRUE(data.contains("rank-1.json"));
  EXPECT_TRUE(data.contains("rank-0.mllog"));  // smaller artifacts first
  EXPECT_FALSE(data.contains("allreduce.json"));
  const std::string manifest = data[kResultsManifestKey];
  EXPECT_NE(manifest.find("left-out\tallreduce.json\t6000\tover the results ConfigMap's budget of 7.8 KiB\n"),
            std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("left-out\ttrace.bin\t4\trank 0 left it out: not UTF-8 text\n"), std::string::npos);
  int64_t total = 0;
  for (const auto& [key, value] : data.items()) total += static_cast<int64_t>(key.size() + value.get<std::string>().size());
  EXPECT_LE(total, 8000);
}

TEST(ResultsConfigMapTest, MissingArtifactsAreNamedWithTheirReason) {
  const json cm = BuildResultsConfigMap(Finished(), Ranks(), {std::nullopt, "rank 0 ended before they were read"});
  EXPECT_NE(cm["data"][kResultsManifestKey].get<std::string>().find(
                "left-out\trank 0's files\t-\trank 0 ended before they were read\n"),
            std::string::npos);
}

TEST(ResultsConfigMapTest, KeptResultsHaveNoOwnerButNameTheirBenchmark) {
  const json owned = BuildResultsConfigMap(Finished(), Ranks(), {Bundle(), ""});
  EXPECT_EQ(owned["metadata"]["ownerReferences"][0]["uid"], "0b9d2c1e-5f3a-4c0e-9a7b-1d2e3f405162");
  const json kept = BuildResultsConfigMap(Finished(true), Ranks(), {Bundle(), ""});
  EXPECT_FALSE(kept["metadata"].contains("ownerReferences"));
  EXPECT_EQ(kept["metadata"]["name"], "sweep-results");
  EXPECT_EQ(kept["metadata"]["annotations"][kResultsOfUidAnnotation], "0b9d2c1e-5f3a-4c0e-9a7b-1d2e3f405162");
}

}  // namespace
}  // namespace ergobench::controller
