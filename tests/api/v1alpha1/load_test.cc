#include "api/v1alpha1/load.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

constexpr const char* kTwo = R"(apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: a}
spec: {task: 0a, workers: 2}
---
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: b}
spec: {task: 0a, backend: mpi, hyperparameters: {maxElements: 1024}}
)";

TEST(LoadTest, LoadsEveryDocumentResolved) {
  auto benchmarks = LoadBenchmarks(kTwo, "two.yaml");
  ASSERT_TRUE(benchmarks.ok()) << benchmarks.status().ToString();
  ASSERT_EQ(benchmarks->size(), 2u);
  EXPECT_EQ((*benchmarks)[0].metadata.name, "a");
  EXPECT_EQ((*benchmarks)[0].spec.workers, 2);
  EXPECT_EQ((*benchmarks)[1].spec.backend, "mpi");
  EXPECT_EQ((*benchmarks)[1].spec.hyperparameters["maxElements"], 1024);
  EXPECT_EQ((*benchmarks)[1].spec.hyperparameters["sizes"], 80);  // defaulted
}

TEST(LoadTest, ReportsEveryInvalidDocumentWithItsErrors) {
  std::string text = std::string(kTwo) +
                     "---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\nspec: {task: 0a, workers: 0}\n";
  auto benchmarks = LoadBenchmarks(text, "three.yaml");
  ASSERT_FALSE(benchmarks.ok());
  const std::string m = benchmarks.status().message();
  EXPECT_NE(m.find("three.yaml, document 3 (Benchmark \"c\") is invalid:"), std::string::npos) << m;
  EXPECT_NE(m.find("  apiVersion: must be ergobench.io/v1alpha1, got \"v1\""), std::string::npos) << m;
  EXPECT_NE(m.find("  kind: must be Benchmark, got \"Pod\""), std::string::npos) << m;
  EXPECT_NE(m.find("  spec.workers: must be between 1 and 1024, got 0"), std::string::npos) << m;
}

// Found by the sweep fuzzer: a `kind` that is not a string (null here) aborted `ergobench
// validate` with nlohmann's type_error; it is a field error like any other wrong kind.
TEST(LoadTest, AKindThatIsNotAStringIsAFieldError) {
  for (const char* kind : {"", "null", "7", "[Benchmark]", "{a: b}"}) {
    const std::string text = std::string("apiVersion: ergobench.io/v1alpha1\nkind: ") + kind +
                             "\nmetadata: {name: c}\nspec: {task: 0a, workers: 1}\n";
    auto benchmarks = LoadBenchmarks(text, "kind.yaml");
    ASSERT_FALSE(benchmarks.ok()) << kind;
    EXPECT_NE(benchmarks.status().message().find("  kind: must be Benchmark, got "), std::string::npos)
        << kind << ": " << benchmarks.status().message();
  }
}

TEST(LoadTest, EmptyInputIsAnError) {
  auto benchmarks = LoadBenchmarks("---\n", "empty.yaml");
  ASSERT_FALSE(benchmarks.ok());
  EXPECT_EQ(benchmarks.status().message(), "empty.yaml: holds no Benchmark document");
}

TEST(LoadTest, MissingFileNamesThePath) {
  auto benchmarks = LoadBenchmarkFile("/nonexistent/task.yaml");
  ASSERT_FALSE(benchmarks.ok());
  EXPECT_EQ(benchmarks.status().code(), StatusCode::kNotFound);
  EXPECT_NE(benchmarks.status().message().find("/nonexistent/task.yaml: cannot open"), std::string::npos);
}

TEST(LoadTest, AFileLargerThanTheLimitIsRefusedNamingItAndTheLimit) {
  const std::string path = testing::TempDir() + "ten-bytes";
  std::ofstream(path) << "0123456789";
  EXPECT_EQ(*ReadFile(path, 10), "0123456789");
  const StatusOr<std::string> over = ReadFile(path, 9);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(over.status().message(), path + ": larger than 9 bytes");
  std::remove(path.c_str());
  // A device that never ends stops at the limit.
  const StatusOr<std::string> endless = ReadFile("/dev/zero", 1 << 20);
  ASSERT_FALSE(endless.ok());
  EXPECT_EQ(endless.status().message(), "/dev/zero: larger than 1048576 bytes");
}

