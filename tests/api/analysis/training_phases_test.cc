#include "api/analysis/training_phases.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(TrainingPhasesTest, NamesRoundTrip) {
  for (TrainingPhase phase : kTrainingPhases) EXPECT_EQ(ParsePhaseName(PhaseName(phase)), phase);
  EXPECT_EQ(ParsePhaseName("Forward"), std::nullopt);
}

TEST(TrainingPhasesTest, RatioIsCommunicationOverTheStepTimeWithoutEvaluation) {
  Figures f;
  f.phase_seconds = {{"data", 2},          {"forward", 4}, {"backward", 8}, {"optimizer", 1},
                     {"communication", 5}, {"eval", 100}};
  DerivePhaseFigures(&f);
  EXPECT_DOUBLE_EQ(*f.compute_seconds, 13.0);
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 5.0);
  EXPECT_DOUBLE_EQ(*f.communication_ratio, 5.0 / 20.0);
}

TEST(TrainingPhasesTest, CommunicationAloneHasNoComputeAndNoRatio) {
  Figures f;  // task 0a times only its all-reduces
  f.phase_seconds = {{"communication", 3}};
  f.communication_ratio = 0.5;  // a stale value is cleared, not kept
  DerivePhaseFigures(&f);
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 3.0);
  EXPECT_FALSE(f.compute_seconds.has_value());
  EXPECT_FALSE(f.communication_ratio.has_value());
}

TEST(TrainingPhasesTest, DataWaitShareIsTheDataPhaseOverTheStepTime) {
  Figures f;
  f.phase_seconds = {{"data", 2},          {"forward", 4}, {"backward", 8}, {"optimizer", 1},
                     {"communication", 5}, {"eval", 100}};
  DerivePhaseFigures(&f);
  EXPECT_DOUBLE_EQ(*f.data_wait_share, 2.0 / 20.0);
  EXPECT_FALSE(IsIoBound(f)) << "at MLPerf Storage's 90% utilisation exactly, not yet I/O-bound";
  f.phase_seconds["data"] = 2.3;  // 2.3 / 20.3 waited: 11.3%
  DerivePhaseFigures(&f);
  EXPECT_DOUBLE_EQ(*f.data_wait_share, 2.3 / 20.3);
  EXPECT_TRUE(IsIoBound(f));
}

TEST(TrainingPhasesTest, NoDataPhaseOrNoComputeHasNoDataWaitShare) {
  Figures f;
  f.phase_seconds = {{"communication", 3}};  // 0a
  f.data_wait_share = 0.5;                    // stale: cleared
  DerivePhaseFigures(&f);
  EXPECT_FALSE(f.data_wait_share.has_value());
  EXPECT_FALSE(IsIoBound(f));
  f.phase_seconds = {{"forward", 1}, {"backward", 2}};
  DerivePhaseFigures(&f);
  EXPECT_FALSE(f.data_wait_share.has_value());
}

TEST(TrainingPhasesTest, UnknownPhasesFromANewerRunnerAreIgnored) {
  Figures f;
  f.phase_seconds = {{"forward", 1}, {"communication", 1}, {"checkpoint", 50}};
  DerivePhaseFigures(&f);
  EXPECT_DOUBLE_EQ(*f.communication_ratio, 0.5);
}

}  // namespace
}  // namespace ergobench
