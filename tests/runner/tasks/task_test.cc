#include "runner/tasks/task.h"

#include <gtest/gtest.h>

#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"

namespace ergobench {
namespace {

class ThrowingTask : public Task {
 public:
  explicit ThrowingTask(std::function<void()> body) : body_(std::move(body)) {}
  StatusOr<TaskOutcome> Run(TaskContext&) override {
    body_();
    return TaskOutcome{};
  }

 private:
  std::function<void()> body_;
};

class NoCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  const char* backend() const override { return "none"; }
  bool Supports(DType) const override { return true; }
  Status AllReduce(void*, size_t, DType, ReduceOp) override { return Status::Ok(); }
  Status ReduceScatter(void*, size_t, DType, ReduceOp) override { return Status::Ok(); }
  Status AllGather(void*, size_t, DType) override { return Status::Ok(); }
  Status Broadcast(void*, size_t, DType, int) override { return Status::Ok(); }
  Status Reduce(void*, size_t, DType, ReduceOp, int) override { return Status::Ok(); }
  Status AllToAll(const void*, void*, size_t, DType) override { return Status::Ok(); }
  Status Barrier() override { return Status::Ok(); }
};

Status RunThrowing(std::function<void()> body) {
  Benchmark benchmark;
  benchmark.spec.task = "1a";
  NoCommunicator comm;
  RunnerMetrics metrics(MetricLabels{"b", "1a", "gloo", 0, 1});
  ProgressWriter progress("", 0);
  MlLog mllog("");
  TaskContext context{benchmark, comm, metrics, progress, "", mllog};
  ThrowingTask task(std::move(body));
  return RunTask(task, context).status();
}

TEST(RunTaskTest, ATorchCheckBecomesAFailedResultNamingTheTask) {
  const Status s = RunThrowing([] { TORCH_CHECK(false, "shape mismatch: 3 vs 4"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message().rfind("task 1a failed with an exception: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("shape mismatch: 3 vs 4"), std::string::npos) << s.message();
}

TEST(RunTaskTest, AJsonErrorBecomesAFailedResult) {
  const Status s = RunThrowing([] { nlohmann::json::object().at("batchSize").get<int>(); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("key 'batchSize' not found"), std::string::npos) << s.message();
}

TEST(RunTaskTest, ANonStandardThrowIsStillCaught) {
  EXPECT_EQ(RunThrowing([] { throw 42; }).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace ergobench
