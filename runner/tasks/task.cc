#include "runner/tasks/task.h"

#include <exception>

namespace ergobench {

StatusOr<TaskOutcome> RunTask(Task& task, TaskContext& context) {
  const std::string& id = context.benchmark.spec.task;
  try {
    return task.Run(context);
  } catch (const std::exception& e) {
    return Status::Internal("task " + id + " failed with an exception: " + e.what());
  } catch (...) {
    return Status::Internal("task " + id + " failed with an exception that is not a std::exception");
  }
}

}  // namespace ergobench
