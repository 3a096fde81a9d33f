// Runs collectives on a thread of their own, one after another in launch order, so that a
// training step goes on computing while they run: the overlap of gradient all-reduces with
// backward that PyTorch's DDP does. Every rank must launch the same collectives in the same
// order, as with blocking calls. Torch-free: the collectives are closures.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "base/status.h"

namespace ergobench {

class CollectiveWorker {
 public:
  CollectiveWorker();
  // Runs what was launched, then joins.
  ~CollectiveWorker();
  CollectiveWorker(const CollectiveWorker&) = delete;
  CollectiveWorker& operator=(const CollectiveWorker&) = delete;

  // Queues `collective` behind every earlier one. After one has failed, later ones are
  // skipped: the peers are out of step and would block.
  void Launch(std::function<Status()> collective);

  // Blocks until every launched collective has completed; the first error, if any.
  Status WaitAll();

  // The seconds the collectives took (each from its start to its completion) since the last
  // call; call after WaitAll.
  double TakeBusySeconds();

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable queued_;
  std::condition_variable drained_;
  std::deque<std::function<Status()>> queue_;
  bool running_one_ = false;
  bool stopping_ = false;
  Status error_ = Status::Ok();
  double busy_seconds_ = 0;
  std::thread thread_;  // last: starts after the state it reads
};

}  // namespace ergobench
