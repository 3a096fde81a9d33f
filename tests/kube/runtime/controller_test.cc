#include "kube/runtime/controller.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ergobench::runtime {
namespace {

struct Observed {
  std::string key;
  std::string result;
  Status error;
};

Observed ProcessOne(WorkQueue* queue, const ReconcileFn& reconcile) {
  Observed observed;
  ReconcileObserver observer{[&](const std::string& key, const std::string& result, double, const Status& error) {
    observed = {key, result, error};
  }};
  EXPECT_TRUE(ProcessNextKey(queue, reconcile, observer));
  return observed;
}

TEST(ControllerTest, AThrowingReconcileIsAnErrorRetriedWithBackoff) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.Add("ns/bad");
  const Observed o = ProcessOne(&queue, [](const std::string&) -> ReconcileResult {
    const nlohmann::json pod = {{"status", "not an object"}};
    return Result::RequeueAfter(std::chrono::seconds(pod.at("status").at("phase").get<int>()));  // throws type_error
  });
  EXPECT_EQ(o.key, "ns/bad");
  EXPECT_EQ(o.result, "error");
  EXPECT_EQ(o.error.code(), StatusCode::kInternal);
  EXPECT_NE(o.error.message().find("reconcile of ns/bad threw: [json.exception.type_error"), std::string::npos)
      << o.error.message();
  EXPECT_EQ(queue.NumRequeues("ns/bad"), 1);
  EXPECT_EQ(queue.WaitingLen(), 1u);  // back after the rate limiter's delay
}

TEST(ControllerTest, ResultsMapToControllerRuntimeSemantics) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.Add("a");
  EXPECT_EQ(ProcessOne(&queue, [](const std::string&) -> ReconcileResult { return Result::Done(); }).result, "success");
  EXPECT_EQ(queue.Len() + queue.WaitingLen(), 0u);
  queue.Add("a");
  EXPECT_EQ(ProcessOne(&queue, [](const std::string&) -> ReconcileResult {
              return Result::RequeueAfter(std::chrono::seconds(10));
            }).result,
            "requeue_after");
  EXPECT_EQ(queue.WaitingLen(), 1u);
  EXPECT_EQ(Result::RequeueAfter(std::optional<std::chrono::seconds>()), Result::Done());
}

// A terminal error is an error the loop reports but does not retry, and its backoff is forgotten:
// a retryable failure before it does not make the next event wait.
TEST(ControllerTest, ATerminalErrorIsReportedAndNotRetried) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.Add("ns/b");
  EXPECT_EQ(ProcessOne(&queue, [](const std::string&) -> ReconcileResult { return Status::Unavailable("try again"); })
                .result,
            "error");
  EXPECT_EQ(queue.NumRequeues("ns/b"), 1);
  time.Advance(std::chrono::seconds(1));
  const Observed o = ProcessOne(&queue, [](const std::string&) -> ReconcileResult {
    return Result::Terminal(Status::InvalidArgument("spec.workers: must be at least 1"));
  });
  EXPECT_EQ(o.result, "terminal_error");
  EXPECT_EQ(o.error.ToString(), Status::InvalidArgument("spec.workers: must be at least 1").ToString());
  EXPECT_EQ(queue.NumRequeues("ns/b"), 0);
  EXPECT_EQ(queue.Len() + queue.WaitingLen(), 0u);
}

}  // namespace
}  // namespace ergobench::runtime
