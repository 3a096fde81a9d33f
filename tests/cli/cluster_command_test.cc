#include "cli/cluster_command.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "tests/testing/test_paths.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

class FindClusterProgramTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("ERGOBENCH_CLUSTER_COMMAND"); }
  void TearDown() override { unsetenv("ERGOBENCH_CLUSTER_COMMAND"); }
  TempDir dir_;
};

TEST_F(FindClusterProgramTest, InstalledBesideTheBinaryComesFirst) {
  const fs::path program = dir_.path() / "share/ergobench/cluster/cluster_command.py";
  fs::create_directories(program.parent_path());
  std::ofstream(program) << "";
  EXPECT_EQ(program.string(), FindClusterProgram((dir_.path() / "bin/ergobench").string(), testing::kSourceDir));
}

TEST_F(FindClusterProgramTest, ElseTheSourceTreeItWasBuiltFrom) {
  EXPECT_EQ(std::string(testing::kSourceDir) + "/kube/cluster/cluster_command.py",
            FindClusterProgram((dir_.path() / "bin/ergobench").string(), testing::kSourceDir));
}

TEST_F(FindClusterProgramTest, TheEnvironmentOverridesBoth) {
  setenv("ERGOBENCH_CLUSTER_COMMAND", "/opt/elsewhere/cluster_command.py", 1);
  EXPECT_EQ("/opt/elsewhere/cluster_command.py", FindClusterProgram("/usr/bin/ergobench", testing::kSourceDir));
}

}  // namespace
}  // namespace ergobench
