// UTF-8 helpers for text that came from outside (user specs, pod logs) and is cut to fit a
// limit: a cut inside a multi-byte character leaves invalid UTF-8, which JSON encoders refuse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ergobench {

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a
// multi-byte character. Invalid sequences already in `text` are left as they are.
std::string TruncateUtf8(std::string_view text, size_t max_bytes);

// One character of UTF-8 text: its code point and length in bytes, or, where the bytes at `pos`
// are not a well-formed character (overlong forms, surrogates and code points past U+10FFFF
// included), that one byte, not valid.
struct Utf8Char {
  uint32_t code_point = 0;
  size_t length = 1;
  bool valid = false;
};
Utf8Char DecodeUtf8At(std::string_view text, size_t pos);

// The offset of the first byte of `text` that is not part of a well-formed UTF-8 character
// (overlong forms, surrogates and code points past U+10FFFF included); npos when all are.
size_t FirstInvalidUtf8(std::string_view text);

// `text` cut as TruncateUtf8 does, with "..." in place of what was cut, in `max_bytes` in all.
std::string AbbreviateUtf8(std::string_view text, size_t max_bytes);

}  // namespace ergobench
