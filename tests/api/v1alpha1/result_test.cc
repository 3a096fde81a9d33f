#include "api/v1alpha1/result.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

RankResult Sample() {
  RankResult r;
  r.benchmark = "task0a-k2";
  r.task = "0a";
  r.backend = "gloo";
  r.rank = 1;
  r.world_size = 2;
  r.status = kRankSucceeded;
  r.figures.init_seconds = 0.25;
  r.figures.run_seconds = 12.5;
  r.figures.phase_seconds = {{"communication", 10.0}};
  r.figures.communication_seconds = 10.0;
  r.figures.collective_seconds = 14.5;
  r.figures.samples_per_second = 512.0;
  r.figures.throughput_window_steps = 40;
  r.figures.throughput_window_seconds = 10.0;
  r.figures.allreduce = AllreduceSummary{80, 100, "float32", 2.5e9, 400000000, 1.5e-5, "all_reduce"};
  r.environment = {{"host", "node-1"}, {"threads", 1}};
  r.summary = "rank 1: 80 sizes, peak busbw 2.50 GB/s";
  return r;
}

TEST(ResultTest, SerializeParseRoundTrip) {
  RankResult r = Sample();
  std::string text = SerializeRankResult(r);
  // One JSON line, then the human summary line.
  size_t first = text.find('\n');
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.substr(first + 1), r.summary + "\n");
  auto parsed = ParseRankResult(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->benchmark, "task0a-k2");
  EXPECT_EQ(parsed->rank, 1);
  EXPECT_EQ(parsed->world_size, 2);
  EXPECT_EQ(parsed->status, kRankSucceeded);
  EXPECT_EQ(parsed->figures, r.figures);
  EXPECT_EQ(parsed->environment, r.environment);
  EXPECT_EQ(parsed->summary, r.summary);
}

TEST(ResultTest, LanguageModelFiguresRoundTrip) {
  RankResult r = Sample();
  r.task = "gpt";
  r.figures.allreduce.reset();
  r.figures.language_model = LanguageModelSummary{"gpt2", 124439808, 1024, 32, "bf16", 327680, 2048.5, 16.0,
                                                  854438400, 1.75, 989.0, 0.0018, 3.25};
  r.figures.parameter_digest = "cbf29ce484222325";
  auto parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  const nlohmann::json encoded = EncodeRankResult(r);
  EXPECT_EQ(encoded["languageModel"]["tokensPerSecond"], 2048.5);
  EXPECT_EQ(encoded["languageModel"]["mfu"], 0.0018);
  EXPECT_EQ(encoded["parameterDigest"], "cbf29ce484222325");
  EXPECT_EQ(encoded["collectiveSeconds"], 14.5);
}

TEST(ResultTest, TranslationAndLossScalingFiguresRoundTrip) {
  RankResult r = Sample();
  r.task = "4b";
  r.figures.allreduce.reset();
  r.figures.translation = TranslationSummary{51.25, 120000, 131000, 4100.5, 4480.25, "fp16", 4};
  r.figures.loss_scale = 4096;
  r.figures.skipped_updates = 3;
  auto parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  const nlohmann::json encoded = EncodeRankResult(r);
  EXPECT_EQ(encoded["translation"]["bleu"], 51.25);
  EXPECT_EQ(encoded["translation"]["targetTokensPerSecond"], 4480.25);
  EXPECT_EQ(encoded["translation"]["beam"], 4);
  EXPECT_EQ(encoded["lossScale"], 4096);
  EXPECT_EQ(encoded["skippedUpdates"], 3);
  r.figures.translation->bleu.reset();  // a run stopped before its first evaluation
  EXPECT_FALSE(EncodeRankResult(r)["translation"].contains("bleu"));
}

TEST(ResultTest, MemoryFiguresRoundTrip) {
  RankResult r = Sample();
  r.figures.memory = MemoryFigures{900 << 20, 300 << 20, 100 << 20, 50 << 20, 100 << 20, 50 << 20, std::nullopt};
  auto parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  const nlohmann::json memory = EncodeRankResult(r)["memory"];
  EXPECT_EQ(memory["peakResidentBytes"], 900 << 20);
  EXPECT_EQ(memory["peakTensorBytes"], 300 << 20);
  EXPECT_EQ(memory["parameterBytes"], 100 << 20);
  EXPECT_EQ(memory["gradientBytes"], 50 << 20);
  EXPECT_EQ(memory["optimizerStateBytes"], 100 << 20);
  EXPECT_EQ(memory["activationBytes"], 50 << 20);
  EXPECT_FALSE(memory.contains("peakReservedBytes"));  // a CPU run's
  EXPECT_FALSE(EncodeRankResult(Sample()).contains("memory"));
  r.figures.memory->peak_reserved_bytes = 400 << 20;  // a GPU run's
  parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  EXPECT_EQ(EncodeRankResult(r)["memory"]["peakReservedBytes"], 400 << 20);
}

