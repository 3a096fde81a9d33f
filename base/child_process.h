// ChildProcess: one program started by another (the local executor's ranks, mpirun, sshd),
// in a process group of its own so that a signal reaches everything it started (mpirun's
// ranks included), and with a parent-death signal so that no child outlives its parent
// killed with SIGKILL.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct ChildSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added to this process's environment
  std::string output_path;  // stdout and stderr, appended; empty: inherit
};

class ChildProcess {
 public:
  static StatusOr<ChildProcess> Start(const ChildSpec& spec);

  pid_t pid() const { return pid_; }
  // Reaps the child if it has ended: its exit code, or 128 + signal. Never blocks.
  std::optional<int> Poll();
  // Blocks until the child has ended; its exit code as Poll gives it.
  int Wait();
  bool running() const { return !exit_code_; }
  std::optional<int> exit_code() const { return exit_code_; }
  // Signals the child's whole process group.
  void SignalGroup(int signal_number) const;

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> exit_code_;
};

}  // namespace ergobench
