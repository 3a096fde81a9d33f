// Kubernetes API errors as Status values. The API server answers a failed request with a
// `Status` object (kind: Status, code, reason, message, details.causes); this maps it onto
// a StatusCode so callers branch on meaning, not on HTTP numbers:
//   404 → NotFound          409 AlreadyExists → AlreadyExists   409 Conflict → Aborted
//   410 → OutOfRange (the resourceVersion expired: re-list)     422 → InvalidArgument, with causes
//   401 → Unauthenticated   403 → PermissionDenied (both fatal: retrying cannot help)
//   429, 5xx → Unavailable (retry with backoff)
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ergobench::kube {

// `body` is the response body; a body that is not a Status object is quoted as it is.
Status ApiError(int http_code, std::string_view body);

// The same for a Status object already parsed, as in a watch ERROR event.
Status ApiErrorFromObject(const nlohmann::json& status_object);

inline bool IsNotFound(const Status& s) { return s.code() == StatusCode::kNotFound; }
inline bool IsAlreadyExists(const Status& s) { return s.code() == StatusCode::kAlreadyExists; }
inline bool IsConflict(const Status& s) { return s.code() == StatusCode::kAborted; }
inline bool IsGone(const Status& s) { return s.code() == StatusCode::kOutOfRange; }
inline bool IsInvalid(const Status& s) { return s.code() == StatusCode::kInvalidArgument; }
// Errors no retry can mend: the credentials or the RBAC are wrong.
inline bool IsFatal(const Status& s) {
  return s.code() == StatusCode::kUnauthenticated || s.code() == StatusCode::kPermissionDenied;
}

}  // namespace ergobench::kube
