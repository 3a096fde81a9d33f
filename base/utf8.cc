#include "base/utf8.h"

namespace ergobench {

std::string TruncateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  // The byte after the cut is a continuation byte (10xxxxxx) exactly when the cut splits a
  // character; step back to that character's first byte, at most three.
  size_t cut = max_bytes;
  while (cut > 0 && max_bytes - cut < 3 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

Utf8Char DecodeUtf8At(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  const Utf8Char one_byte{lead, 1, lead < 0x80};
  if (lead < 0x80) return one_byte;
  const size_t length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
  if (length == 0 || pos + length > text.size()) return one_byte;
  uint32_t value = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return one_byte;
    value = (value << 6) | (byte(pos + i) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kMin[length] || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) return one_byte;
  return {value, length, true};
}

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const Utf8Char c = DecodeUtf8At(text, i);
    if (!c.valid) return i;
    i += c.length;
  }
  return std::string_view::npos;
}

std::string AbbreviateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  if (max_bytes < 3) return TruncateUtf8(text, max_bytes);
  return TruncateUtf8(text, max_bytes - 3) + "...";
}

}  // namespace ergobench
