#include "cli/report/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include "api/analysis/aggregate.h"
#include "api/analysis/repeats.h"
#include "cli/report/charts.h"
#include "tests/testing/test_paths.h"

namespace ergobench {
namespace {

std::vector<ReportRow> Fixtures() {
  auto runs = LoadResultDirectories({std::string(testing::kSourceDir) + "/tests/cli/report/testdata"});
  EXPECT_TRUE(runs.ok()) << runs.status().ToString();
  return runs.ok() ? BuildReport(*runs) : std::vector<ReportRow>{};
}

TEST(Report, SpeedupEfficiencyAndPriceIndexAgainstTheSmallestRun) {
  const auto rows = Fixtures();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].name, "fmnist-k1");
  EXPECT_DOUBLE_EQ(*rows[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(*rows[0].price_index, 1.0);
  // k=2: TTA 40 s → 25 s.
  EXPECT_DOUBLE_EQ(*rows[1].speedup, 1.6);
  EXPECT_DOUBLE_EQ(*rows[1].efficiency, 0.8);
  EXPECT_DOUBLE_EQ(*rows[1].price_index, 2 / 1.6);
  EXPECT_EQ(rows[1].baseline, "fmnist-k1");
  // k=4: 40 s → 20 s: twice as fast at four times the price.
  EXPECT_DOUBLE_EQ(*rows[2].speedup, 2.0);
  EXPECT_DOUBLE_EQ(*rows[2].efficiency, 0.5);
  EXPECT_DOUBLE_EQ(*rows[2].price_index, 2.0);
  EXPECT_DOUBLE_EQ(*rows[2].energy_to_accuracy_joules, 2000.0);
  EXPECT_NEAR(*rows[2].cost_to_accuracy, 4 * 20 / 3600.0 * 0.2092, 1e-6);
  // A failed run is listed, with no comparison.
  EXPECT_EQ(rows[3].phase, "Failed");
  EXPECT_FALSE(rows[3].speedup.has_value());
}

TEST(Report, WithoutTimeToAccuracyThroughputDecides) {
  Benchmark one, four;
  for (auto [b, k, sps] : {std::tuple{&one, 1, 100.0}, std::tuple{&four, 4, 300.0}}) {
    b->metadata.name = "r" + std::to_string(k);
    b->spec.task = "1a";
    b->spec.backend = "gloo";
    b->spec.workers = k;
    b->status.phase = "Succeeded";
    b->status.results = BenchmarkResults{};
    b->status.results->figures.samples_per_second = sps;
    b->status.results->figures.goal_reached = false;
  }
  const auto rows = BuildReport({four, one});
  EXPECT_EQ(rows[0].name, "r1");
  EXPECT_DOUBLE_EQ(*rows[1].speedup, 3.0);
  EXPECT_DOUBLE_EQ(*rows[1].efficiency, 0.75);
}

// Repeats: the median in the table with the repeats' range, their statistics in JSON, and
// error bars from the slowest to the fastest repeat in the throughput chart.
TEST(Report, RepeatsShowTheirRangeAndErrorBars) {
  Benchmark b;
  b.metadata.name = "rep";
  b.spec.task = "fmnist";
  b.spec.backend = "gloo";
  b.spec.workers = 2;
  b.spec.repeats = 3;
  b.status.phase = "Succeeded";
  BenchmarkResults last;
  last.figures.samples_per_second = 990;
  std::vector<RepeatResult> repeats;
  for (int64_t r = 0; r < 3; ++r) repeats.push_back({r, 42 + r, {{"samplesPerSecond", 900.0 + 100 * r}}, {}, {}, {}});
  b.status.results = FoldRepeats(b.spec, last, repeats);

  const auto rows = BuildReport({b});
  EXPECT_EQ(rows[0].repeats, 3);
  const std::string text = *FormatReport(rows, "text");
  EXPECT_NE(text.find("1000.0 [900.0..1100.0]"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["repeats"], 3);
  EXPECT_EQ(json[0]["spread"]["samplesPerSecond"]["min"], 900);
  EXPECT_NEAR(json[0]["spread"]["samplesPerSecond"]["ci95High"].get<double>(), 1000 + 0.95 / std::sqrt(2 * 0.975 * 0.025) * 100 / std::sqrt(3.0), 1e-9);  // t(2) in closed form

  const std::string svg = BuildReportCharts({b}).at("throughput.svg");
  EXPECT_NE(svg.find("class=\"error-bar\""), std::string::npos);
  EXPECT_NE(svg.find("data-low=\"900\" data-high=\"1100\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-x=\"2\" data-y=\"1000\""), std::string::npos);
}

// A succeeded gloo run of `task` at k=1, with no results yet.
Benchmark SucceededRun(const std::string& name, const std::string& task) {
  Benchmark b;
  b.metadata.name = name;
  b.spec.task = task;
  b.spec.backend = "gloo";
  b.status.phase = "Succeeded";
  return b;
}

// Every training task's counted model FLOPs: the sustained rate and MFU.
TEST(Report, ModelFlopsAndMfuOfATrainingRun) {
  Benchmark b = SucceededRun("f", "fmnist");
  b.status.results = BenchmarkResults{};
  b.status.results->figures.model_flops_per_second = 12.35e9;
  b.status.results->figures.mfu = 0.0457;
  b.status.results->figures.peak_basis = "2 threads x avx512f FMA kernel, measured";
  const auto rows = BuildReport({b});
  const std::string text = *FormatReport(rows, "text");
  EXPECT_NE(text.find("GFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("12.350"), std::string::npos) << text;
  EXPECT_NE(text.find("4.57"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["modelFlopsPerSecond"], 12.35e9);
  EXPECT_EQ(json[0]["mfu"], 0.0457);
  EXPECT_EQ(json[0]["peakBasis"], "2 threads x avx512f FMA kernel, measured");
}

// The data path: the step's wait for data, its read rate and the rate it prepares samples at;
// a run that waits more than MLPerf Storage allows is marked I/O-bound.
TEST(Report, DataWaitAndReadRateWithIoBoundRunsMarked) {
  std::vector<Benchmark> runs = {SucceededRun("fed", "resnet50"), SucceededRun("starved", "resnet50")};
  for (Benchmark& b : runs) b.status.results = BenchmarkResults{};
  runs[0].status.results->figures.data_wait_share = 0.021;
  runs[0].status.results->figures.io = IoFigures{64'000'000, 2'500'000, 0, 0.4, 51'234};
  runs[1].status.results->figures.data_wait_share = 0.35;
  runs[1].status.results->figures.io = IoFigures{64'000'000, 1'250'000, 64'000'000, 0.4, 180};
  const auto rows = BuildReport(runs);
  const std::string text = *FormatReport(rows, "text");
  EXPECT_NE(text.find("data wait %  data MB/s  loading samples/s"), std::string::npos) << text;
  EXPECT_NE(text.find("           2.1      2.500              51234\n"), std::string::npos) << text;
  EXPECT_NE(text.find("35.0 I/O-bound      1.250                180\n"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["dataWaitShare"], 0.021);
  EXPECT_EQ(json[0]["ioBound"], false);
  EXPECT_EQ(json[1]["ioBound"], true);
  EXPECT_EQ(json[1]["dataBytesPerSecond"], 1'250'000);
  EXPECT_EQ(json[1]["loadingSamplesPerSecond"], 180);
  EXPECT_FALSE(nlohmann::json::parse(*FormatReport(BuildReport({SucceededRun("0a", "0a")}), "json"))[0].contains("ioBound"));
}

// Repeats with a goal: MLPerf's score, the runs it took and how many MLPerf requires.
TEST(Report, RepeatsWithAGoalShowMlperfsScore) {
  Benchmark b = SucceededRun("r50", "resnet50");
  std::vector<RepeatResult> repeats;
  for (int64_t r = 0; r < 3; ++r) {
    const RepeatResult one{r, 42 + r, {{"runSeconds", 60.0 * (10 + r)}}, true, 1000 * (10 + r), {}};
    repeats.push_back(one);
  }
  b.status.results = FoldRepeats(b.spec, BenchmarkResults{}, repeats);

  const auto rows = BuildReport({b});
  const std::string text = *FormatReport(rows, "text");
  EXPECT_NE(text.find("MLPerf min"), std::string::npos) << text;
  EXPECT_NE(text.find("11.00 (3 of 5 runs)"), std::string::npos) << text;  // the middle of 10, 11, 12 minutes
  const nlohmann::json json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["mlperf"]["benchmark"], "resnet");
  EXPECT_EQ(json[0]["mlperf"]["timeToTrainMinutes"], 11);
  EXPECT_EQ(json[0]["mlperf"]["samplesToConverge"], 11000);
  EXPECT_EQ(json[0]["mlperf"]["note"], "3 runs of the 5 MLPerf requires for resnet");
}

TEST(Report, SpeedupAndEfficiencyChartsAgainstWorkersWithTheRepeatsRange) {
  Benchmark one;
  one.metadata.name = "k1";
  one.spec.task = "fmnist";
  one.spec.backend = "gloo";
  one.spec.workers = 1;
  one.status.phase = "Succeeded";
  one.status.results = BenchmarkResults{};
  one.status.results->figures.samples_per_second = 500;
  Benchmark two = one;
  two.metadata.name = "k2";
  two.spec.workers = 2;
  std::vector<RepeatResult> repeats;
  for (int64_t r = 0; r < 3; ++r) repeats.push_back({r, 42 + r, {{"samplesPerSecond", 800.0 + 100 * r}}, {}, {}, {}});
  two.status.results = FoldRepeats(two.spec, *two.status.results, repeats);  // median 900, range 800..1000

  const auto charts = BuildReportCharts({one, two});
  const std::string speedup = charts.at("speedup.svg");
  EXPECT_NE(speedup.find("data-x=\"1\" data-y=\"1\""), std::string::npos) << speedup;
  EXPECT_NE(speedup.find("data-x=\"2\" data-y=\"1.8\""), std::string::npos) << speedup;
  EXPECT_NE(speedup.find("data-low=\"1.6\" data-high=\"2\""), std::string::npos) << speedup;
  const std::string efficiency = charts.at("scaling-efficiency.svg");
  EXPECT_NE(efficiency.find("data-x=\"2\" data-y=\"0.9\""), std::string::npos) << efficiency;
  EXPECT_NE(efficiency.find("data-low=\"0.8\" data-high=\"1\""), std::string::npos) << efficiency;
  // The ideal, linear scaling, dashed under the series: k / base k, and an efficiency of 1.
  const size_t ideal = speedup.find("<g class=\"reference\" data-series=\"ideal (linear)\">");
  ASSERT_NE(ideal, std::string::npos) << speedup;
  EXPECT_NE(speedup.find("data-x=\"2\" data-y=\"2\"", ideal), std::string::npos) << speedup;
  const size_t flat = efficiency.find("<g class=\"reference\" data-series=\"ideal (linear)\">");
  ASSERT_NE(flat, std::string::npos) << efficiency;
  EXPECT_NE(efficiency.find("data-x=\"2\" data-y=\"1\"", flat), std::string::npos) << efficiency;
  EXPECT_NE(speedup.find("ideal (linear)</text>"), std::string::npos) << "in the legend";
}

TEST(Report, Formats) {
  const auto rows = Fixtures();
  auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("benchmark  task    goal  system   backend  k  phase      samples/s  TTA s  speedup  efficiency  comm %  energy"
                       " to acc. J  cost to acc.  spot to acc.  run cost  gCO2e to acc.                      Pareto  price index\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("fmnist-k4  fmnist        unknown  gloo     4  Succeeded     2400.0   20.0     2.00        0.50    30.0     "
                       "       2000.0    0.0046 USD                                         time x cost, time x energy         2.00\n"),
            std::string::npos)
      << *text;
  auto markdown = FormatReport(rows, "markdown");
  EXPECT_NE(markdown->find("| fmnist-k2 | fmnist |  | unknown | gloo | 2 | Succeeded | 1500.0 | 25.0 | 1.60 | 0.80 | 15.0 | 1500.0 |"),
            std::string::npos)
      << *markdown;
  auto csv = FormatReport(rows, "csv");
  EXPECT_NE(csv->find("fmnist-k8,fmnist,,unknown,gloo,8,Failed,,,,,,,,,,,,\n"), std::string::npos) << *csv;
  auto json = FormatReport(rows, "json");
  const auto parsed = nlohmann::json::parse(*json);
  EXPECT_EQ(parsed[1]["scalingEfficiency"], 0.8);
  EXPECT_EQ(parsed[1]["baseline"], "fmnist-k1");
  auto html = FormatReport(rows, "html");  // the table of `report --html`'s page
  EXPECT_NE(html->find("<tr><td>fmnist-k8</td><td>fmnist</td><td></td><td>unknown</td><td>gloo</td><td>8</td>"
                       "<td>Failed</td><td class=\"number\"></td>"),
            std::string::npos) << *html;
  EXPECT_EQ(FormatReport(rows, "pdf").status().code(), StatusCode::kInvalidArgument);
}

// A cluster run whose nodes' agents saw other pods: its energy is the nodes', and says so.
TEST(Report, EnergyFromASharedNodeIsMarked) {
  Benchmark shared, alone, local;
  for (auto [b, name] : {std::pair{&shared, "shared"}, std::pair{&alone, "alone"}, std::pair{&local, "local"}}) {
    b->metadata.name = name;
    b->spec.task = "1a";
    b->status.phase = "Succeeded";
    b->status.results = BenchmarkResults{};
    b->status.results->figures.energy_to_accuracy_joules = 900.0;
  }
  shared.status.results->figures.energy_shared_with = std::vector<std::string>{"ergobench-system/ergobench-0"};
  alone.status.results->figures.energy_shared_with = std::vector<std::string>{};
  const auto rows = BuildReport({shared, alone, local});
  const auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("900.0 (shared node)"), std::string::npos) << *text;
  EXPECT_EQ(text->find("(shared node)"), text->rfind("(shared node)")) << *text;  // only one row
  const auto json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["benchmark"], "alone");
  EXPECT_EQ(json[0]["energyShared"], false);
  EXPECT_FALSE(json[1].contains("energyShared"));  // local: no agent said
  EXPECT_EQ(json[2]["energyShared"], true);
}

// CARAML's ResNet-50 columns: images/Wh and Wh per ImageNet epoch, only where a run has them.
TEST(Report, ImagesPerWhAndWhPerEpochWhereMeasured) {
  Benchmark metered, unmetered;
  for (auto [b, name] : {std::pair{&metered, "metered"}, std::pair{&unmetered, "unmetered"}}) {
    b->metadata.name = name;
    b->spec.task = "resnet50";
    b->status.phase = "Succeeded";
    b->status.results = BenchmarkResults{};
  }
  metered.status.results->samples_per_wh = 2400;
  metered.status.results->epoch_wh = 533.8;
  auto text = FormatReport(BuildReport({metered, unmetered}), "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("samples/Wh  Wh/epoch"), std::string::npos) << *text;
  EXPECT_NE(text->find("2400     533.8"), std::string::npos) << *text;
  const auto json = nlohmann::json::parse(*FormatReport(BuildReport({metered, unmetered}), "json"));
  EXPECT_EQ(json[0]["epochWh"], 533.8);
  EXPECT_FALSE(json[1].contains("samplesPerWh"));
  text = FormatReport(BuildReport({unmetered}), "text");
  EXPECT_EQ(text->find("samples/Wh"), std::string::npos) << *text;
}

// gradientSync overlap and sharded: the strategy (with sharded's ZeRO stage) and how much of
// the collectives' time backward hid.
TEST(Report, OverlappedRunsShowTheShareOfCommunicationHidden) {
  Benchmark flat, overlap, sharded;
  for (auto [b, name, strategy] : {std::tuple{&flat, "flat", "flat"}, std::tuple{&overlap, "overlap", "overlap"},
                                   std::tuple{&sharded, "zero2", "sharded"}}) {
    b->metadata.name = name;
    b->spec.task = "1a";
    b->spec.hyperparameters = {{"gradientSync", strategy}};
    b->status.phase = "Succeeded";
    b->status.results = BenchmarkResults{};
  }
  sharded.spec.hyperparameters["zeroStage"] = 2;
  flat.status.results->figures.communication_seconds = 4.0;
  flat.status.results->figures.collective_seconds = 4.0;
  overlap.status.results->figures.communication_seconds = 2.0;  // waited 2 s of 8 s of collectives
  overlap.status.results->figures.collective_seconds = 8.0;
  sharded.status.results->figures.communication_seconds = 3.0;  // 3 s of 6 s
  sharded.status.results->figures.collective_seconds = 6.0;
  sharded.status.results->figures.memory = MemoryFigures{900 << 20, 300 << 20, 100 << 20, 50 << 20, 100 << 20, 50 << 20, std::nullopt};
  const auto rows = BuildReport({flat, overlap, sharded});
  const auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("   sync  comm hidden %  tensor peak/rank\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("overlap           75.0"), std::string::npos) << *text;
  EXPECT_NE(text->find(" ZeRO-2           50.0"), std::string::npos) << *text;
  EXPECT_NE(text->find("tensor peak/rank"), std::string::npos) << *text;
  EXPECT_NE(text->find("300.0 MiB"), std::string::npos) << *text;
  const auto json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["gradientSync"], "flat");
  EXPECT_EQ(json[0]["hiddenCommunication"], 0.0);
  EXPECT_FALSE(json[0].contains("zeroStage"));
  EXPECT_EQ(json[1]["collectiveSeconds"], 8.0);
  EXPECT_EQ(json[1]["hiddenCommunication"], 0.75);
  EXPECT_EQ(json[2]["gradientSync"], "sharded");
  EXPECT_EQ(json[2]["zeroStage"], 2);
  EXPECT_EQ(json[2]["hiddenCommunication"], 0.5);
  EXPECT_EQ(json[2]["peakTensorBytes"], 300 << 20);
  EXPECT_EQ(json[2]["peakResidentBytes"], 900 << 20);
  EXPECT_FALSE(json[1].contains("peakTensorBytes"));
  // Runs that never overlapped keep the narrower table.
  EXPECT_EQ(FormatReport(BuildReport({flat}), "text")->find("comm hidden"), std::string::npos);
}

TEST(Report, LanguageModelsAddCaramlsColumns) {
  Benchmark gpt;
  gpt.metadata.name = "gpt-k2";
  gpt.spec.task = "gpt";
  gpt.spec.backend = "gloo";
  gpt.spec.workers = 2;
  gpt.status.phase = "Succeeded";
  // Two ranks' own figures, folded as every run folds them: tokens/s add up (2000 + 2096),
  // per-device TFLOP/s and MFU average (1.5 and 2.0, 15% and 20%), the slowest rank sets the
  // seconds per iteration (4.0), and joules per token is all energy over all tokens
  // (2 x 256 J over 2 x 20480 tokens).
  std::vector<RankResult> ranks(2);
  for (int64_t r = 0; r < 2; ++r) {
    ranks[r].rank = r;
    ranks[r].world_size = 2;
    ranks[r].status = kRankSucceeded;
    ranks[r].figures.samples_per_second = 2.0;
    ranks[r].figures.energy_joules = 256;
    ranks[r].figures.language_model = LanguageModelSummary{
        "gpt2", 124439808, 1024, 16, "fp32", 20480, 2000.0 + 96 * r, 3.0 + r, 854438400, 1.5 + 0.5 * r, 10.0,
        0.15 + 0.05 * r, 3.2};
  }
  gpt.status.results = AggregateRankResults(ranks, 2).results;
  const auto rows = BuildReport({gpt});
  auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("global batch  tokens/s  s/iteration  TFLOP/s/device  MFU %   J/token\n"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("16      4096        4.000           1.750  17.50  0.012500\n"), std::string::npos) << *text;
  const auto json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["tokensPerSecond"], 4096.0);
  EXPECT_EQ(json[0]["mfu"], 0.175);
  // Runs without a language model keep the narrower table.
  EXPECT_EQ(FormatReport(Fixtures(), "text")->find("tokens/s"), std::string::npos);
}

TEST(ReportTest, TranslationColumnsShowBleuTokensAndLossScaling) {
  Benchmark run;
  run.metadata.name = "translate";
  run.spec.task = "4b";
  run.spec.backend = "gloo";
  run.spec.workers = 1;
  run.status.phase = "Succeeded";
  RankResult rank;
  rank.world_size = 1;
  rank.status = kRankSucceeded;
  rank.figures.energy_joules = 262;
  rank.figures.translation = TranslationSummary{51.25, 120000, 131000, 4100.4, 4480.25, "fp16", 1};
  rank.figures.loss_scale = 4096;
  rank.figures.skipped_updates = 3;
  run.status.results = AggregateRankResults({rank}, 1).results;
  const auto rows = BuildReport({run});
  const auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("BLEU  source tokens/s  target tokens/s  J/target token  loss scale  skipped updates\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("51.25             4100             4480        0.002000        4096                3\n"),
            std::string::npos)
      << *text;
  const auto json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[0]["bleu"], 51.25);
  EXPECT_EQ(json[0]["targetTokensPerSecond"], 4480.25);
  EXPECT_EQ(json[0]["skippedUpdates"], 3);
}

// Task 0a: the same all-reduce over two transports, side by side by peak bus bandwidth.
TEST(Report, AllReduceRunsAddBusBandwidthColumns) {
  std::vector<Benchmark> runs;
  for (const auto& [backend, peak] : {std::pair<const char*, double>{"gloo", 1.25e9}, {"mpi", 2.5e9}}) {
    Benchmark b;
    b.metadata.name = std::string("sweep-") + backend;
    b.spec.task = "0a";
    b.spec.backend = backend;
    b.spec.workers = 3;
    b.status.phase = "Succeeded";
    b.status.results = BenchmarkResults{};
    b.status.results->figures.allreduce = AllreduceSummary{20, 10, "float32", peak, 64 << 20, 42e-6, "all_reduce"};
    runs.push_back(b);
  }
  const auto rows = BuildReport(runs);
  auto text = FormatReport(rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("peak busbw GB/s  at MiB  latency us\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("1.250    64.0        42.0\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("2.500    64.0        42.0\n"), std::string::npos) << *text;
  const auto json = nlohmann::json::parse(*FormatReport(rows, "json"));
  EXPECT_EQ(json[1]["backend"], "mpi");
  EXPECT_EQ(json[1]["peakBusBandwidthBytesPerSecond"], 2.5e9);
  EXPECT_EQ(json[1]["peakBusBandwidthBytes"], 64 << 20);
  EXPECT_EQ(json[1]["minLatencySeconds"], 42e-6);
  EXPECT_EQ(FormatReport(Fixtures(), "text")->find("busbw"), std::string::npos);
}

// Two clouds, two instance types (testdata/systems: fixed, made-up figures).
struct Systems {
  std::vector<Benchmark> runs;
  AllreduceTables tables;
  std::vector<ReportRow> rows;
  const ReportRow& Row(const std::string& name) const {
    for (const ReportRow& r : rows) {
      if (r.name == name) return r;
    }
    ADD_FAILURE() << "no row " << name;
    return rows.front();
  }
};

Systems LoadSystems() {
  Systems s;
  auto runs = LoadResultDirectories({std::string(testing::kSourceDir) + "/tests/cli/report/testdata/systems"}, &s.tables);
  EXPECT_TRUE(runs.ok()) << runs.status().ToString();
  if (runs.ok()) s.runs = *runs;
  s.rows = BuildReport(s.runs);
  return s;
}

TEST(ReportSystems, EachScalingSeriesIsBaselinedWithinItsOwnSystem) {
  const Systems s = LoadSystems();
  ASSERT_EQ(s.rows.size(), 6u);
  // GCP's k=1 is its own baseline, not AWS's k=1 (which has fewer workers only by name order).
  EXPECT_EQ(s.Row("gcp-n2-k1").baseline, "gcp-n2-k1");
  EXPECT_DOUBLE_EQ(*s.Row("gcp-n2-k1").speedup, 1.0);
  EXPECT_EQ(s.Row("gcp-n2-k2").baseline, "gcp-n2-k1");
  EXPECT_DOUBLE_EQ(*s.Row("gcp-n2-k2").speedup, 80.0 / 50);
  EXPECT_DOUBLE_EQ(*s.Row("gcp-n2-k2").efficiency, 0.8);
  // Twice the price per hour (two nodes) for 1.6 times the speed.
  EXPECT_NEAR(*s.Row("gcp-n2-k2").price_index, 2 / 1.6, 1e-4);
  EXPECT_EQ(s.Row("aws-c5-k2").baseline, "aws-c5-k1");
  EXPECT_DOUBLE_EQ(*s.Row("aws-c5-k2").speedup, 100.0 / 60);
  EXPECT_EQ(s.Row("aws-c5-k1").system, "aws c5.4xlarge us-east-1");
  EXPECT_EQ(s.Row("gcp-n2-k1").system, "gcp n2-standard-16 us-central1");
  EXPECT_EQ(s.Row("gcp-n2-k1").goal, "accuracy>=0.8");
  EXPECT_EQ(s.Row("aws-0a-k2").goal, "");
}

TEST(ReportSystems, ParetoOptimalRunsOfTheSameTaskAndGoal) {
  const Systems s = LoadSystems();
  // (TTA s, cost to accuracy): AWS (100, 0.0189), (60, 0.0227); GCP (80, 0.0173), (50, 0.0216).
  EXPECT_FALSE(s.Row("aws-c5-k1").pareto_time_cost);
  EXPECT_FALSE(s.Row("aws-c5-k2").pareto_time_cost);
  EXPECT_TRUE(s.Row("gcp-n2-k1").pareto_time_cost);
  EXPECT_TRUE(s.Row("gcp-n2-k2").pareto_time_cost);
  // (TTA s, energy to accuracy J): AWS (100, 20000), (60, 17000); GCP (80, 18000), (50, 22000).
  EXPECT_FALSE(s.Row("aws-c5-k1").pareto_time_energy);
  EXPECT_TRUE(s.Row("aws-c5-k2").pareto_time_energy);
  EXPECT_FALSE(s.Row("gcp-n2-k1").pareto_time_energy);
  EXPECT_TRUE(s.Row("gcp-n2-k2").pareto_time_energy);
  EXPECT_FALSE(s.Row("aws-0a-k2").pareto_time_cost) << "no time to accuracy: not compared";
}

TEST(ReportSystems, CostsCarbonAndStalePricesSideBySide) {
  const Systems s = LoadSystems();
  EXPECT_DOUBLE_EQ(*s.Row("gcp-n2-k1").spot_cost_to_accuracy, 0.004222);
  EXPECT_DOUBLE_EQ(*s.Row("aws-0a-k2").cost, 0.011333) << "the run's own cost, where there is no goal";
  EXPECT_DOUBLE_EQ(*s.Row("aws-c5-k1").carbon_to_accuracy_grams, 1.502778);
  EXPECT_TRUE(s.Row("gcp-n2-k1").cost_stale);
  EXPECT_FALSE(s.Row("aws-c5-k1").cost_stale);
  const auto text = FormatReport(s.rows, "text");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("0.0173 USD (stale)"), std::string::npos) << *text;
  EXPECT_NE(text->find("- gcp-n2-k1: stale price: n2-standard-16 in us-central1 is from 2024-01-01"), std::string::npos)
      << *text;
  // The whole table, pinned: regenerate with ERGOBENCH_UPDATE_GOLDEN=1 after an intended change.
  const std::string golden = std::string(testing::kSourceDir) + "/tests/cli/report/testdata/systems.txt";
  if (std::getenv("ERGOBENCH_UPDATE_GOLDEN") != nullptr) std::ofstream(golden) << *text;
  std::ifstream in(golden);
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(*text, expected.str());
}

TEST(ReportSystems, ChartsParetoFrontsAndBusBandwidthPerSystem) {
  const Systems s = LoadSystems();
  const auto charts = BuildReportCharts(s.runs, s.tables);
  ASSERT_TRUE(charts.contains("pareto-time-cost.svg"));
  const std::string& cost = charts.at("pareto-time-cost.svg");
  EXPECT_NE(cost.find("data-series=\"gcp n2-standard-16 us-central1 / fmnist\""), std::string::npos);
  EXPECT_NE(cost.find("data-x=\"80\" data-y=\"0.017267\" data-run=\"gcp-n2-k1 (k=1)\""), std::string::npos) << cost;
  EXPECT_NE(cost.find("data-run=\"gcp-n2-k2 (k=2)\""), std::string::npos);
  EXPECT_EQ(cost.find("data-run=\"aws-c5"), std::string::npos) << "AWS's runs are not on the front";
  ASSERT_TRUE(charts.contains("allreduce-busbw.svg"));
  const std::string& busbw = charts.at("allreduce-busbw.svg");
  EXPECT_NE(busbw.find("data-series=\"aws c5.4xlarge us-east-1 / gloo k=2\""), std::string::npos) << busbw;
  EXPECT_NE(busbw.find("data-series=\"gcp n2-standard-16 us-central1 / gloo k=2\""), std::string::npos);
  EXPECT_NE(busbw.find("data-x=\"24\" data-y=\"2.5\""), std::string::npos) << "16 MiB at GCP's peak";
  // The axis is log2 bytes; its ticks say sizes: 0..25 in fifths, 2^5 = 32 B apart.
  for (const char* tick : {">1 B</text>", ">32 B</text>", ">1.0 KiB</text>", ">32.0 KiB</text>", ">1.0 MiB</text>",
                           ">32.0 MiB</text>"}) {
    EXPECT_NE(busbw.find(tick), std::string::npos) << tick << "\n" << busbw;
  }
  EXPECT_EQ(busbw.find("log2"), std::string::npos);
}

TEST(Report, MissingDirectoriesAreNamed) {
  EXPECT_NE(LoadResultDirectories({"/nonexistent/results"}).status().message().find("/nonexistent/results"),
            std::string::npos);
}

}  // namespace
}  // namespace ergobench
