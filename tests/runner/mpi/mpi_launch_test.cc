#include "runner/mpi/mpi_launch.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

namespace ergobench::mpi {
namespace {

using std::chrono::milliseconds;

// A TCP server on a free port of 127.0.0.1 that greets each client with `greeting`.
class Greeter {
 public:
  explicit Greeter(std::string greeting) : greeting_(std::move(greeting)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] {
      while (true) {
        const int client = accept(fd_, nullptr, nullptr);
        if (client < 0 || stop_) break;
        [[maybe_unused]] ssize_t n = write(client, greeting_.data(), greeting_.size());
        close(client);
      }
    });
  }
  ~Greeter() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  std::string greeting_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

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
  Greeter sshd("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u6\r\n");
  EXPECT_TRUE(WaitForSshd({"127.0.0.1", "localhost"}, sshd.port(), milliseconds(5000)).ok());
}

TEST(MpiLaunch, AnotherServerOnThePortIsNotTakenForSshd) {
  Greeter web("HTTP/1.1 400 Bad Request\r\n\r\n");
  const Status waited = WaitForSshd({"127.0.0.1"}, web.port(), milliseconds(1200));
  ASSERT_EQ(waited.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(waited.message().find("rank 0's worker 127.0.0.1"), std::string::npos) << waited.message();
  EXPECT_NE(waited.message().find("not as an ssh server: HTTP/1.1 400 Bad Request"), std::string::npos) << waited.message();
}

TEST(MpiLaunch, AWorkerThatNeverAnswersEndsTheWaitNamingItsRank) {
  Greeter sshd("SSH-2.0-test\r\n");
  int closed_port = 0;
  {
    Greeter gone("");
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
  Greeter sshd("SSH-2.0-test\r\n");
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
