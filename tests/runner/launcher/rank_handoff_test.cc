#include "runner/launcher/rank_handoff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ergobench::mpi {
namespace {

class RankHandoffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("rank_handoff_test." + std::to_string(getpid())) / "state").string();
  }
  void TearDown() override { std::filesystem::remove_all(std::filesystem::path(dir_).parent_path()); }
  std::string dir_;
};

TEST_F(RankHandoffTest, TheCommandLineAndEnvironmentComeBackAsWritten) {
  const RankHandoff written = {{"ergobench-runner", "--config", "/etc/ergobench/benchmark.json", "--energy-agent", "10.0.0.7:9500"},
                               {{"RANK", "1"}, {"WORLD_SIZE", "3"}, {"EMPTY", ""}, {"SPACES", "a b=c"}}};
  ASSERT_TRUE(WriteHandoff(dir_, written).ok());  // the folder is made
  const auto read = ReadHandoff(dir_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->argv, written.argv);
  auto sorted = written.env;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(read->env, sorted);
}

TEST_F(RankHandoffTest, NoHandoffIsAnErrorThatSaysWhere) {
  const auto read = ReadHandoff(dir_);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(dir_ + "/rank.json"), std::string::npos) << read.status().message();
}

TEST_F(RankHandoffTest, AFileThatIsNotAHandoffIsRefused) {
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ + "/rank.json") << R"({"argv": [], "env": {}})";
  EXPECT_EQ(ReadHandoff(dir_).status().code(), StatusCode::kInvalidArgument);
  std::ofstream(dir_ + "/rank.json") << R"({"argv": ["x"], "env": {"A": 1}})";
  EXPECT_NE(ReadHandoff(dir_).status().message().find("env.A"), std::string::npos);
}

TEST_F(RankHandoffTest, TheExitCodeIsAbsentUntilWritten) {
  std::filesystem::create_directories(dir_);
  EXPECT_EQ(ReadExitCode(dir_), std::nullopt);
  ASSERT_TRUE(WriteExitCode(dir_, 137).ok());
  EXPECT_EQ(ReadExitCode(dir_), 137);
}

TEST_F(RankHandoffTest, CurrentEnvironmentHoldsThisProcesssVariables) {
  setenv("RANK_HANDOFF_TEST", "x=y", 1);
  const auto env = CurrentEnvironment();
  EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>("RANK_HANDOFF_TEST", "x=y")), env.end());
}

}  // namespace
}  // namespace ergobench::mpi
