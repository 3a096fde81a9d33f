// Small helpers for reading sysfs attribute files.
#pragma once

#include <string>

#include "base/status.h"

namespace ergobench::sysfs {

// The file's first line, trimmed; an error names the file and errno's text.
StatusOr<std::string> ReadLine(const std::string& path);
StatusOr<double> ReadNumber(const std::string& path);

}  // namespace ergobench::sysfs
