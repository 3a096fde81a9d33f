// The default price table, api/prices.yaml, compiled in (CMake writes prices_data.cc).
#pragma once

namespace ergobench {

extern const char kDefaultPriceTable[];

}  // namespace ergobench
