#include "base/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ergobench {
namespace {

std::string Printf(const char* format, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value, unit);
  return buffer;
}

}  // namespace

std::string FormatBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return Printf(unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
}

std::string FormatBytesPerSecond(double rate) {
  static const char* kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  int unit = 0;
  while (std::fabs(rate) >= 1000 && unit < 4) {
    rate /= 1000;
    ++unit;
  }
  return Printf(std::fabs(rate) < 10 ? "%.2f %s" : "%.0f %s", rate, kUnits[unit]);
}

std::string FormatFixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string FormatSignificant(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

std::string FormatSi(double value, const std::string& unit, bool unit_is_symbol) {
  if (!std::isfinite(value)) return "-";
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  constexpr int kLast = 6;
  int prefix = 0;
  double scaled = value;
  // The prefix of the value as rounded: 999.7 is "1k", not "1e+03". Below 1000, %.3g writes no
  // exponent (and no trailing zeros) down to 0.0001.
  while (prefix < kLast && std::fabs(std::strtod(FormatSignificant(scaled, 3).c_str(), nullptr)) >= 1000) {
    scaled /= 1000;
    ++prefix;
  }
  std::string number = FormatSignificant(scaled, 3);
  if (number == "-0") number = "0";
  if (unit.empty()) return number + kPrefixes[prefix];
  return unit_is_symbol ? number + " " + kPrefixes[prefix] + unit : number + kPrefixes[prefix] + " " + unit;
}

std::string FormatSeconds(double seconds) {
  if (seconds < 1e-3) return Printf("%.0f %s", seconds * 1e6, "us");
  if (seconds < 1) return Printf("%.2f %s", seconds * 1e3, "ms");
  if (seconds < 60) return Printf("%.1f %s", seconds, "s");
  char buffer[64];
  const long total = std::lround(seconds);
  if (total < 3600) {
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", total / 60, total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", total / 3600, (total % 3600) / 60);
  }
  return buffer;
}

}  // namespace ergobench
