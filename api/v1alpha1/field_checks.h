// Small checks the resources' validations share, each adding a FieldError named by its path.
#pragma once

#include <string>
#include <vector>

#include "base/field_errors.h"

namespace ergobench {

// A value as an error quotes it: shortened, so that the message fits an Event (1 KiB).
std::string Quote(const std::string& s);
// "a, b or c".
std::string OneOf(const std::vector<std::string>& choices);
bool Contains(const std::vector<std::string>& list, const std::string& value);
// A number as messages show it: 0.5, 1024, 1e+09.
std::string FormatNumber(double value);
// "must be between MIN and MAX, got VALUE" unless min <= value <= max.
void CheckRange(const std::string& path, double value, double min, double max, FieldErrors* errors);
void CheckEnum(const std::string& path, const std::string& value, const std::vector<std::string>& choices,
               FieldErrors* errors);
// A folder inside a volume: relative, and never climbing out of it with "..".
void CheckRelativePath(const std::string& path, const std::string& value, FieldErrors* errors);
// A URL a data set is fetched from: http:// or https:// (file:// too with `allow_file`: a local
// run's own files), at most 2048 bytes, and without user:password@, which would sit in the
// object for anyone who may read it; that one is refused without echoing the URL.
void CheckFetchUrl(const std::string& path, const std::string& url, bool allow_file, FieldErrors* errors);
// A Kubernetes object name (DNS-1123 label) of at most `max_length` characters.
void CheckDnsLabel(const std::string& path, const std::string& value, size_t max_length, FieldErrors* errors);

}  // namespace ergobench
