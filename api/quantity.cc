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
  if (suffix.empty()) return value;
  for (const auto& [name, factor] : kSuffixes) {
    if (suffix == name) return value * factor;
  }
  return value * std::pow(10.0, std::atoi(suffix.c_str() + 1));
}

}  // namespace ergobench
