#include "cli/run_display.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

Benchmark ShownBenchmark() {
  Benchmark b;
  b.metadata.name = "task0a-k2";
  b.spec.task = "0a";
  b.spec.workers = 2;
  ApplyDefaults(&b);
  return b;
}

// The report of a run of ShownBenchmark whose two ranks succeeded, its figures left to the test.
LocalRunReport SucceededReport() {
  LocalRunReport report;
  report.benchmark = ShownBenchmark();
  report.outcome = {"Succeeded", "Succeeded", "all 2 ranks succeeded", {}};
  return report;
}

TEST(RunDisplayTest, ProgressLine) {
  ProgressEvent e;
  EXPECT_EQ(FormatProgressLine(ShownBenchmark(), e, {1.2, ""}),
            "task0a-k2 · 0a gloo k=2 · starting ranks · 0:01");
  e.stage = "run";
  e.done = 34;
  e.total = 80;
  e.note = "64.0 KiB: median 120 us, busbw 1.10 GB/s";
  e.done_fraction = 34.0 / 80;
  e.seconds_left = 81.2;
  e.estimated_from = "work";
  EXPECT_EQ(FormatProgressLine(ShownBenchmark(), e, {65, ""}),
            "task0a-k2 · 0a gloo k=2 · 34/80 · 42% · 64.0 KiB: median 120 us, busbw 1.10 GB/s · 1:05, 1:21 left");
}

// A training run: the epoch of at most spec.maxEpochs, the share of them done, the goal, and
// an upper bound on the time left (the goal may end it sooner); a sweep's point says which.
TEST(RunDisplayTest, ProgressLineOfATrainingRunTowardItsGoal) {
  Benchmark b = ShownBenchmark();
  b.spec.task = "1a";
  b.spec.max_epochs = 10;
  b.spec.goal = Goal{"accuracy", 0.8, false};
  ProgressEvent train;
  train.stage = "run";
  train.epoch = 3;
  train.done = 50;
  train.total = 100;
  train.loss = 0.51234;
  train.metric = "accuracy";
  train.value = 0.71;
  train.done_fraction = 0.25;  // 2.5 of 10 epochs
  train.seconds_left = 90;
  train.estimated_from = "work";
  EXPECT_EQ(FormatProgressLine(b, train, {5, "point 3/12"}),
            "task0a-k2 · point 3/12 · 1a gloo k=2 · epoch 3/10 · 50/100 · 25% · loss 0.5123 · accuracy 0.7100 → goal "
            "0.8000 · 0:05, ≤1:30 left");
  // Once the accuracy's trend reaches the goal sooner than the work ends, the line says so.
  train.seconds_left = 40;
  train.estimated_from = "goal";
  EXPECT_EQ(FormatProgressLine(b, train, {5, ""}),
            "task0a-k2 · 1a gloo k=2 · epoch 3/10 · 50/100 · 25% · loss 0.5123 · accuracy 0.7100 → goal 0.8000 · "
            "0:05, ~0:40 to goal");
}

TEST(RunDisplayTest, ProgressLineOfALanguageModel) {
  Benchmark b = ShownBenchmark();
  b.spec.task = "gpt";
  ProgressEvent e;
  e.stage = "run";
  e.done = 20;
  e.total = 60;
  e.loss = 4.0194;
  e.metric = "loss";
  e.value = 3.55;
  e.done_fraction = 1.0 / 3;
  EXPECT_EQ(FormatProgressLine(b, e, {6, ""}),
            "task0a-k2 · gpt gloo k=2 · 20/60 · 33% · train loss 4.0194 · eval loss 3.5500 · 0:06");
}

