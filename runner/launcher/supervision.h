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

struct ProcessEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  bool zombie = false;  // ended, not yet reaped by its parent
};

// Every process /proc (under `proc_root`) lists now.
std::vector<ProcessEntry> ListProcesses(const std::string& proc_root = "/proc");

// The running processes whose parent is `parent`; an ended child not yet reaped is not one.
std::vector<pid_t> ChildrenOf(pid_t parent, const std::string& proc_root = "/proc");

}  // namespace ergobench::mpi
