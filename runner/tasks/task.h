// Task: one benchmark workload run by every rank. The runner connects the communicator,
// starts metrics and then calls Run(); a task reports its figures and one summary line.
// Tasks register in the table in task_factory.cc under their catalog id.
#pragma once

#include <memory>
#include <string>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"
#include "base/status.h"

namespace ergobench {

class Communicator;
class MlLog;
class ProgressWriter;
class RunnerMetrics;

struct TaskContext {
  const Benchmark& benchmark;
  Communicator& communicator;
  RunnerMetrics& metrics;
  ProgressWriter& progress;
  std::string output_dir;  // where rank 0 writes tables; may be empty
  MlLog& mllog;            // this rank's ":::MLLOG" lines; init_start is already logged
};

struct TaskOutcome {
  // run_seconds and the task's own figures. init_seconds is the task's own set-up before
  // run_start (model build); the runner adds its start-up and rendezvous to it.
  Figures figures;
  std::string summary;  // "80 sizes, peak busbw 2.35 GB/s at 64.0 MiB"
};

class Task {
 public:
  virtual ~Task() = default;
  // Returns Cancelled when every rank agreed to stop after a signal.
  virtual StatusOr<TaskOutcome> Run(TaskContext& context) = 0;
};

StatusOr<std::unique_ptr<Task>> CreateTask(const std::string& id);

// The task boundary: runs `task`, turning anything it throws (libtorch's c10::Error from a
// TORCH_CHECK, nlohmann::json's errors, std::bad_alloc) into an Internal error naming the task,
// so that the rank still writes its result instead of dying without one.
StatusOr<TaskOutcome> RunTask(Task& task, TaskContext& context);

}  // namespace ergobench
