#include "runner/launcher/mpi_launch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/canned_server.h"

namespace ergobench::mpi {
namespace {

using std::chrono::milliseconds;

TEST(MpiLaunch, ReadHostfileGivesTheHostsInRankOrder) {
  const std::string path = std::filesystem::temp_directory_path() / ("hostfile." + std::to_string(getpid()));
  std::ofstream(path) << "# ranks\nb-worker-0.b-workers slots=1\n\nb-worker-1.b-workers slots=1  # rank 1\n";
  const auto hosts = ReadHostfile(path);
  ASSERT_TRUE(hosts.ok()) << hosts.status().ToString();
  EXPECT_EQ(*hosts, (std::vector<std::string>{"b-worker-0.b-workers", "b-worker-1.b-workers"}));
  std::ofstream(path) << "# nobody\n";
  EXPECT_EQ(ReadHostfile(path).status().code(), StatusCode::kInvalidArgument);
  std::filesystem::remove(path);
  EXPECT_EQ(ReadHostfile(path).status().code(), StatusCode::kNotFound);
}

TEST(MpiLaunch, AnSshServerAnswers) {
  testing::CannedServer sshd("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u6\r\n");
  EXPECT_TRUE(WaitForSshd({"127.0.0.1", "localhost"}, sshd.port(), milliseconds(5000)).ok());
}

TEST(MpiLaunch, AnotherServerOnThePortIsNotTakenForSshd) {
  testing::CannedServer web("HTTP/1.1 400 Bad Request\r\n\r\n");
  const Status waited = WaitForSshd({"127.0.0.1"}, web.port(), milliseconds(1200));
  ASSERT_EQ(waited.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(waited.message().find("rank 0's worker 127.0.0.1"), std::string::npos) << waited.message();
  EXPECT_NE(waited.message().find("not as an ssh server: HTTP/1.1 400 Bad Request"), std::string::npos) << waited.message();
}

TEST(MpiLaunchMeasureTest, AWorkerThatNeverAnswersEndsTheWaitNamingItsRank) {
  testing::CannedServer sshd("SSH-2.0-test\r\n");
  int closed_port = 0;
  {
    testing::CannedServer gone("");
    closed_port = gone.port();
  }
  const auto started = std::chrono::steady_clock::now();
  const Status waited = WaitForSshd({"127.0.0.1", "127.0.0.1"}, closed_port, milliseconds(1500));
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(4000));
  EXPECT_NE(waited.message().find("rank 0's worker"), std::string::npos) << waited.message();
  EXPECT_NE(waited.message().find("Connection refused"), std::string::npos) << waited.message();
  const Status unknown = WaitForSshd({"no-such-worker.invalid"}, sshd.port(), milliseconds(600));
  EXPECT_NE(unknown.message().find("cannot resolve it"), std::string::npos) << unknown.message();
}

TEST(MpiLaunch, TheLaunchEndsAsMpirunDoesOrSaysWhyItDidNotStart) {
  const auto dir = std::filesystem::temp_directory_path() / ("mpi_launch_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  testing::CannedServer sshd("SSH-2.0-test\r\n");
  std::ofstream(dir / "hostfile") << "127.0.0.1 slots=1\n";
  MpiLaunchOptions options;
  options.hostfile = (dir / "hostfile").string();
  options.ssh_port = sshd.port();
  options.termination_log = (dir / "termination-log").string();
  options.mpirun_argv = {"sh", "-c", "exit 7"};
  EXPECT_EQ(RunMpiLaunch(options), 7);
  EXPECT_FALSE(std::filesystem::exists(options.termination_log));

  std::ofstream(dir / "hostfile") << "127.0.0.1 slots=1\nno-such-worker.invalid slots=1\n";
  options.wait_timeout = milliseconds(600);
  EXPECT_EQ(RunMpiLaunch(options), kWorkersUnreachableExit);
  std::ifstream in(options.termination_log);
  std::string message;
  std::getline(in, message);
  EXPECT_NE(message.find("rank 1's worker no-such-worker.invalid"), std::string::npos) << message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ergobench::mpi
