#include "base/utf8.h"

#include <cstdint>

namespace ergobench {

std::string TruncateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  // The byte after the cut is a continuation byte (10xxxxxx) exactly when the cut splits a
  // character; step back to that character's first byte, at most three.
  size_t cut = max_bytes;
  while (cut > 0 && max_bytes - cut < 3 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
    const unsigned char lead = byte(i);
    size_t length = 1;
    uint32_t min = 0, code = lead;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2, min = 0x80, code = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3, min = 0x800, code = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4, min = 0x10000, code = lead & 0x07;
    } else if (lead >= 0x80) {
      return i;  // a continuation byte or a lead byte no character starts with
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return i;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string AbbreviateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  if (max_bytes < 3) return TruncateUtf8(text, max_bytes);
  return TruncateUtf8(text, max_bytes - 3) + "...";
}

}  // namespace ergobench