TEST(RunDisplayTest, AllreduceTable) {
  nlohmann::json row = {{"elements", 1024},       {"bytes", 4096},
                        {"minSeconds", 1e-4},      {"medianSeconds", 2e-4},
                        {"maxSeconds", 3e-3},      {"algbwBytesPerSecond", 2.048e7},
                        {"busbwBytesPerSecond", 2.048e7}};
  nlohmann::json table = {{"rows", nlohmann::json::array({row})}};
  const std::string text = FormatAllreduceTable(table);
  EXPECT_NE(text.find("    elements         size          min       median          max        algbw        busbw\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("        1024      4.0 KiB       100 us       200 us      3.00 ms      20 MB/s      20 MB/s\n"),
            std::string::npos) << text;
}

TEST(RunDisplayTest, ReportOfAFailure) {
  LocalRunReport report;
  report.benchmark = ShownBenchmark();
  report.benchmark.status.workers.succeeded = 1;
  report.benchmark.status.workers.failed = 1;
  report.outcome = {"Failed", "RankFailed", "rank 1: metrics port 19601 is already in use", {}};
  report.results_dir = "ergobench-results/task0a-k2";
  EXPECT_EQ(FormatRunReport(report),
            "task0a-k2: Failed (RankFailed)\n"
            "  reason                 rank 1: metrics port 19601 is already in use\n"
            "  task                   0a on 2 gloo ranks\n"
            "  ranks                  1 succeeded, 1 failed\n"
            "  results                ergobench-results/task0a-k2/\n");
}

TEST(RunDisplayTest, EnergyAndCostRows) {
  LocalRunReport report = SucceededReport();
  BenchmarkResults& r = report.outcome.results;
  r.figures.energy_joules = 5400;
  r.joules_per_sample = 0.0125;
  r.energy_to_accuracy_wh = 1.25;
  r.cost_usd = 0.2092;
  r.cost_to_accuracy_usd = 0.1046;
  r.preemptible_cost_usd = 0.044;
  r.currency = "USD";
  report.results_dir = "out";
  const std::string text = FormatRunReport(report);
  EXPECT_NE(text.find("  energy                 5400.0 J, 0.0125 J/sample, 1.250 Wh to accuracy\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  cost                   0.2092 USD, 0.1046 to accuracy (preemptible 0.0440)\n"),
            std::string::npos)
      << text;
}

TEST(RunDisplayTest, MlperfScoreRow) {
  LocalRunReport report = SucceededReport();
  MlperfScore m;
  m.benchmark = "resnet";
  m.required_runs = 5;
  m.runs = 3;
  m.converged = 3;
  m.time_to_train_minutes = 11;
  m.samples_to_converge = 47500;
  m.note = "3 runs of the 5 MLPerf requires for resnet";
  report.outcome.results.mlperf = m;
  const std::string text = FormatRunReport(report);
  EXPECT_NE(text.find("  MLPerf score           11.00 min to train, the olympic mean of 3 runs (3 converged), 47500 samples "
                      "to converge; 3 runs of the 5 MLPerf requires for resnet\n"),
            std::string::npos)
      << text;
  m.time_to_train_minutes.reset();
  m.note = "2 runs of 3 did not converge; MLPerf's score allows 1";
  report.outcome.results.mlperf = m;
  EXPECT_NE(FormatRunReport(report).find("  MLPerf score           none; 2 runs of 3 did not converge"), std::string::npos);
}

TEST(RunDisplayTest, ModelFlopsRow) {
  LocalRunReport report = SucceededReport();
  Figures& f = report.outcome.results.figures;
  f.flops_per_sample = 3456000;
  f.model_flops_per_second = 12.35e9;
  f.peak_flops_per_second = 270.1e9;
  f.peak_basis = "2 threads x avx512f FMA kernel, measured";
  f.mfu = 12.35 / 270.1;
  EXPECT_NE(FormatRunReport(report).find("  model FLOPs            3.456 MFLOP/sample, 12.35 GFLOP/s, MFU 4.57% of 270.1 "
                                         "GFLOP/s (2 threads x avx512f FMA kernel, measured)\n"),
            std::string::npos)
      << FormatRunReport(report);
}

TEST(RunDisplayTest, DataRowWithTheWaitTheReadsAndTheLoadingRate) {
  LocalRunReport report = SucceededReport();
  Figures& f = report.outcome.results.figures;
  f.data_wait_share = 0.125;
  f.io = IoFigures{31'876'564, 2'500'000.5, 0, 0.41, 51'234.4};
  EXPECT_NE(FormatRunReport(report).find("  data                   I/O-bound: waited 12.5% of the step time; read 30.4 MiB "
                                         "(2.50 MB/s, 0 B from storage), loaded in 410.00 ms; prepares 51234 samples/s\n"),
            std::string::npos)
      << FormatRunReport(report);
  f.data_wait_share = 0.02;
  f.io->storage_bytes.reset();
  f.io->loading_samples_per_second.reset();
  EXPECT_NE(FormatRunReport(report).find("  data                   waited 2.0% of the step time; read 30.4 MiB (2.50 MB/s), "
                                         "loaded in 410.00 ms\n"),
            std::string::npos)
      << FormatRunReport(report);
}

// CARAML's figures for ResNet-50: images/Wh and Wh per ImageNet epoch.
TEST(RunDisplayTest, ImagesPerWhAndEnergyPerReferenceEpoch) {
  LocalRunReport report;
  report.benchmark = ShownBenchmark();
  report.benchmark.spec.task = "resnet50";
  report.outcome = {"Succeeded", "Succeeded", "all 2 ranks succeeded", {}};
  BenchmarkResults& r = report.outcome.results;
  r.figures.energy_joules = 450;
  r.joules_per_sample = 1.5;
  r.samples_per_wh = 2400;
  r.epoch_wh = 533.8;
  const std::string text = FormatRunReport(report);
  EXPECT_NE(text.find("  energy                 450.0 J, 1.5000 J/sample, 2400 samples/Wh\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  energy per epoch       533.8 Wh (1281167 samples)\n"), std::string::npos) << text;
}

TEST(RunDisplayTest, LanguageModelRows) {
  LocalRunReport report = SucceededReport();
  BenchmarkResults& r = report.outcome.results;
  r.figures.energy_joules = 72;
  r.joules_per_token = 0.036;
  r.tokens_per_wh = 100000;
  r.figures.language_model = LanguageModelSummary{"gpt2", 124439808, 1024, 32, "fp32", 2000, 512.5, 64.0,
                                                  854438400, 0.4379, 1.5, 0.2919, 3.25};
  const std::string text = FormatRunReport(report);
  for (const char* line : {"  energy                 72.0 J, 0.036000 J/token, 100000 tokens/Wh\n",
                           "  model                  gpt2, 124.4 M parameters, 1024 tokens, fp32\n",
                           "  tokens/s               512 (256 per device, global batch 32, 64.000 s/iteration)\n",
                           "  model TFLOP/s          0.4379 per device, MFU 29.19 %\n",
                           "  validation loss        3.2500\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  }
}

TEST(RunDisplayTest, MemoryRows) {
  LocalRunReport report = SucceededReport();
  report.outcome.results.figures.memory = MemoryFigures{900 << 20, 300 << 20, 100 << 20, 50 << 20, 100 << 20, 50 << 20, std::nullopt};
  const std::string text = FormatRunReport(report);
  EXPECT_NE(text.find("  peak memory per rank   300.0 MiB of tensors, 900.0 MiB resident\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  tensors at the peak    parameters 100.0 MiB, gradients 50.0 MiB, optimizer 100.0 MiB, "
                      "activations 50.0 MiB\n"),
            std::string::npos)
      << text;
  report.outcome.results.figures.memory->peak_reserved_bytes = 400 << 20;  // a GPU run's
  EXPECT_NE(FormatRunReport(report).find(
                "  peak memory per rank   300.0 MiB of tensors, 400.0 MiB reserved on the GPU, 900.0 MiB resident\n"),
            std::string::npos)
      << FormatRunReport(report);
}

}  // namespace
}  // namespace ergobench
