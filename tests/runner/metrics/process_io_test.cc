#include "runner/metrics/process_io.h"

#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// The example in the kernel's Documentation/filesystems/proc.rst (/proc/<pid>/io).
constexpr char kKernelDocExample[] =
    "rchar: 323934931\n"
    "wchar: 323929600\n"
    "syscr: 632687\n"
    "syscw: 632675\n"
    "read_bytes: 0\n"
    "write_bytes: 323932160\n"
    "cancelled_write_bytes: 0\n";

TEST(ProcessIoTest, ReadsReadBytesNotRcharOrWriteBytes) {
  EXPECT_EQ(*ParseStorageReadBytes(kKernelDocExample), 0);
  EXPECT_EQ(*ParseStorageReadBytes("rchar: 7\nread_bytes: 1073741824\nwrite_bytes: 9\n"), 1073741824);
  EXPECT_EQ(*ParseStorageReadBytes("read_bytes: 9223372036854775807"), INT64_MAX);  // no newline at the end
}

TEST(ProcessIoTest, HostileTextIsAnErrorNamingWhatIsWrong) {
  for (const char* text : {"read_bytes: -4096\n", "read_bytes: 9223372036854775808\n", "read_bytes: 12abc\n",
                           "read_bytes:\n", "read_bytes: 1 2\n"}) {
    const StatusOr<int64_t> bytes = ParseStorageReadBytes(text);
    ASSERT_FALSE(bytes.ok()) << text;
    EXPECT_EQ(bytes.status().message(), "/proc/self/io: read_bytes is not a count of bytes") << text;
  }
  EXPECT_EQ(ParseStorageReadBytes("rchar: 1\n").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ParseStorageReadBytes("").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ParseStorageReadBytes(std::string("read_bytes: 12\0 34\n", 19)).status().code(),
            StatusCode::kInvalidArgument);
  const std::string long_text = std::string(5000, 'x') + "\nread_bytes: 1\n";
  EXPECT_EQ(ParseStorageReadBytes(long_text).status().message(), "/proc/self/io: over 4096 bytes");
}

TEST(ProcessIoTest, ReadsAFileAndNothingWhereThereIsNone) {
  const std::string path = ::testing::TempDir() + "/process_io";
  std::ofstream(path) << kKernelDocExample;
  EXPECT_EQ(StorageReadBytes(path), 0);
  std::ofstream(path) << "rchar: 1\n";
  EXPECT_EQ(StorageReadBytes(path), std::nullopt);
  EXPECT_EQ(StorageReadBytes(::testing::TempDir() + "/no_such_file"), std::nullopt);
}

}  // namespace
}  // namespace ergobench
