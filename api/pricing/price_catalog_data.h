// The built-in price catalog, charts/ergobench/files/price-catalog.yaml, compiled in.
#pragma once

namespace ergobench {
extern const char kBuiltInPriceCatalog[];
}
