#include "api/analysis/aggregate.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

RankResult Rank(int64_t rank, const std::string& status, const std::string& error = "") {
  RankResult r;
  r.rank = rank;
  r.world_size = 3;
  r.status = status;
  r.error = error;
  r.figures.init_seconds = 1.0 + rank;
  r.figures.run_seconds = 10.0 + rank;
  r.figures.run_start_ms = 1764000000000 + 100 * rank;  // rank 2 starts last and stops first
  r.figures.run_stop_ms = 1764000010000 - 100 * rank;
  r.figures.samples_per_second = 100.0;
  r.figures.throughput_window_steps = 50;
  r.figures.throughput_window_seconds = 4.0 + rank;
  // Communication 2, 3, 4 s: a mean of 3 s per rank.
  r.figures.phase_seconds = {{"data", 1.0},     {"forward", 3.0},           {"backward", 2.0},
                             {"optimizer", 1.0}, {"communication", 2.0 + rank}, {"eval", 5.0}};
  r.figures.collective_seconds = 4.0 + 2 * rank;  // 4, 6, 8: overlapped, longer than waited
  r.figures.goal_reached = rank == 0;
  r.figures.time_to_accuracy_seconds = 8.0 + rank;
  r.environment = {{"rank", rank}};
  return r;
}

TEST(AggregateTest, AllSucceeded) {
  RunOutcome o = AggregateRankResults({Rank(2, kRankSucceeded), Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)}, 3);
  EXPECT_EQ(o.phase, kPhaseSucceeded);
  EXPECT_EQ(o.reason, "Succeeded");
  const Figures& f = o.results.figures;
  EXPECT_DOUBLE_EQ(f.init_seconds, 3.0);        // slowest rank
  EXPECT_DOUBLE_EQ(f.run_seconds, 12.0);        // slowest rank
  EXPECT_EQ(f.run_start_ms, 1764000000000);     // the first rank's run_start
  EXPECT_EQ(f.run_stop_ms, 1764000010000);      // the last rank's run_stop
  EXPECT_DOUBLE_EQ(*f.samples_per_second, 300.0);  // summed
  EXPECT_EQ(f.throughput_window_steps, 50);
  EXPECT_DOUBLE_EQ(*f.throughput_window_seconds, 6.0);  // the slowest rank's window
  EXPECT_DOUBLE_EQ(*f.compute_seconds, 6.0);  // forward + backward + optimizer, mean per rank
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 3.0);
  // Over the step time: data 1 + compute 6 + communication 3; the 5 s of evaluation are outside.
  EXPECT_DOUBLE_EQ(*f.communication_ratio, 3.0 / 10.0);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("communication"), 3.0);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("forward"), 3.0);
  EXPECT_DOUBLE_EQ(*f.collective_seconds, 6.0);  // mean per rank
  EXPECT_DOUBLE_EQ(*f.time_to_accuracy_seconds, 10.0);
  EXPECT_EQ(f.goal_reached, true);              // rank 0's evaluation
  EXPECT_EQ(o.results.environment["rank"], 0);  // rank 0's environment
}

// On a cluster each rank records its node; the run records them all, in rank order.
TEST(AggregateTest, TheNodeOfEachRankIsKept) {
  std::vector<RankResult> ranks = {Rank(1, kRankSucceeded), Rank(0, kRankSucceeded), Rank(2, kRankSucceeded)};
  for (RankResult& r : ranks) r.environment["node"] = "node-" + std::to_string(r.rank / 2);
  const RunOutcome o = AggregateRankResults(ranks, 3);
  EXPECT_EQ(o.results.environment["nodes"], nlohmann::json({"node-0", "node-0", "node-1"}));
  EXPECT_FALSE(o.results.environment.contains("node"));
  // A local run names none.
  EXPECT_FALSE(AggregateRankResults({Rank(0, kRankSucceeded)}, 1).results.environment.contains("nodes"));
  // A failed run still places every rank that reported, by rank; a rank that said nothing is null.
  ranks[0].status = kRankFailed;
  ranks[0].error = "boom";
  ranks.pop_back();
  EXPECT_EQ(AggregateRankResults(ranks, 3).results.environment["nodes"],
            nlohmann::json({"node-0", "node-0", nullptr}));
}

