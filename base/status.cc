#include "base/status.h"

namespace ergobench {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kFailedPrecondition: return "FailedPrecondition";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceeded";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kAborted: return "Aborted";
    case StatusCode::kOutOfRange: return "OutOfRange";
    case StatusCode::kUnauthenticated: return "Unauthenticated";
    case StatusCode::kPermissionDenied: return "PermissionDenied";
    case StatusCode::kUnimplemented: return "Unimplemented";
    case StatusCode::kInternal: return "Internal";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code_, prefix + ": " + message_);
}

}  // namespace ergobench
