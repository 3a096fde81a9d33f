#include "runner/cuda/nccl_library.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/testing/test_paths.h"

namespace ergobench {
namespace {

TEST(NcclLibraryTest, VersionCodesReadAsNcclPrintsThem) {
  EXPECT_EQ(NcclVersionString(22809), "2.28.9");  // 2.9 on: major x 10000 + minor x 100 + patch
  EXPECT_EQ(NcclVersionString(21903), "2.19.3");
  EXPECT_EQ(NcclVersionString(2708), "2.7.8");    // before 2.9: major x 1000 + minor x 100 + patch
}

TEST(NcclLibraryTest, LoadsEveryEntryPointAndTheVersion) {
  StatusOr<std::shared_ptr<NcclLibrary>> nccl = NcclLibrary::Load(testing::kFakeNcclPath);
  ASSERT_TRUE(nccl.ok()) << nccl.status().ToString();
  EXPECT_EQ((*nccl)->version(), "2.28.9");
  EXPECT_EQ((*nccl)->path(), testing::kFakeNcclPath);
  EXPECT_NE((*nccl)->AllReduce, nullptr);
  EXPECT_NE((*nccl)->GroupEnd, nullptr);
  EXPECT_EQ((*nccl)->Error("ncclAllReduce", ncclInvalidUsage),
            "ncclAllReduce: invalid usage (run with NCCL_DEBUG=WARN for details) (fake NCCL)");
}

TEST(NcclLibraryTest, AMissingLibraryIsNamedWithTheWayToPointAtIt) {
  StatusOr<std::shared_ptr<NcclLibrary>> nccl = NcclLibrary::Load("/nonexistent/libnccl.so.2");
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(nccl.status().code(), StatusCode::kFailedPrecondition);
  const std::string message = nccl.status().message();
  EXPECT_EQ(message.rfind("backend nccl: cannot load NCCL from /nonexistent/libnccl.so.2: ", 0), 0u) << message;
  EXPECT_NE(message.find("set ERGOBENCH_NCCL_LIBRARY to its libnccl.so.2"), std::string::npos) << message;
}

TEST(NcclLibraryTest, TheEnvironmentNamesTheLibraryWhenNoPathIsGiven) {
  ASSERT_EQ(setenv("ERGOBENCH_NCCL_LIBRARY", testing::kFakeNcclPath, 1), 0);
  StatusOr<std::shared_ptr<NcclLibrary>> nccl = NcclLibrary::Load();
  unsetenv("ERGOBENCH_NCCL_LIBRARY");
  ASSERT_TRUE(nccl.ok()) << nccl.status().ToString();
  EXPECT_EQ((*nccl)->path(), testing::kFakeNcclPath);
}

TEST(NcclLibraryTest, ALibraryThatIsNotNcclIsRefusedByItsFirstMissingEntryPoint) {
  StatusOr<std::shared_ptr<NcclLibrary>> nccl = NcclLibrary::Load("libz.so.1");
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(nccl.status().message(), "backend nccl: libz.so.1 has no ncclGetVersion (NCCL 2.13 or newer is needed)");
}

}  // namespace
}  // namespace ergobench
