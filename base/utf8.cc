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

std::string AbbreviateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  if (max_bytes < 3) return TruncateUtf8(text, max_bytes);
  return TruncateUtf8(text, max_bytes - 3) + "...";
}

}  // namespace ergobench
