#include "api/quantity.h"

#include <cmath>
#include <cstdlib>
#include <regex>
#include <utility>

namespace ergobench {

StatusOr<double> ParseQuantity(const std::string& text) {
  // The grammar of k8s.io/apimachinery resource.Quantity: a signed decimal number and a
  // binary suffix (Ki..Ei), a decimal suffix (n..E) or a decimal exponent (e3).
  static const std::regex kQuantity(R"(([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?)");
  std::smatch m;
  if (!std::regex_match(text, m, kQuantity)) {
    return Status::InvalidArgument("\"" + text + "\" is not a quantity (examples: 500m, 2, 8Gi)");
  }
  double value = std::strtod(m[1].str().c_str(), nullptr);
  const std::string suffix = m[2].str();
  static const std::pair<const char*, double> kSuffixes[] = {
      {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60},
      {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},    {"k", 1e3},     {"M", 1e6},     {"G", 1e9},
      {"T", 1e12},    {"P", 1e15},    {"E", 1e18},
  };
  double factor = 1;
  for (const auto& [name, multiplier] : kSuffixes) {
    if (suffix == name) factor = multiplier;
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') && suffix != "Ei") {
    // strtod saturates where atoi overflowed: an exponent of a thousand digits is just large.
    factor = std::pow(10.0, std::strtod(suffix.c_str() + 1, nullptr));
  }
  const double quantity = value * factor;
  if (!std::isfinite(quantity)) return Status::InvalidArgument("\"" + text + "\" is out of range");
  return quantity;
}

}  // namespace ergobench
