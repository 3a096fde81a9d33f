// Backward fills overlap's buckets and ZeRO's units in whatever order it produces gradients,
// but every rank must issue the same collectives in the same order. This counts the members
// each group still waits for and hands full groups to `launch` strictly in index order. The
// caller's lock guards it.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace ergobench {

class InOrderLauncher {
 public:
  explicit InOrderLauncher(std::function<void(size_t group)> launch) : launch_(std::move(launch)) {}

  // A new round: group g waits for sizes[g] members, and nothing has been launched.
  void Restart(std::vector<size_t> sizes) {
    pending_ = std::move(sizes);
    next_ = 0;
  }
  // One member of `group` is in; true when that made the group full (it is not launched yet).
  bool MemberReady(size_t group) { return --pending_[group] == 0; }
  // Launches the full groups from the first not launched, up to one that is not full.
  void LaunchFull() {
    for (; next_ < pending_.size() && pending_[next_] == 0; ++next_) launch_(next_);
  }
  // Counts every group as full and launches those not launched yet.
  void LaunchTheRest() {
    for (size_t& pending : pending_) pending = 0;
    LaunchFull();
  }

  bool full(size_t group) const { return pending_[group] == 0; }
  size_t next() const { return next_; }  // the first group not launched

 private:
  std::function<void(size_t)> launch_;
  std::vector<size_t> pending_;
  size_t next_ = 0;
};

}  // namespace ergobench
