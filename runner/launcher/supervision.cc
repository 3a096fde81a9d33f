#include "runner/launcher/supervision.h"

#include <signal.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ergobench::mpi {
namespace {

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

StopSignals::StopSignals() {
  const sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::optional<int> StopSignals::Wait(std::chrono::milliseconds timeout) {
  const sigset_t set = StopSet();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timespec wait = {static_cast<time_t>(seconds.count()),
                         static_cast<long>(std::chrono::nanoseconds(timeout - seconds).count())};
  const int signal_number = sigtimedwait(&set, nullptr, &wait);
  if (signal_number > 0) return signal_number;
  return std::nullopt;  // EAGAIN (timed out) or EINTR (SIGCHLD and the like)
}

std::vector<ProcessEntry> ListProcesses(const std::string& proc_root) {
  std::vector<ProcessEntry> processes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid) processes.push_back({static_cast<pid_t>(std::stol(name)), ppid, state == "Z"});
  }
  return processes;
}

std::vector<pid_t> ChildrenOf(pid_t parent, const std::string& proc_root) {
  std::vector<pid_t> children;
  for (const ProcessEntry& process : ListProcesses(proc_root)) {
    if (process.ppid == parent && !process.zombie) children.push_back(process.pid);
  }
  return children;
}

}  // namespace ergobench::mpi
