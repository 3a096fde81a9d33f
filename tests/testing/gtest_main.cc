// The main of every gtest binary: gtest's, except that
// - a run in which some test was skipped and none failed exits 77, ctest's SKIP_RETURN_CODE
//   (ctest's SKIP_REGULAR_EXPRESSION would mark a binary Skipped even when another of its
//   tests failed);
// - with ERGOBENCH_TEST_TIMES set to a file, each test's wall time is appended to it as a JSON
//   line, with what a failed test said, as tests/integration/run_suite.py does for the Python
//   suites (tests/test_times.py prints the slowest of them all, and every failure);
// - with ERGOBENCH_CPU_LOCK set to a file, the binary holds that lock shared while it runs, as
//   the Python suites do (tests/integration/cpu_lock.py): a test that compares the speed of runs
//   waits for it, and has the CPUs to itself.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace {

class TestTimes : public ::testing::EmptyTestEventListener {
 public:
  TestTimes(std::string path, std::string binary) : path_(std::move(path)), binary_(std::move(binary)) {}

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    nlohmann::json entry = {{"suite", binary_},
                            {"test", std::string(info.test_suite_name()) + "." + info.name()},
                            {"seconds", static_cast<double>(result.elapsed_time()) / 1000.0}};
    std::string failure;
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      if (!part.failed()) continue;
      failure += std::string(part.file_name() ? part.file_name() : "?") + ":" + std::to_string(part.line_number()) +
                 ": " + part.summary() + "\n";
    }
    if (!failure.empty()) entry["failure"] = failure;
    const std::string line = entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // One write per line in append mode, so that tests running side by side do not interleave.
    if (std::FILE* f = std::fopen(path_.c_str(), "a")) {
      std::fwrite(line.data(), 1, line.size(), f);
      std::fclose(f);
    }
  }

 private:
  std::string path_;
  std::string binary_;
};

[[noreturn]] void CpuLockFailed(const std::string& path) {
  std::perror(("ERGOBENCH_CPU_LOCK " + path).c_str());
  std::exit(1);
}

// cpu_lock.share(): through the turnstile, then the lock shared, held until the process exits.
void ShareCpuLock(const std::string& path) {
  const int turnstile = open((path + ".turnstile").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  const int lock = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (turnstile < 0 || lock < 0) CpuLockFailed(path);
  for (auto [fd, operation] : {std::pair{turnstile, LOCK_EX}, std::pair{lock, LOCK_SH}}) {
    while (flock(fd, operation) != 0) {
      if (errno != EINTR) CpuLockFailed(path);
    }
  }
  close(turnstile);
}

std::string BaseName(const char* path) {
  const std::string s(path);
  const auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const char* lock = std::getenv("ERGOBENCH_CPU_LOCK"); lock != nullptr && *lock != '\0') ShareCpuLock(lock);
  if (const char* times = std::getenv("ERGOBENCH_TEST_TIMES"); times != nullptr && *times != '\0') {
    ::testing::UnitTest::GetInstance()->listeners().Append(new TestTimes(times, BaseName(argv[0])));
  }
  const int failed = RUN_ALL_TESTS();
  if (failed != 0) return failed;
  return ::testing::UnitTest::GetInstance()->skipped_test_count() > 0 ? 77 : 0;
}
