#include "runner/launcher/mpi_rank.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runner/launcher/rank_handoff.h"

namespace ergobench::mpi {
namespace {

class MpiRankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("mpi_rank_test." + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    options_.state_dir = dir_.string();
    options_.termination_log = (dir_ / "termination-log").string();
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    unsetenv("OMPI_COMM_WORLD_RANK");
  }
  void HandOff(const std::string& script, const std::string& rank = "1") {
    ASSERT_TRUE(WriteHandoff(options_.state_dir, {{"sh", "-c", script}, {{"RANK", rank}, {"POD_ONLY", "from the pod"}}}).ok());
  }
  std::string TerminationMessage() const {
    std::ifstream in(options_.termination_log);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path dir_;
  MpiRankOptions options_;
};

TEST_F(MpiRankTest, TheRunnerGetsThePodsEnvironmentAndMpirunsAndLeavesItsExitCode) {
  HandOff("test \"$POD_ONLY\" = 'from the pod' && test \"$OMPI_COMM_WORLD_RANK\" = 1 && "
          "echo '{\"status\": \"ok\"}' > " + options_.termination_log);
  EXPECT_EQ(RunMpiRank(options_), 0);
  EXPECT_EQ(ReadExitCode(options_.state_dir), 0);
  EXPECT_EQ(TerminationMessage(), "{\"status\": \"ok\"}\n");
}

TEST_F(MpiRankTest, ARunnerThatDiesWithoutAResultLeavesAMessageSayingSo) {
  HandOff("kill -9 $$");
  EXPECT_EQ(RunMpiRank(options_), 137);
  EXPECT_EQ(ReadExitCode(options_.state_dir), 137);
  EXPECT_EQ(TerminationMessage(),
            "the runner ended with signal 9 (Killed) before writing its result; its output is in the launcher's log\n");
}

TEST_F(MpiRankTest, AFailedRunnersOwnResultIsKept) {
  HandOff("echo '{\"status\": \"failed\"}' > " + options_.termination_log + "; exit 1");
  EXPECT_EQ(RunMpiRank(options_), 1);
  EXPECT_EQ(TerminationMessage(), "{\"status\": \"failed\"}\n");
}

TEST_F(MpiRankTest, ARankOnAnotherRanksPodIsRefused) {
  HandOff("exit 0", "0");
  EXPECT_EQ(RunMpiRank(options_), 2);
  EXPECT_EQ(TerminationMessage(), "mpirun started rank 1 on the pod of rank 0: the hostfile's order is not the ranks'\n");
  EXPECT_EQ(ReadExitCode(options_.state_dir), 2);
}

TEST_F(MpiRankTest, ARankStoppedByMpirunLeavesNoExitCode) {
  HandOff("sleep 30");
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGTERM);
  });
  EXPECT_EQ(RunMpiRank(options_), 128 + SIGTERM);
  stopper.join();
  EXPECT_EQ(ReadExitCode(options_.state_dir), std::nullopt);
  EXPECT_EQ(TerminationMessage(), "");
}

}  // namespace
}  // namespace ergobench::mpi
