#include "kube/client/api_error.h"

#include <gtest/gtest.h>

namespace ergobench::kube {
namespace {

std::string StatusBody(int code, const std::string& reason, const std::string& message, const std::string& details = "") {
  nlohmann::json body = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                         {"code", code},     {"reason", reason},    {"message", message}};
  if (!details.empty()) body["details"] = nlohmann::json::parse(details);
  return body.dump();
}

TEST(ApiError, NotFound) {
  Status s = ApiError(404, StatusBody(404, "NotFound", "pods \"x\" not found"));
  EXPECT_TRUE(IsNotFound(s));
  EXPECT_EQ(s.message(), "HTTP 404 NotFound: pods \"x\" not found");
}

TEST(ApiError, ConflictSplitsAlreadyExistsFromStaleWrites) {
  Status exists = ApiError(409, StatusBody(409, "AlreadyExists", "pods \"x\" already exists"));
  EXPECT_TRUE(IsAlreadyExists(exists));
  EXPECT_FALSE(IsConflict(exists));
  Status stale = ApiError(409, StatusBody(409, "Conflict", "the object has been modified"));
  EXPECT_TRUE(IsConflict(stale));
  EXPECT_FALSE(IsAlreadyExists(stale));
}

TEST(ApiError, GoneMeansRelist) {
  Status s = ApiError(410, StatusBody(410, "Expired", "too old resource version: 5 (80)"));
  EXPECT_TRUE(IsGone(s));
  EXPECT_FALSE(IsFatal(s));
}

TEST(ApiError, InvalidListsItsCauses) {
  const std::string details =
      R"({"name":"b","kind":"Benchmark","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: spec.workers in body should be greater than or equal to 1","field":"spec.workers"},{"reason":"FieldValueRequired","message":"Required value","field":"spec.task"}]})";
  Status s = ApiError(422, StatusBody(422, "Invalid", "Benchmark.ergobench.io \"b\" is invalid", details));
  EXPECT_TRUE(IsInvalid(s));
  EXPECT_NE(s.message().find("spec.workers: Invalid value: 0"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("spec.task: Required value"), std::string::npos) << s.message();
}

TEST(ApiError, AuthErrorsAreFatal) {
  EXPECT_TRUE(IsFatal(ApiError(401, StatusBody(401, "Unauthorized", "Unauthorized"))));
  Status forbidden = ApiError(403, StatusBody(403, "Forbidden", "pods is forbidden: User \"u\" cannot list"));
  EXPECT_TRUE(IsFatal(forbidden));
  EXPECT_EQ(forbidden.code(), StatusCode::kPermissionDenied);
}

TEST(ApiError, ServerTroubleIsRetryable) {
  EXPECT_EQ(ApiError(429, StatusBody(429, "TooManyRequests", "slow down")).code(), StatusCode::kUnavailable);
  EXPECT_EQ(ApiError(503, "service unavailable\n").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ApiError(503, "service unavailable\n").message(), "HTTP 503: service unavailable");
}

TEST(ApiError, ErrorEventObjectsMapTheSameWay) {
  nlohmann::json object = nlohmann::json::parse(StatusBody(410, "Expired", "too old"));
  EXPECT_TRUE(IsGone(ApiErrorFromObject(object)));
}

}  // namespace
}  // namespace ergobench::kube
