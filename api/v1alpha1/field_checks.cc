#include "api/v1alpha1/field_checks.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "base/text_scan.h"
#include "base/utf8.h"

namespace ergobench {

std::string Quote(const std::string& s) { return "\"" + AbbreviateUtf8(s, 64) + "\""; }

std::string OneOf(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += choices[i];
  }
  return out;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  for (const std::string& item : list) {
    if (item == value) return true;
  }
  return false;
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void CheckRange(const std::string& path, double value, double min, double max, FieldErrors* errors) {
  if (value < min || value > max || std::isnan(value)) {
    errors->Add(path, "must be between " + FormatNumber(min) + " and " + FormatNumber(max) +
                          ", got " + FormatNumber(value));
  }
}

void CheckEnum(const std::string& path, const std::string& value, const std::vector<std::string>& choices,
               FieldErrors* errors) {
  if (!Contains(choices, value)) {
    errors->Add(path, "must be one of " + OneOf(choices) + ", got " + Quote(value));
  }
}

void CheckRelativePath(const std::string& path, const std::string& value, FieldErrors* errors) {
  if (!value.empty() && value.front() == '/') {
    errors->Add(path, "must be relative to the volume's root, got " + Quote(value));
    return;
  }
  for (const auto& part : std::filesystem::path(value)) {
    if (part == "..") {
      errors->Add(path, "must stay inside the volume (no \"..\"), got " + Quote(value));
      return;
    }
  }
}

void CheckFetchUrl(const std::string& path, const std::string& url, bool allow_file, FieldErrors* errors) {
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  const std::string rest = scheme_end == std::string::npos ? url : url.substr(scheme_end + 3);
  if (rest.substr(0, rest.find_first_of("/?#")).find('@') != std::string::npos) {
    errors->Add(path, "must not hold credentials (user:password@ before the host): anyone who may read the object "
                      "would read them");
  } else if (scheme != "http" && scheme != "https" && !(allow_file && scheme == "file")) {
    errors->Add(path, std::string("must be an http:// or https:// URL") + (allow_file ? " (or file:// for a local run)" : "") +
                          ", got " + Quote(url));
  } else if (url.size() > 2048) {
    errors->Add(path, "must be at most 2048 bytes, got " + std::to_string(url.size()));
  }
}

void CheckDnsLabel(const std::string& path, const std::string& value, size_t max_length, FieldErrors* errors) {
  if (value.empty()) {
    errors->Add(path, "is required");
  } else if (value.size() > max_length) {
    errors->Add(path, "must be at most " + std::to_string(max_length) + " characters, got " +
                          std::to_string(value.size()));
  } else if (!IsDnsLabel(value)) {
    errors->Add(path, "must be lowercase letters, digits and '-', starting and ending with a letter or digit, got " +
                          Quote(value));
  }
}

}  // namespace ergobench
