// What ergobench-mpi's three roles share: stop signals taken in turn rather than by a handler
// (blocked, then waited for between looks at the children), and which processes a process has
// started (an sshd's sessions).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ergobench::mpi {

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (children started afterwards get
// them back: ChildProcess unblocks them). Then Wait gives the next one, or nullopt after
// `timeout`. Construct it before any thread starts.
class StopSignals {
 public:
  StopSignals();
  std::optional<int> Wait(std::chrono::milliseconds timeout);
};

// The running processes whose parent is `parent`, as /proc (under `proc_root`) lists them now;
// an ended child its parent has not yet reaped is not one.
std::vector<pid_t> ChildrenOf(pid_t parent, const std::string& proc_root = "/proc");

}  // namespace ergobench::mpi