TEST(ResultTest, DataIoFiguresRoundTrip) {
  RankResult r = Sample();
  r.figures.data_wait_share = 0.125;
  r.figures.io = IoFigures{31'876'564, 2'500'000.5, 0, 0.41, 51'234.5};
  auto parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  const nlohmann::json encoded = EncodeRankResult(r);
  EXPECT_EQ(encoded["dataWaitShare"], 0.125);
  EXPECT_EQ(encoded["io"], nlohmann::json({{"dataBytes", 31'876'564},
                                            {"dataBytesPerSecond", 2'500'000.5},
                                            {"storageBytes", 0},
                                            {"loadSeconds", 0.41},
                                            {"loadingSamplesPerSecond", 51'234.5}}));
  r.figures.io->storage_bytes.reset();  // a kernel without I/O accounting
  EXPECT_FALSE(EncodeRankResult(r)["io"].contains("storageBytes"));
  EXPECT_FALSE(EncodeRankResult(Sample()).contains("io"));
  auto wrong = ParseRankResult(R"({"status": "Succeeded", "io": {"dataBytes": "many"}})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("io.dataBytes"), std::string::npos) << wrong.status().message();
}

// A node agent's energy says what else ran on the node; energyShared is derived from it.
TEST(ResultTest, NodeSharingRoundTrips) {
  RankResult r = Sample();
  r.figures.energy_joules = 120.0;
  r.figures.energy_shared_with = std::vector<std::string>{"ergobench-system/ergobench-6d9f-x2kq"};
  const nlohmann::json encoded = EncodeRankResult(r);
  EXPECT_EQ(encoded["energyShared"], true);
  EXPECT_EQ(encoded["energySharedWith"], nlohmann::json({"ergobench-system/ergobench-6d9f-x2kq"}));
  auto parsed = ParseRankResult(SerializeRankResult(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->figures, r.figures);
  r.figures.energy_shared_with = std::vector<std::string>{};  // the node was its own
  EXPECT_EQ(EncodeRankResult(r)["energyShared"], false);
  EXPECT_FALSE(EncodeRankResult(Sample()).contains("energyShared"));  // no agent said
}

TEST(ResultTest, AbsentFiguresStayAbsent) {
  RankResult r = Sample();
  nlohmann::json encoded = EncodeRankResult(r);
  EXPECT_FALSE(encoded.contains("goalReached"));
  EXPECT_FALSE(encoded.contains("timeToAccuracySeconds"));
  EXPECT_EQ(encoded["throughputWindowSteps"], 40);
  EXPECT_FALSE(encoded.contains("error"));
  EXPECT_EQ(encoded["allreduce"]["peakBusBandwidthBytes"], 400000000);
}

TEST(ResultTest, StaysWithinTheTerminationMessageLimit) {
  RankResult r = Sample();
  r.status = kRankFailed;
  r.error = std::string(3000, 'e') + "\"quoted\"";
  for (int i = 0; i < 100; ++i) r.environment["key" + std::to_string(i)] = std::string(40, 'v');
  std::string text = SerializeRankResult(r);
  EXPECT_LE(text.size(), kTerminationMessageLimit);
  auto parsed = ParseRankResult(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->environment["truncated"], true);
  // The error survives whole when dropping the environment is enough.
  EXPECT_EQ(parsed->error, r.error);

  r.error = std::string(5000, '"');
  text = SerializeRankResult(r);
  EXPECT_LE(text.size(), kTerminationMessageLimit);
  parsed = ParseRankResult(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_LT(parsed->error.size(), 2100u);
  EXPECT_EQ(parsed->figures.run_seconds, 12.5);
}

TEST(ResultTest, RejectsMalformedResults) {
  EXPECT_FALSE(ParseRankResult("").ok());
  EXPECT_FALSE(ParseRankResult("rank 0 crashed\n").ok());
  auto missing_status = ParseRankResult("{\"rank\": 0}\n");
  ASSERT_FALSE(missing_status.ok());
  EXPECT_NE(missing_status.status().message().find("status: is required"), std::string::npos);
  auto unknown = ParseRankResult("{\"status\": \"Succeeded\", \"bogus\": 1}\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("bogus: unknown field"), std::string::npos);
}

TEST(ResultTest, BenchmarkResultsRoundTrip) {
  BenchmarkResults results;
  results.figures = Sample().figures;
  results.joules_per_sample = 0.5;
  results.samples_per_wh = 7200;
  results.epoch_wh = 177.9;
  results.cost_usd = 1.25;
  results.environment = {{"host", "a"}};
  FieldErrors errors;
  BenchmarkResults back = DecodeBenchmarkResults(EncodeBenchmarkResults(results), "status.results", &errors);
  ASSERT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_EQ(back.figures, results.figures);
  EXPECT_EQ(back.joules_per_sample, 0.5);
  EXPECT_EQ(back.samples_per_wh, 7200);
  EXPECT_EQ(back.epoch_wh, 177.9);
  EXPECT_EQ(back.cost_usd, 1.25);
  EXPECT_EQ(back.environment, results.environment);
}

}  // namespace
}  // namespace ergobench
