#include "base/child_process.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

int WaitFor(ChildProcess& child) {
  for (int i = 0; i < 200; ++i) {
    if (auto code = child.Poll()) return *code;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ADD_FAILURE() << "child did not exit";
  return -1;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST(ChildProcessTest, ExitCodeEnvironmentAndOutput) {
  const std::string out = ::testing::TempDir() + "/child_out.txt";
  std::remove(out.c_str());
  auto child = ChildProcess::Start({{"sh", "-c", "echo \"$GREETING\"; echo oops >&2; exit 3"}, {{"GREETING", "hi"}}, out});
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(WaitFor(*child), 3);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "hi\noops\n");
}

TEST(ChildProcessTest, SpecVariablesReplaceInheritedOnes) {
  // A shell that already exports RANK (common where torchrun is used) must not leak it.
  setenv("RANK", "9", 1);
  const std::string out = ::testing::TempDir() + "/child_env.txt";
  std::remove(out.c_str());
  auto child = ChildProcess::Start({{"sh", "-c", "env | grep '^RANK='"}, {{"RANK", "1"}}, out});
  unsetenv("RANK");
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(WaitFor(*child), 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "RANK=1\n");
}

TEST(ChildProcessTest, MissingProgramExits127) {
  auto child = ChildProcess::Start({{"/nonexistent/program"}, {}, ""});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(WaitFor(*child), 127);
}

TEST(ChildProcessTest, SignalReachesTheWholeGroup) {
  const std::string pid_file = ::testing::TempDir() + "/grandchild.pid";
  std::remove(pid_file.c_str());
  // The grandchild stands in for mpirun's ranks: it must die with its parent's group.
  auto child = ChildProcess::Start({{"sh", "-c", "sleep 60 & echo $! > " + pid_file + "; wait"}, {}, ""});
  ASSERT_TRUE(child.ok());
  pid_t grandchild = 0;
  for (int i = 0; i < 200 && grandchild == 0; ++i) {
    std::ifstream(pid_file) >> grandchild;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Alive(grandchild));
  child->SignalGroup(SIGTERM);
  EXPECT_EQ(WaitFor(*child), 128 + SIGTERM);
  for (int i = 0; i < 100 && Alive(grandchild); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(Alive(grandchild));
}

}  // namespace
}  // namespace ergobench
