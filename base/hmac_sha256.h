// HMAC-SHA256 (OpenSSL) as lowercase hex, and bytes as lowercase hex: the artifact tokens, the
// energy agent's opaque pod names and data sets' digests are written this way.
#pragma once

#include <string>
#include <string_view>

namespace ergobench {

std::string LowerHex(const unsigned char* bytes, size_t size);

// 64 hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

}  // namespace ergobench
