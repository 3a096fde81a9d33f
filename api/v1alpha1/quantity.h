// Kubernetes resource quantities ("500m", "3", "8Gi", "1e3") as numbers, for validating
// spec.resources and for deriving thread counts from a CPU request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace ergobench {

// Longer text is refused before it is parsed (and the CRD's maxLength says so too).
inline constexpr size_t kMaxQuantityLength = 64;

// The quantity's value in base units: ParseQuantity("500m") == 0.5, ("8Gi") == 8·2^30.
StatusOr<double> ParseQuantity(const std::string& text);

// A byte count as a binary quantity of three significant figures, as kubectl's columns show
// sizes: FormatByteQuantity(54945648) == "52.4Mi", (512) == "512". ParseQuantity reads it back
// within its rounding.
std::string FormatByteQuantity(int64_t bytes);

}  // namespace ergobench
