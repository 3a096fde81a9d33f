#include "runner/tasks/allreduce_sweep.h"
#include "runner/tasks/task.h"

namespace ergobench {

StatusOr<std::unique_ptr<Task>> CreateTask(const std::string& id) {
  if (id == "0a") return NewAllreduceSweepTask();
  return Status::Unimplemented("this runner has no implementation of task \"" + id + "\"");
}

}  // namespace ergobench
