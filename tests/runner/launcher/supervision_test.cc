#include "runner/launcher/supervision.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "base/child_process.h"

namespace ergobench::mpi {
namespace {

using std::chrono::milliseconds;

TEST(Supervision, ChildrenOfFindsAStartedChildAndNotAfterItEnded) {
  auto child = ChildProcess::Start({{"sleep", "30"}, {}, ""});
  ASSERT_TRUE(child.ok());
  const auto children = ChildrenOf(getpid());
  EXPECT_NE(std::find(children.begin(), children.end(), child->pid()), children.end());
  EXPECT_TRUE(ChildrenOf(child->pid()).empty());
  child->SignalGroup(SIGKILL);
  child->Wait();
  const auto after = ChildrenOf(getpid());
  EXPECT_EQ(std::find(after.begin(), after.end(), child->pid()), after.end());
}

TEST(Supervision, AStopSignalIsTakenInTurnAndNotBefore) {
  StopSignals signals;
  EXPECT_EQ(signals.Wait(milliseconds(50)), std::nullopt);
  kill(getpid(), SIGTERM);  // blocked: pending, not fatal
  EXPECT_EQ(signals.Wait(milliseconds(50)), SIGTERM);
  EXPECT_EQ(signals.Wait(milliseconds(10)), std::nullopt);
}

TEST(Supervision, AChildGetsItsStopSignalsBack) {
  StopSignals signals;
  auto child = ChildProcess::Start({{"sleep", "30"}, {}, ""});
  ASSERT_TRUE(child.ok());
  child->SignalGroup(SIGTERM);
  EXPECT_EQ(child->Wait(), 128 + SIGTERM);
}

}  // namespace
}  // namespace ergobench::mpi
