#include "cli/report/training_curves.h"

#include <gtest/gtest.h>

#include <string>

namespace ergobench {
namespace {

// The lines rank 0 of fmnist writes (runner/metrics/mllog.h), cut short after epoch 2's loss.
constexpr char kFmnistLog[] =
    R"(:::MLLOG {"event_type":"INTERVAL_START","key":"init_start","metadata":{},"namespace":"","time_ms":1000,"value":null}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_accuracy","metadata":{"epoch_num":0},"namespace":"","time_ms":1500,"value":0.1}
:::MLLOG {"event_type":"INTERVAL_START","key":"run_start","metadata":{},"namespace":"","time_ms":2000,"value":null}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"train_samples","metadata":{},"namespace":"","time_ms":2000,"value":60000}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"train_loss","metadata":{"epoch_num":1},"namespace":"","time_ms":5500,"value":0.62}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_loss","metadata":{"epoch_num":1},"namespace":"","time_ms":5600,"value":0.5}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_accuracy","metadata":{"epoch_num":1},"namespace":"","time_ms":5600,"value":0.81}
some other line a rank printed
:::MLLOG {"event_type":"POINT_IN_TIME","key":"train_loss","metadata":{"epoch_num":2},"namespace":"","time_ms":9250,"value":0.41}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_loss","metadata":{"epoch_num":2},"namespace":"","time_ms":9300,"value":NaN}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_accuracy","metadata":{"epoch_num":2},"namespace":"","tim)";

TEST(TrainingCurveTest, EachEpochsValuesAgainstTimeSinceRunStartAndSamples) {
  const TrainingCurve curve = ParseTrainingCurve(kFmnistLog);
  ASSERT_EQ(curve.points.size(), 2u) << "nothing before run_start; the cut line is no point";
  EXPECT_DOUBLE_EQ(curve.points[0].seconds, 3.5);
  EXPECT_EQ(curve.points[0].samples, 60000);
  EXPECT_EQ(curve.points[0].values, (std::map<std::string, double>{{"train_loss", 0.62}, {"eval_loss", 0.5},
                                                                    {"eval_accuracy", 0.81}}));
  EXPECT_DOUBLE_EQ(curve.points[1].seconds, 7.25);
  EXPECT_EQ(curve.points[1].samples, 120000);
  EXPECT_EQ(curve.points[1].values, (std::map<std::string, double>{{"train_loss", 0.41}}))
      << "NaN is not JSON: that line is skipped";
}

// gpt logs its validation loss by step; a step's samples are its sequences.
TEST(TrainingCurveTest, ALanguageModelsStepsTimesItsGlobalBatch) {
  const TrainingCurve curve = ParseTrainingCurve(
      R"(:::MLLOG {"event_type":"INTERVAL_START","key":"run_start","metadata":{},"time_ms":0,"value":null}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"global_batch_size","metadata":{},"time_ms":0,"value":16}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_loss","metadata":{"step_num":50},"time_ms":12000,"value":5.25}
:::MLLOG {"event_type":"POINT_IN_TIME","key":"eval_loss","metadata":{"step_num":100},"time_ms":24500,"value":4.5}
)");
  ASSERT_EQ(curve.points.size(), 2u);
  EXPECT_EQ(curve.points[1].samples, 1600);
  EXPECT_DOUBLE_EQ(curve.points[1].seconds, 24.5);
  EXPECT_EQ(curve.points[1].values.at("eval_loss"), 4.5);
}

TEST(TrainingCurveTest, HostileLogsGiveNoPointsOrBoundedOnes) {
  EXPECT_TRUE(ParseTrainingCurve("").points.empty());
  EXPECT_TRUE(ParseTrainingCurve(":::MLLOG [1,2]\n:::MLLOG {\"key\":5}\n:::MLLOG \xff\xfe\n").points.empty());
  // Times and counts whose difference or product is infinite: no point, or one without samples.
  const TrainingCurve extreme = ParseTrainingCurve(
      ":::MLLOG {\"key\":\"run_start\",\"time_ms\":1e308}\n:::MLLOG {\"key\":\"train_samples\",\"value\":1e308}\n"
      ":::MLLOG {\"key\":\"eval_loss\",\"metadata\":{\"epoch_num\":3},\"time_ms\":-1e308,\"value\":1}\n"
      ":::MLLOG {\"key\":\"eval_loss\",\"metadata\":{\"epoch_num\":9223372036854775807},\"time_ms\":1e308,\"value\":1}\n");
  ASSERT_EQ(extreme.points.size(), 1u);
  EXPECT_EQ(extreme.points[0].seconds, 0);
  EXPECT_FALSE(extreme.points[0].samples);
  std::string many = ":::MLLOG {\"key\":\"run_start\",\"time_ms\":0}\n";
  for (int i = 0; i < 10050; ++i) {
    many += ":::MLLOG {\"key\":\"eval_loss\",\"metadata\":{\"epoch_num\":" + std::to_string(i) +
            "},\"time_ms\":1,\"value\":1}\n";
  }
  EXPECT_EQ(ParseTrainingCurve(many).points.size(), kMaxCurvePoints);
}

}  // namespace
}  // namespace ergobench
