#include "cli/results/results_export.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/contract/artifact_bundle.h"
#include "cli/report/report.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char kBenchmark[] = R"({"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark",
  "metadata": {"name": "sweep", "namespace": "bench"}, "spec": {"task": "0a", "workers": 2},
  "status": {"phase": "Succeeded", "results": {"samplesPerSecond": 812.5}}})";

json ResultsConfigMap() {
  return {{"metadata", {{"name", "sweep-results"}}},
          {"data",
           {{"benchmark.json", kBenchmark},
            {"rank-0.mllog", ":::MLLOG {}\n"},
            {"MANIFEST", "# ergobench results of bench/sweep\nkept\trank-0.mllog\t12\n"
                         "left-out\tallreduce.json\t2000000\tover the results ConfigMap's budget of 900.0 KiB\n"}}}};
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ResultsExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ergobench-export-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

// The folder a local run leaves: `ergobench report` reads it as it reads a local run's.
TEST_F(ResultsExportTest, WritesALocalRunsFolderThatReportReads) {
  auto left_out = WriteResultsFolder(ResultsConfigMap(), (root_ / "sweep").string());
  ASSERT_TRUE(left_out.ok()) << left_out.status().ToString();
  EXPECT_EQ(*left_out, std::vector<std::string>{
                           "left-out\tallreduce.json\t2000000\tover the results ConfigMap's budget of 900.0 KiB"});
  EXPECT_EQ(Read(root_ / "sweep" / "rank-0.mllog"), ":::MLLOG {}\n");
  auto runs = LoadResultDirectories({root_.string()});
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].metadata.name, "sweep");
  EXPECT_EQ(*(*runs)[0].status.results->figures.samples_per_second, 812.5);
}

TEST_F(ResultsExportTest, AnExistingFolderIsNotMixedInto) {
  fs::create_directories(root_ / "sweep");
  auto written = WriteResultsFolder(ResultsConfigMap(), (root_ / "sweep").string());
  EXPECT_EQ(written.status().code(), StatusCode::kAlreadyExists);
}

// The ConfigMap comes from the cluster: a key is never a path out of the folder.
TEST_F(ResultsExportTest, KeysThatAreNotFileNamesAreRefusedBeforeAnythingIsWritten) {
  json cm = ResultsConfigMap();
  cm["data"]["..bashrc"] = "fine, a name";
  cm["data"][".."] = "x";
  auto written = WriteResultsFolder(cm, (root_ / "sweep").string());
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(written.status().message().find("\"..\""), std::string::npos) << written.status().message();
  EXPECT_FALSE(fs::exists(root_ / "sweep"));
}

TEST_F(ResultsExportTest, AConfigMapWithoutABenchmarkIsNotResults) {
  auto written = WriteResultsFolder(json{{"metadata", {{"name", "x"}}}, {"data", {{"a", "b"}}}}, (root_ / "x").string());
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument);
}

// `ergobench report --cluster` lists live Benchmarks, and the kept results of those deleted.
TEST(KeptResultsTest, OnlyResultsWhoseBenchmarkIsGone) {
  auto results_of = [](const std::string& uid) {
    json cm = ResultsConfigMap();
    cm["metadata"]["annotations"] = {{kResultsOfUidAnnotation, uid}};
    return cm;
  };
  const json config = {{"metadata", {{"name", "sweep-config"}}}, {"data", {{"benchmark.json", kBenchmark}}}};
  const std::vector<Benchmark> kept =
      KeptResultsOfDeletedBenchmarks({results_of("u-live"), results_of("u-gone"), config}, {"u-live"});
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].metadata.name, "sweep");
  EXPECT_EQ(kept[0].status.phase, "Succeeded");
}

// The per-size table of a cluster's 0a run, for the bus bandwidth chart, by its Benchmark's uid.
TEST(KeptResultsTest, AllreduceTablesByTheirBenchmarksUid) {
  json with_table = ResultsConfigMap();
  with_table["metadata"]["annotations"] = {{kResultsOfUidAnnotation, "u-0a"}};
  with_table["data"]["allreduce.json"] = R"({"rows": [{"bytes": 4, "busbwBytesPerSecond": 1000}]})";
  json without = ResultsConfigMap();
  without["metadata"]["annotations"] = {{kResultsOfUidAnnotation, "u-fmnist"}};
  json broken = with_table;
  broken["metadata"]["annotations"] = {{kResultsOfUidAnnotation, "u-broken"}};
  broken["data"]["allreduce.json"] = "{not json";
  const auto tables = AllreduceTablesOf({with_table, without, broken});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables.at("u-0a")["rows"][0]["busbwBytesPerSecond"], 1000);
}

}  // namespace
}  // namespace ergobench
