#include "runner/cpu_budget.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

class CpuBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("cpu_budget_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) {
    fs::path full = root_ / path.substr(1);
    fs::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }

  fs::path root_;
};

TEST_F(CpuBudgetTest, CgroupV2TakesTheTightestQuotaOnThePath) {
  Write("/proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  Write("/sys/fs/cgroup/cpu.max", "max 100000\n");
  Write("/sys/fs/cgroup/kubepods/pod1/cpu.max", "150000 100000\n");
  Write("/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
  CpuBudget budget = ReadCpuBudget(root_.string());
  ASSERT_TRUE(budget.quota_cpus);
  EXPECT_DOUBLE_EQ(*budget.quota_cpus, 1.5);
}

TEST_F(CpuBudgetTest, CgroupV1Quota) {
  Write("/proc/self/cgroup", "4:cpu,cpuacct:/\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(*ReadCpuBudget(root_.string()).quota_cpus, 3.0);
}

TEST_F(CpuBudgetTest, NoQuota) {
  Write("/proc/self/cgroup", "0::/\n");
  Write("/sys/fs/cgroup/cpu.max", "max 100000\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  CpuBudget budget = ReadCpuBudget(root_.string());
  EXPECT_FALSE(budget.quota_cpus);
  EXPECT_GE(budget.affinity_cpus, 1);
}

TEST(CpuBudgetUsableTest, QuotaCapsAffinityAndRanksShare) {
  EXPECT_EQ((CpuBudget{16, 1.5}).Usable(), 1);
  EXPECT_EQ((CpuBudget{16, 4.0}).Usable(), 4);
  EXPECT_EQ((CpuBudget{2, 8.0}).Usable(), 2);
  EXPECT_EQ((CpuBudget{8, std::nullopt}).Usable(), 8);
  EXPECT_EQ((CpuBudget{1, 0.5}).Usable(), 1);
  EXPECT_EQ(ThreadsPerRank({8, std::nullopt}, 2), 4);
  EXPECT_EQ(ThreadsPerRank({2, std::nullopt}, 3), 1);
  EXPECT_EQ(ThreadsPerRank({16, 6.0}, 4), 1);
}

}  // namespace
}  // namespace ergobench
