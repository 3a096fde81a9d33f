// Human formatting of the figures ergobench prints: sizes in binary units (4.0 MiB),
// rates in decimal units as bandwidth tools print them (2.35 GB/s), durations (1.5 ms).
#pragma once

#include <cstdint>
#include <string>

namespace ergobench {

std::string FormatBytes(double bytes);            // "512 B", "4.0 KiB", "95.4 MiB"
std::string FormatBytesPerSecond(double rate);    // "850 MB/s", "2.35 GB/s"
std::string FormatSeconds(double seconds);        // "12 us", "1.50 ms", "2.3 s", "1h02m"
std::string FormatFixed(double value, int decimals);  // FormatFixed(3.14159, 2) == "3.14"
std::string FormatSignificant(double value, int digits);  // FormatSignificant(15616.4, 4) == "1.562e+04"
// Three significant figures with an SI prefix (k M G T P E) from 1000 up, trailing zeros
// dropped, for the short columns kubectl shows: FormatSi(13762.6, "samples/s") ==
// "13.8k samples/s"; a symbol takes the prefix: FormatSi(35210, "J", true) == "35.2 kJ";
// FormatSi(0.0018879, "USD") == "0.00189 USD". Not finite: "-".
std::string FormatSi(double value, const std::string& unit, bool unit_is_symbol = false);

}  // namespace ergobench
