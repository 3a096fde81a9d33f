#include "cli/mllog_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "tests/testing/mlperf_log_fixture.h"
#include "tests/testing/temp_dir.h"

namespace ergobench {
namespace {

using namespace mllog_fixture;  // NOLINT: Line, Log, ClosedResnet

// A closed ResNet run's log (it passes every rule) with its seed, stopping `minutes` after
// run_start (60001 ms) with `status`.
std::string ResnetRun(int64_t seed, double minutes, const std::string& status = "success") {
  std::vector<Line> lines = ClosedResnet();
  lines.insert(lines.begin() + 8, Line{"seed", seed});
  lines.back().time_ms = 60001 + minutes * 60000;
  lines.back().metadata["status"] = status;
  return Log(lines);
}

class MllogScoreTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // The command's exit code, with what it printed.
  int Score(const std::vector<std::string>& files, const std::string& output = "json") {
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const int code = MllogScoreCommand(files, output);
    out_ = ::testing::internal::GetCapturedStdout();
    err_ = ::testing::internal::GetCapturedStderr();
    return code;
  }
  TempDir dir_;
  std::string out_, err_;
};

// Ground truth by hand: run_start to run_stop of each, in minutes; the olympic mean of 10, 11
// and 12 is 11.
TEST_F(MllogScoreTest, ThreeRunsScoreTheirOlympicMean) {
  const std::vector<std::string> files = {Write("result_0.txt", ResnetRun(42, 10)), Write("result_1.txt", ResnetRun(43, 12)),
                                          Write("result_2.txt", ResnetRun(44, 11))};
  ASSERT_EQ(Score(files), kExitOk) << err_;
  const nlohmann::json scored = nlohmann::json::parse(out_);
  EXPECT_EQ(scored["runs"][1]["seed"], 43);
  EXPECT_EQ(scored["runs"][1]["minutes"], 12);
  EXPECT_EQ(scored["runs"][1]["epochs"], 2);
  EXPECT_EQ(scored["score"]["benchmark"], "resnet");
  EXPECT_EQ(scored["score"]["timeToTrainMinutes"], 11);
  EXPECT_EQ(scored["score"]["epochsToConverge"], 2);
  EXPECT_EQ(scored["score"]["note"], "3 runs of the 5 MLPerf requires for resnet");
  ASSERT_EQ(Score(files, "text"), kExitOk);
  EXPECT_NE(out_.find("result_1.txt: 12.000 min, seed 43, epoch 2\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("resnet: 11.000 min to train, the olympic mean of 3 runs (3 converged), 2 epochs to converge; 3 runs "
                      "of the 5 MLPerf requires for resnet\n"),
            std::string::npos)
      << out_;
}

// What the summarizer drops: a log that is not one, and a run that stopped without success.
// One of five may be dropped, as the slowest; two leave no score.
TEST_F(MllogScoreTest, GarbageAndAbortedRunsDidNotConverge) {
  const std::string garbage = Write("garbage.txt", std::string("\0\xff:::MLLOG {\"key\":", 18));
  const std::vector<std::string> four = {garbage, Write("a.txt", ResnetRun(1, 10)), Write("b.txt", ResnetRun(2, 12)),
                                         Write("c.txt", ResnetRun(3, 11))};
  ASSERT_EQ(Score(four), kExitOk) << err_;
  nlohmann::json scored = nlohmann::json::parse(out_);
  EXPECT_EQ(scored["runs"][0]["converged"], false);
  EXPECT_EQ(scored["runs"][0]["reason"], "fails MLPerf's log rules (ergobench mllog check " + garbage + ")");
  EXPECT_EQ(scored["score"]["timeToTrainMinutes"], 11.5);  // 10 dropped as the fastest: (11 + 12) / 2

  std::vector<std::string> five = four;
  five.push_back(Write("d.txt", ResnetRun(4, 9, "aborted")));
  ASSERT_EQ(Score(five), kExitFailed);
  scored = nlohmann::json::parse(out_);
  EXPECT_EQ(scored["runs"][4]["reason"], "run_stop's status is aborted");
  EXPECT_FALSE(scored["score"].contains("timeToTrainMinutes"));
  EXPECT_EQ(scored["score"]["note"], "2 runs of 5 did not converge; MLPerf's score allows 1");
}

TEST_F(MllogScoreTest, LogsOfTwoBenchmarksAreBadInputNamingBoth) {
  std::vector<Line> other = ClosedResnet();
  other[4].value = "bert";  // submission_benchmark
  const std::string resnet = Write("resnet.txt", ResnetRun(1, 10));
  const std::string bert = Write("bert.txt", Log(other));
  EXPECT_EQ(Score({resnet, bert}), kExitBadInput);
  EXPECT_EQ(err_, "ergobench mllog score: " + bert + " is a log of 'bert', " + resnet +
                      " of 'resnet': score one benchmark at a time\n");
}

TEST_F(MllogScoreTest, AFileThatNeverEndsIsBadInput) {
  EXPECT_EQ(Score({"/dev/zero"}), kExitBadInput);
  EXPECT_EQ(err_, "ergobench mllog score: /dev/zero: larger than 67108864 bytes\n");
  EXPECT_EQ(Score({(dir_.path() / "absent").string()}), kExitBadInput);
}

}  // namespace
}  // namespace ergobench
