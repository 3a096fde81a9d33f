#include "api/v1alpha1/quantity.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "base/text_scan.h"
#include "base/utf8.h"

namespace ergobench {

StatusOr<double> ParseQuantity(const std::string& text) {
  // Quoted shortened, and only for an error: most text parses.
  const auto invalid = [&text](const std::string& why) {
    return Status::InvalidArgument("\"" + AbbreviateUtf8(text, 64) + "\"" + why);
  };
  // Kubernetes' longest quantities (a byte count in Ei with a fraction) are far shorter.
  if (text.size() > kMaxQuantityLength) {
    return invalid(" is not a quantity: longer than " + std::to_string(kMaxQuantityLength) + " characters");
  }
  // The grammar of k8s.io/apimachinery resource.Quantity: a signed decimal number and a
  // binary suffix (Ki..Ei), a decimal suffix (n..E) or a decimal exponent (e3).
  TextScan scan(text);
  scan.Sign();
  if (!scan.Decimal()) return invalid(" is not a quantity (examples: 500m, 2, 8Gi)");
  const std::string number = text.substr(0, text.size() - scan.rest().size());
  const std::string suffix(scan.rest());
  double value = std::strtod(number.c_str(), nullptr);
  static const std::pair<const char*, double> kSuffixes[] = {
      {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60},
      {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},    {"k", 1e3},     {"M", 1e6},     {"G", 1e9},
      {"T", 1e12},    {"P", 1e15},    {"E", 1e18},
  };
  std::optional<double> factor;
  if (suffix.empty()) factor = 1;
  for (const auto& [name, multiplier] : kSuffixes) {
    if (suffix == name) factor = multiplier;
  }
  if (TextScan exponent(suffix); exponent.Exponent() && exponent.AtEnd()) {
    // strtod saturates where atoi overflowed: an exponent of a thousand digits is just large.
    factor = std::pow(10.0, std::strtod(suffix.c_str() + 1, nullptr));
  }
  if (!factor) return invalid(" is not a quantity (examples: 500m, 2, 8Gi)");
  const double quantity = value * *factor;
  if (!std::isfinite(quantity)) return invalid(" is out of range");
  return quantity;
}

std::string FormatByteQuantity(int64_t bytes) {
  static const char* kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  double scaled = static_cast<double>(bytes);
  int suffix = 0;
  while (suffix < 6 && std::fabs(scaled) >= 1023.5) {  // 1023.5 and up round to 1024: "1Ki", not "1.02e+03"
    scaled /= 1024;
    ++suffix;
  }
  char number[32];
  std::snprintf(number, sizeof number, std::fabs(scaled) >= 100 || suffix == 0 ? "%.0f" : std::fabs(scaled) >= 10 ? "%.1f" : "%.2f",
                scaled);
  std::string text = number;
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text + kSuffixes[suffix];
}

}  // namespace ergobench