TEST(AggregateTest, EnergyIsSummedOnlyWhenEveryRankMeasuredIt) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  for (RankResult& r : ranks) {
    r.figures.samples = 1000;
    r.figures.energy_joules = 500.0 + r.rank * 100;           // 500, 600
    r.figures.energy_joules_whole_run = 700.0;
    r.figures.energy_to_accuracy_joules = 1800.0;
  }
  RunOutcome o = AggregateRankResults(ranks, 2);
  EXPECT_EQ(o.results.figures.samples, 2000);
  EXPECT_DOUBLE_EQ(*o.results.figures.energy_joules, 1100.0);
  EXPECT_DOUBLE_EQ(*o.results.figures.energy_joules_whole_run, 1400.0);
  EXPECT_DOUBLE_EQ(*o.results.joules_per_sample, 0.55);
  EXPECT_DOUBLE_EQ(*o.results.energy_to_accuracy_wh, 1.0);  // 3600 J
  EXPECT_DOUBLE_EQ(*o.results.samples_per_wh, 3600 / 0.55);
  EXPECT_FALSE(o.results.epoch_wh.has_value());  // the task has no reference epoch
  // CARAML's energy per ImageNet epoch: 1,281,167 images at 0.55 J each.
  EXPECT_DOUBLE_EQ(*AggregateRankResults(ranks, 2, 1281167).results.epoch_wh, 1281167 * 0.55 / 3600);
  ranks[1].figures.energy_joules.reset();  // rank 1 had no meter
  o = AggregateRankResults(ranks, 2);
  EXPECT_FALSE(o.results.figures.energy_joules.has_value());
  EXPECT_FALSE(o.results.joules_per_sample.has_value());
  EXPECT_FALSE(o.results.samples_per_wh.has_value());
}

// Each node's agent lists what else ran there; the Benchmark's result lists them all, once.
TEST(AggregateTest, WhatSharedTheNodesIsEveryRanksListOnce) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded), Rank(2, kRankSucceeded)};
  EXPECT_FALSE(AggregateRankResults(ranks, 3).results.figures.energy_shared_with.has_value());
  ranks[0].figures.energy_shared_with = std::vector<std::string>{"a/x", "b/y"};
  ranks[1].figures.energy_shared_with = std::vector<std::string>{};
  ranks[2].figures.energy_shared_with = std::vector<std::string>{"b/y"};
  EXPECT_EQ(AggregateRankResults(ranks, 3).results.figures.energy_shared_with,
            (std::vector<std::string>{"a/x", "b/y"}));
  ranks[0].figures.energy_shared_with = std::vector<std::string>{};
  ranks[2].figures.energy_shared_with = std::vector<std::string>{};
  EXPECT_EQ(AggregateRankResults(ranks, 3).results.figures.energy_shared_with, std::vector<std::string>{});
}

// Translation: tokens and tokens/s add up over ranks, BLEU is the one corpus score; joules per
// token are per target token; the loss scale and skipped updates are every rank's.
TEST(AggregateTest, TranslationTokensAddUpAndBleuIsTheCorpusScore) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  for (RankResult& r : ranks) {
    r.figures.translation = TranslationSummary{50.5, 1000 + 10 * r.rank, 1100 + 20 * r.rank, 200.0 + r.rank,
                                               220.0 + 2 * r.rank, "fp16", 1};
    r.figures.energy_joules = 45.0;
    r.figures.loss_scale = 128;
    r.figures.skipped_updates = 2;
  }
  const RunOutcome o = AggregateRankResults(ranks, 2);
  const TranslationSummary& t = *o.results.figures.translation;
  EXPECT_EQ(t.bleu, 50.5);
  EXPECT_EQ(t.source_tokens, 2010);
  EXPECT_EQ(t.target_tokens, 2220);
  EXPECT_DOUBLE_EQ(t.source_tokens_per_second, 401.0);
  EXPECT_DOUBLE_EQ(t.target_tokens_per_second, 442.0);
  EXPECT_EQ(t.precision, "fp16");
  EXPECT_DOUBLE_EQ(*o.results.joules_per_token, 90.0 / 2220);
  EXPECT_EQ(o.results.figures.loss_scale, 128);
  EXPECT_EQ(o.results.figures.skipped_updates, 2);
}

