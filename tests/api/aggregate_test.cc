#include "api/aggregate.h"

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
  r.figures.samples_per_second = 100.0;
  r.figures.throughput_window_steps = 50;
  r.figures.throughput_window_seconds = 4.0 + rank;
  r.figures.compute_seconds = 6.0;
  r.figures.communication_seconds = 2.0 + rank;  // 2, 3, 4
  r.figures.phase_seconds = {{"communication", 2.0 + rank}, {"forward", 3.0}};
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
  EXPECT_DOUBLE_EQ(*f.samples_per_second, 300.0);  // summed
  EXPECT_EQ(f.throughput_window_steps, 50);
  EXPECT_DOUBLE_EQ(*f.throughput_window_seconds, 6.0);  // the slowest rank's window
  EXPECT_DOUBLE_EQ(*f.compute_seconds, 6.0);     // mean
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 3.0);
  EXPECT_DOUBLE_EQ(*f.communication_ratio, 3.0 / 9.0);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("communication"), 3.0);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("forward"), 3.0);
  EXPECT_DOUBLE_EQ(*f.time_to_accuracy_seconds, 10.0);
  EXPECT_EQ(f.goal_reached, true);              // rank 0's evaluation
  EXPECT_EQ(o.results.environment["rank"], 0);  // rank 0's environment
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
  ranks[1].figures.energy_joules.reset();  // rank 1 had no meter
  o = AggregateRankResults(ranks, 2);
  EXPECT_FALSE(o.results.figures.energy_joules.has_value());
  EXPECT_FALSE(o.results.joules_per_sample.has_value());
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
