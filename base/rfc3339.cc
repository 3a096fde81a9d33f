#include "base/rfc3339.h"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace ergobench {

std::string Rfc3339(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string Rfc3339Micro(std::chrono::system_clock::time_point time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  const auto whole = std::chrono::system_clock::time_point(std::chrono::seconds(micros / 1000000));
  std::string text = Rfc3339(whole);
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(micros % 1000000));
  text.insert(text.size() - 1, fraction);
  return text;
}

std::optional<std::chrono::system_clock::time_point> ParseRfc3339(const std::string& text) {
  std::tm utc{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &utc.tm_year, &utc.tm_mon, &utc.tm_mday, &utc.tm_hour,
                  &utc.tm_min, &utc.tm_sec, &consumed) != 6 || consumed != 19) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  auto time = std::chrono::system_clock::from_time_t(timegm(&utc));
  size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    double scale = 0.1, fraction = 0;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, scale /= 10) {
      fraction += (text[i] - '0') * scale;
    }
    time += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(fraction));
  }
  if (i + 1 == text.size() && (text[i] == 'Z' || text[i] == 'z')) return time;
  int hours = 0, minutes = 0;
  if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') &&
      std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hours, &minutes) == 2) {
    const auto offset = std::chrono::hours(hours) + std::chrono::minutes(minutes);
    return text[i] == '+' ? time - offset : time + offset;
  }
  return std::nullopt;
}

}  // namespace ergobench