TEST(AggregateTest, LanguageModelTokensAddUpAndPerDeviceFiguresAverage) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  for (RankResult& r : ranks) {
    LanguageModelSummary m;
    m.model = "tiny";
    m.global_batch_size = 8;
    m.tokens = 1000;
    m.tokens_per_second = 200.0 + 100 * r.rank;  // 200, 300
    m.seconds_per_iteration = 0.5 + r.rank;       // 0.5, 1.5
    m.model_tflops_per_second = 1.0 + r.rank;     // 1, 2
    m.peak_tflops = 10.0;
    m.mfu = 0.1 + 0.1 * r.rank;                   // 0.1, 0.2
    r.figures.language_model = m;
    r.figures.energy_joules = 36.0;
  }
  RunOutcome o = AggregateRankResults(ranks, 2);
  const LanguageModelSummary& m = *o.results.figures.language_model;
  EXPECT_EQ(m.tokens, 2000);
  EXPECT_DOUBLE_EQ(m.tokens_per_second, 500.0);
  EXPECT_DOUBLE_EQ(m.seconds_per_iteration, 1.5);  // the slowest rank sets the pace
  EXPECT_DOUBLE_EQ(m.model_tflops_per_second, 1.5);
  EXPECT_DOUBLE_EQ(*m.mfu, 0.15);
  EXPECT_EQ(m.global_batch_size, 8);
  EXPECT_DOUBLE_EQ(*o.results.joules_per_token, 72.0 / 2000);
  EXPECT_DOUBLE_EQ(*o.results.tokens_per_wh, 2000 / (72.0 / 3600));
  ranks[1].figures.language_model->mfu.reset();  // no peak known on rank 1
  EXPECT_FALSE(AggregateRankResults(ranks, 2).results.figures.language_model->mfu.has_value());
}

// What has to fit is the largest rank: each memory figure is the most any rank held.
TEST(AggregateTest, MemoryIsTheLargestRanks) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  ranks[0].figures.memory = MemoryFigures{1000, 500, 100, 40, 80, 280, std::nullopt};
  ranks[1].figures.memory = MemoryFigures{900, 600, 100, 60, 80, 360, std::nullopt};
  const std::optional<MemoryFigures> m = AggregateRankResults(ranks, 2).results.figures.memory;
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (MemoryFigures{1000, 600, 100, 60, 80, 360, std::nullopt}));
  ranks[0].figures.memory->peak_reserved_bytes = 700;  // GPU ranks: the most reserved
  ranks[1].figures.memory->peak_reserved_bytes = 650;
  EXPECT_EQ(AggregateRankResults(ranks, 2).results.figures.memory->peak_reserved_bytes, 700);
  ranks[1].figures.memory.reset();  // a rank that did not measure: no figure for the run
  EXPECT_FALSE(AggregateRankResults(ranks, 2).results.figures.memory);
}

