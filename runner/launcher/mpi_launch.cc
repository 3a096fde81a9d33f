#include "runner/launcher/mpi_launch.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "base/child_process.h"
#include "runner/launcher/supervision.h"

namespace ergobench::mpi {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kAttemptTimeout{2000};
constexpr milliseconds kRetryPause{500};

// Waits for `fd` to be ready for `events` until `deadline`; false on a timeout or an error.
bool PollUntil(int fd, short events, steady_clock::time_point deadline) {
  pollfd entry = {fd, events, 0};
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now()).count();
  return left > 0 && poll(&entry, 1, static_cast<int>(left)) == 1 && (entry.revents & events) != 0;
}

// One try: connect to host:port and read the server's identification line.
Status AskForBanner(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); error != 0) {
    return Status::Unavailable(std::string("cannot resolve it: ") + gai_strerror(error));
  }
  std::string last = "no address";
  for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
    const int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const auto deadline = steady_clock::now() + kAttemptTimeout;
    std::string banner;
    if (connect(fd, address->ai_addr, address->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = std::strerror(errno);
    } else if (!PollUntil(fd, POLLOUT, deadline)) {
      last = "no connection within " + std::to_string(kAttemptTimeout.count()) + " ms";
    } else {
      int error = 0;
      socklen_t length = sizeof error;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      char buffer[256];
      while (error == 0 && banner.find('\n') == std::string::npos && PollUntil(fd, POLLIN, deadline)) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        banner.append(buffer, n);
      }
      last = error != 0 ? std::strerror(error) : banner.empty() ? "connected, but nothing answered" : "";
    }
    close(fd);
    if (banner.rfind("SSH-", 0) == 0) {
      freeaddrinfo(found);
      return Status::Ok();
    }
    if (last.empty()) last = "it answered, but not as an ssh server: " + banner.substr(0, banner.find_first_of("\r\n"));
  }
  freeaddrinfo(found);
  return Status::Unavailable(last);
}

}  // namespace

StatusOr<std::vector<std::string>> ReadHostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": no hostfile");
  std::vector<std::string> hosts;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string host;
    if (words >> host) hosts.push_back(host);
  }
  if (hosts.empty()) return Status::InvalidArgument(path + ": names no host");
  return hosts;
}

Status WaitForSshd(const std::vector<std::string>& hosts, int port, milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  for (size_t rank = 0; rank < hosts.size(); ++rank) {
    while (true) {
      const Status answered = AskForBanner(hosts[rank], port);
      if (answered.ok()) break;
      if (steady_clock::now() + kRetryPause >= deadline) {
        return Status::DeadlineExceeded("rank " + std::to_string(rank) + "'s worker " + hosts[rank] + ": its sshd (port " +
                                        std::to_string(port) + ") did not answer within " +
                                        std::to_string(timeout.count() / 1000) + " s: " + answered.message());
      }
      std::this_thread::sleep_for(kRetryPause);
    }
  }
  return Status::Ok();
}

int RunMpiLaunch(const MpiLaunchOptions& options) {
  const auto fail = [&](const std::string& message, int code) {
    std::cerr << "ergobench-mpi launch: " << message << "\n";
    if (!options.termination_log.empty()) std::ofstream(options.termination_log) << message << "\n";
    return code;
  };
  auto hosts = ReadHostfile(options.hostfile);
  if (!hosts.ok()) return fail(hosts.status().message(), 2);
  const Status reachable = WaitForSshd(*hosts, options.ssh_port, options.wait_timeout);
  if (!reachable.ok()) return fail(reachable.message(), kWorkersUnreachableExit);
  std::cerr << "ergobench-mpi launch: the sshd of all " << hosts->size() << " workers answered; starting mpirun\n";
  StopSignals signals;  // until now a stop signal simply ended the wait
  auto mpirun = ChildProcess::Start({options.mpirun_argv, {}, ""});
  if (!mpirun.ok()) return fail("cannot start mpirun: " + mpirun.status().message(), 2);
  while (!mpirun->Poll()) {
    if (const auto signal_number = signals.Wait(options.poll)) mpirun->SignalGroup(*signal_number);
  }
  return *mpirun->exit_code();
}

}  // namespace ergobench::mpi
