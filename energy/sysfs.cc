#include "energy/sysfs.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ergobench::sysfs {

StatusOr<std::string> ReadLine(const std::string& path) {
  errno = 0;
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    const int error = errno;
    const std::string why = error != 0 ? std::strerror(error) : "empty or unreadable";
    if (error == EACCES || error == EPERM) return Status::PermissionDenied(path + ": " + why);
    return Status::Unavailable(path + ": " + why);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

StatusOr<double> ReadNumber(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadLine(path));
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return Status::Internal(path + ": not a number: \"" + text + "\"");
  return value;
}

}  // namespace ergobench::sysfs