TEST(AggregateTest, ModelFlopsAndPeaksAddUpAndMfuIsTheirRatio) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  for (RankResult& r : ranks) {
    r.figures.flops_per_sample = 3e6;
    r.figures.model_flops_per_second = 3e6 * 100;  // at the rank's 100 samples/s
    r.figures.peak_basis = "1 thread x avx512f FMA kernel, measured";
  }
  ranks[0].figures.peak_flops_per_second = 1e9;
  ranks[1].figures.peak_flops_per_second = 2e9;
  const Figures f = AggregateRankResults(ranks, 2).results.figures;
  EXPECT_EQ(f.flops_per_sample, 3e6);
  EXPECT_EQ(f.model_flops_per_second, 6e8);
  EXPECT_EQ(f.peak_flops_per_second, 3e9);
  EXPECT_DOUBLE_EQ(*f.mfu, 0.2);
  EXPECT_EQ(f.peak_basis, "2 ranks x 1 thread x avx512f FMA kernel, measured");
  ranks[1].figures.peak_flops_per_second.reset();  // a GPU not in the table: no MFU for the run
  EXPECT_FALSE(AggregateRankResults(ranks, 2).results.figures.mfu);
}

// Ranks read and prepare their own shards at once: bytes and rates add up; the data is
// loaded when the slowest rank has it.
TEST(AggregateTest, DataIoAddsUpAndTheLoadIsTheSlowestRanks) {
  std::vector<RankResult> ranks = {Rank(0, kRankSucceeded), Rank(1, kRankSucceeded)};
  ranks[0].figures.io = IoFigures{1000, 100.0, 400, 0.5, 2000.0};
  ranks[1].figures.io = IoFigures{3000, 300.0, 0, 0.75, 1500.0};
  Figures f = AggregateRankResults(ranks, 2).results.figures;
  ASSERT_TRUE(f.io);
  EXPECT_EQ(*f.io, (IoFigures{4000, 400.0, 400, 0.75, 3500.0}));
  // From the mean phases: data 1 s of each rank's step of 9.5 s on average.
  EXPECT_DOUBLE_EQ(*f.data_wait_share, 1.0 / 9.5);
  ranks[1].figures.io->storage_bytes.reset();  // a kernel without I/O accounting
  ranks[0].figures.io->loading_samples_per_second.reset();
  f = AggregateRankResults(ranks, 2).results.figures;
  EXPECT_EQ(*f.io, (IoFigures{4000, 400.0, std::nullopt, 0.75, std::nullopt}));
  ranks[0].figures.io.reset();  // a rank that did not measure: no figure for the run
  EXPECT_FALSE(AggregateRankResults(ranks, 2).results.figures.io);
}

TEST(AggregateTest, FirstFailureInOrderIsQuoted) {
  RunOutcome o = AggregateRankResults(
      {Rank(0, kRankSucceeded), Rank(2, kRankFailed, "out of memory"), Rank(1, kRankFailed, "peer closed")}, 3);
  EXPECT_EQ(o.phase, kPhaseFailed);
  EXPECT_EQ(o.reason, "RankFailed");
  EXPECT_EQ(o.message, "rank 2: out of memory");
  // The successful rank's figures are kept, not lost.
  EXPECT_DOUBLE_EQ(*o.results.figures.samples_per_second, 100.0);
}

TEST(AggregateTest, MissingRankFailsTheRun) {
  RunOutcome o = AggregateRankResults({Rank(0, kRankSucceeded), Rank(2, kRankSucceeded)}, 3);
  EXPECT_EQ(o.phase, kPhaseFailed);
  EXPECT_EQ(o.reason, "ResultMissing");
  EXPECT_EQ(o.message, "rank 1 reported no result");
}

TEST(AggregateTest, CancelledRun) {
  RunOutcome o = AggregateRankResults({Rank(0, kRankCancelled, "stopped by SIGINT"), Rank(1, kRankCancelled, "x"),
                                       Rank(2, kRankCancelled, "y")}, 3);
  EXPECT_EQ(o.phase, kPhaseFailed);
  EXPECT_EQ(o.reason, "Cancelled");
  EXPECT_EQ(o.message, "rank 0: stopped by SIGINT");
}

TEST(AggregateTest, NoResultsAtAll) {
  RunOutcome o = AggregateRankResults({}, 2);
  EXPECT_EQ(o.reason, "ResultMissing");
  EXPECT_EQ(o.message, "rank 0 reported no result");
}

}  // namespace
}  // namespace ergobench
