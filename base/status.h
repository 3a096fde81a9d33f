// Status and StatusOr<T>: errors as values, as in leveldb and abseil. Every fallible call in
// ergobench returns one; exceptions from third-party libraries are caught at the adapter
// that calls them and turned into a Status there.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "base/check.h"

namespace ergobench {

enum class StatusCode {
  kOk,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kUnavailable,
  kDeadlineExceeded,
  kCancelled,
  kAborted,           // a concurrent writer won: retry from a fresh read
  kOutOfRange,        // a position no longer served, like an expired resourceVersion
  kUnauthenticated,
  kPermissionDenied,
  kUnimplemented,
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {StatusCode::kUnauthenticated, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "InvalidArgument: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "prefix: message"; OK stays OK.
  Status WithContext(const std::string& prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : value_(std::move(status)) { ERGOBENCH_CHECK(!std::get<Status>(value_).ok()); }
  StatusOr(T value) : value_(std::move(value)) {}

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(value_); }

  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<Status, T> value_;
};

}  // namespace ergobench

#define ERGOBENCH_CONCAT_INNER(a, b) a##b
#define ERGOBENCH_CONCAT(a, b) ERGOBENCH_CONCAT_INNER(a, b)

// Returns early with the status when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::ergobench::Status status_macro_ = (expr);      \
    if (!status_macro_.ok()) return status_macro_;   \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, Foo());` declares x from a StatusOr or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(ERGOBENCH_CONCAT(statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
