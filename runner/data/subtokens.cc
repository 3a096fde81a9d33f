#include "runner/data/subtokens.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

#if ERGOBENCH_HAS_ICU
#include <unicode/uchar.h>
#endif

#include "base/utf8.h"

namespace ergobench {
namespace {

constexpr uint32_t kUndefined = 0x3013;  // tensor2tensor's _UNDEFINED_UNICODE

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// Python's chr(): a code point up to U+10FFFF, surrogates included; beyond, kUndefined. UTF-8
// cannot carry a surrogate, so one becomes kUndefined too.
uint32_t CharacterOf(std::string_view digits) {
  uint64_t value = 0;
  for (const char d : digits) {
    value = value * 10 + static_cast<uint64_t>(d - '0');
    if (value > 0x10FFFF) return kUndefined;
  }
  return value >= 0xD800 && value <= 0xDFFF ? kUndefined : static_cast<uint32_t>(value);
}

// tensor2tensor's _unescape_token: "\u", "\\" and "\<digits>;" replaced, anything else kept.
std::string Unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '\\' && i + 1 < token.size()) {
      if (token[i + 1] == 'u' || token[i + 1] == '\\') {
        out.push_back(token[i + 1] == 'u' ? '_' : '\\');
        ++i;
        continue;
      }
      size_t end = i + 1;
      while (end < token.size() && token[end] >= '0' && token[end] <= '9') ++end;
      if (end > i + 1 && end < token.size() && token[end] == ';') {
        AppendUtf8(CharacterOf(token.substr(i + 1, end - i - 1)), &out);
        i = end;
        continue;
      }
    }
    out.push_back(token[i]);
  }
  return out;
}

bool StartsAlphanumeric(std::string_view token) {
  const Utf8Char first = DecodeUtf8At(token, 0);
#if ERGOBENCH_HAS_ICU
  return first.valid && (U_GET_GC_MASK(static_cast<UChar32>(first.code_point)) & (U_GC_L_MASK | U_GC_N_MASK)) != 0;
#else
  return first.valid && first.code_point < 0x80 && std::isalnum(static_cast<int>(first.code_point));  // unreachable: refused
#endif
}

}  // namespace

Status CheckSubtokensSupported() {
#if ERGOBENCH_HAS_ICU
  return Status::Ok();
#else
  return Status::FailedPrecondition("this build has no ICU (libicu-dev), which decoding WMT17's subtokens needs");
#endif
}

std::string DecodeSubtokens(std::string_view subtokens) {
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start <= subtokens.size()) {
    const size_t end = std::min(subtokens.find('_', start), subtokens.size());
    if (end > start) tokens.push_back(Unescape(subtokens.substr(start, end - start)));
    start = end + 1;
  }
  std::string text;
  bool previous_alphanumeric = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool alphanumeric = StartsAlphanumeric(tokens[i]);
    if (i > 0 && previous_alphanumeric && alphanumeric) text.push_back(' ');
    text += tokens[i];
    previous_alphanumeric = alphanumeric;
  }
  return text;
}

}  // namespace ergobench
