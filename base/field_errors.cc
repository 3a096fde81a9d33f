#include "base/field_errors.h"

namespace ergobench {

std::string FieldErrors::Joined() const {
  std::string out;
  for (const FieldError& e : errors_) out += (out.empty() ? "" : "; ") + e.ToString();
  return out;
}

std::string FieldErrors::ToString() const {
  std::string out;
  for (const FieldError& e : errors_) {
    if (!out.empty()) out += '\n';
    out += e.ToString();
  }
  return out;
}

Status FieldErrors::ToStatus() const {
  if (errors_.empty()) return Status::Ok();
  return Status::InvalidArgument(ToString());
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string IndexPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace ergobench
