#include "runner/launcher/ssh_worker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "runner/launcher/rank_handoff.h"

namespace ergobench::mpi {
namespace {

using std::chrono::milliseconds;

class SshWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ssh_worker_test." + std::to_string(getpid()));
    options_.state_dir = dir_.string();
    options_.runner_argv = {"ergobench-runner", "--config", "/etc/ergobench/benchmark.json"};
    options_.poll = milliseconds(20);
    setenv("SSH_WORKER_TEST", "pod", 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  SshWorkerOptions options_;
};

// Its tests that judge a time run in the quiet phase (ctest label measure).
class SshWorkerMeasureTest : public SshWorkerTest {};

TEST_F(SshWorkerMeasureTest, ThePodEndsWithItsRanksExitCodeAndKeepsItsCommandLine) {
  options_.sshd_argv = {"sleep", "30"};  // an sshd with no session open
  std::thread rank([this] {
    std::this_thread::sleep_for(milliseconds(300));
    ASSERT_TRUE(WriteExitCode(options_.state_dir, 3).ok());
  });
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSshWorker(options_), 3);
  rank.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(5000)) << "sshd was stopped, not waited out";
  const auto handoff = ReadHandoff(options_.state_dir);
  ASSERT_TRUE(handoff.ok());
  EXPECT_EQ(handoff->argv, options_.runner_argv);
  EXPECT_NE(std::find(handoff->env.begin(), handoff->env.end(), std::pair<std::string, std::string>("SSH_WORKER_TEST", "pod")),
            handoff->env.end());
}

TEST_F(SshWorkerMeasureTest, ThePodWaitsForMpirunsSessionsToClose) {
  // A session (sshd's child) that outlives the rank by about a second.
  options_.sshd_argv = {"sh", "-c", "sleep 1.5 & exec sleep 30"};
  ASSERT_TRUE(WriteHandoff(options_.state_dir, {{"x"}, {}}).ok());
  ASSERT_TRUE(WriteExitCode(options_.state_dir, 0).ok());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSshWorker(options_), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(1000));
}

// mpirun starts its daemon with --daemonize: it leaves its ssh session at once and lives on as
// an orphan, which comes to the worker (pid 1 in the pod, a subreaper here). The pod must not
// end under it.
TEST_F(SshWorkerMeasureTest, ThePodWaitsForMpirunsDaemonThatLeftItsSession) {
  options_.sshd_argv = {"sh", "-c", "(sleep 1.5 &); exec sleep 30"};
  ASSERT_TRUE(WriteHandoff(options_.state_dir, {{"x"}, {}}).ok());
  ASSERT_TRUE(WriteExitCode(options_.state_dir, 0).ok());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSshWorker(options_), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(1000));
}

TEST_F(SshWorkerTest, AnSshdThatEndsFailsThePod) {
  options_.sshd_argv = {"sh", "-c", "exit 255"};
  EXPECT_EQ(RunSshWorker(options_), 255);
  options_.sshd_argv = {"true"};
  EXPECT_EQ(RunSshWorker(options_), 1);
}

}  // namespace
}  // namespace ergobench::mpi