TEST(LoadTest, ResolvedJsonLoadsToo) {
  std::string path = ::testing::TempDir() + "/resolved.json";
  std::ofstream(path) << R"({"apiVersion":"ergobench.io/v1alpha1","kind":"Benchmark",)"
                         R"("metadata":{"name":"j"},"spec":{"task":"0a","workers":3}})";
  auto benchmarks = LoadBenchmarkFile(path);
  ASSERT_TRUE(benchmarks.ok()) << benchmarks.status().ToString();
  EXPECT_EQ(benchmarks->front().spec.workers, 3);
  std::remove(path.c_str());
}

// The same file runs on a cluster and locally: a ref to a Dataset of the file with a url is
// that url for `ergobench run`; a ref to one the file does not hold stays for the cluster.
TEST(LoadTest, ADatasetOfTheSameFileGivesItsUrlToTheBenchmarksThatNameIt) {
  const std::string sha(64, 'a');
  auto loaded = LoadBenchmarks("apiVersion: ergobench.io/v1alpha1\nkind: Dataset\nmetadata: {name: cifar}\n"
                               "spec: {source: {url: 'https://x.example/c.tgz', sha256: " + sha + "}, storage: {size: 1Gi}}\n"
                               "---\napiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: a}\n"
                               "spec: {task: 1a, dataset: {ref: cifar}}\n"
                               "---\napiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
                               "spec: {task: 1a, dataset: {ref: elsewhere}}\n",
                               "pair.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].spec.dataset.source, "url");
  EXPECT_EQ((*loaded)[0].spec.dataset.url, "https://x.example/c.tgz");
  EXPECT_EQ((*loaded)[0].spec.dataset.sha256, sha);
  EXPECT_EQ((*loaded)[0].spec.dataset.ref, "");
  EXPECT_EQ((*loaded)[1].spec.dataset.ref, "elsewhere");
  EXPECT_EQ((*loaded)[1].spec.dataset.source, "path");
}

TEST(LoadTest, AnInvalidDatasetIsReportedWithItsDocument) {
  auto loaded = LoadBenchmarks("apiVersion: ergobench.io/v1alpha1\nkind: Dataset\nmetadata: {name: cifar}\n"
                               "spec: {source: {}}\n---\napiVersion: ergobench.io/v1alpha1\nkind: Benchmark\n"
                               "metadata: {name: a}\nspec: {task: 0a}\n",
                               "pair.yaml");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "pair.yaml, document 1 (Dataset \"cifar\") is invalid:\n"
            "  spec.source: is required: a url (with sha256) or a persistentVolumeClaim");
}

TEST(LoadTest, ASweepIsItsPointsInRunOrderBesideTheFilesBenchmarks) {
  auto loaded = LoadDocuments("apiVersion: ergobench.io/v1alpha1\nkind: BenchmarkSweep\nmetadata: {name: s}\n"
                              "spec: {template: {task: 0a}, matrix: {workers: [1, 2]}, order: reversed}\n"
                              "---\napiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: a}\n"
                              "spec: {task: 0a}\n",
                              "both.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  std::vector<std::string> names;
  for (const Benchmark& b : loaded->benchmarks) names.push_back(b.metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"s-1", "s-0", "a"}));
  ASSERT_EQ(loaded->sweeps.size(), 1u);
  EXPECT_EQ(loaded->sweeps[0].points.size(), 2u);
}

TEST(LoadTest, AnInvalidSweepIsReportedWithItsDocument) {
  auto loaded = LoadBenchmarks("apiVersion: ergobench.io/v1alpha1\nkind: BenchmarkSweep\nmetadata: {name: s}\n"
                               "spec: {template: {task: 0a}, concurrency: 0}\n",
                               "sweep.yaml");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "sweep.yaml (BenchmarkSweep \"s\") is invalid:\n  spec.concurrency: must be between 1 and 256, got 0");
}

}  // namespace
}  // namespace ergobench
