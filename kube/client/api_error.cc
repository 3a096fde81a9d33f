#include "kube/client/api_error.h"

#include <string>

#include "base/utf8.h"

namespace ergobench::kube {
namespace {

StatusCode CodeFor(int http_code, const std::string& reason) {
  switch (http_code) {
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 405: return StatusCode::kUnimplemented;
    case 409: return reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kAborted;
    case 410: return StatusCode::kOutOfRange;
    case 422: return StatusCode::kInvalidArgument;
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504: return StatusCode::kUnavailable;
    default: return http_code >= 500 ? StatusCode::kUnavailable : StatusCode::kInternal;
  }
}

// "spec.workers: Invalid value: 0: must be >= 1; metadata.name: Required value"
std::string DescribeCauses(const nlohmann::json& details) {
  std::string text;
  if (!details.is_object() || !details.contains("causes") || !details["causes"].is_array()) return text;
  for (const auto& cause : details["causes"]) {
    if (!text.empty()) text += "; ";
    const std::string field = cause.value("field", "");
    text += field.empty() ? cause.value("message", "") : field + ": " + cause.value("message", "");
  }
  return text;
}

}  // namespace

Status ApiErrorFromObject(const nlohmann::json& object) {
  const int code = object.value("code", 0);
  const std::string reason = object.value("reason", "");
  std::string message = object.value("message", "");
  // A 422 message already ends with the causes; repeat them only when it does not.
  const std::string causes = DescribeCauses(object.value("details", nlohmann::json()));
  if (!causes.empty() && message.find(causes) == std::string::npos) message += " (" + causes + ")";
  std::string prefix = "HTTP " + std::to_string(code);
  if (!reason.empty()) prefix += " " + reason;
  return Status(CodeFor(code, reason), prefix + ": " + message);
}

Status ApiError(int http_code, std::string_view body) {
  nlohmann::json object = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (object.is_object() && object.value("kind", "") == "Status") {
    if (!object.contains("code") || !object["code"].is_number_integer()) object["code"] = http_code;
    return ApiErrorFromObject(object);
  }
  std::string text = TruncateUtf8(body, 512);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return Status(CodeFor(http_code, ""), "HTTP " + std::to_string(http_code) + ": " + text);
}

}  // namespace ergobench::kube
