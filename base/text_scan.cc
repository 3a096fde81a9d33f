#include "base/text_scan.h"

namespace ergobench {

bool TextScan::Char(char c) {
  if (rest_.empty() || rest_.front() != c) return false;
  rest_.remove_prefix(1);
  return true;
}

bool TextScan::CharIn(std::string_view chars) {
  if (rest_.empty() || chars.find(rest_.front()) == std::string_view::npos) return false;
  rest_.remove_prefix(1);
  return true;
}

bool TextScan::One(bool (*accept)(char)) {
  if (rest_.empty() || !accept(rest_.front())) return false;
  rest_.remove_prefix(1);
  return true;
}

bool TextScan::Literal(std::string_view literal) {
  if (rest_.substr(0, literal.size()) != literal) return false;
  rest_.remove_prefix(literal.size());
  return true;
}

size_t TextScan::While(bool (*accept)(char)) {
  size_t n = 0;
  while (n < rest_.size() && accept(rest_[n])) ++n;
  rest_.remove_prefix(n);
  return n;
}

bool TextScan::Decimal() {
  const std::string_view before = rest_;
  const size_t whole = While(IsAsciiDigit);
  const bool point = Char('.');
  const size_t fraction = point ? While(IsAsciiDigit) : 0;
  if (whole > 0 || fraction > 0) return true;
  rest_ = before;  // "", "." and "+" are not numbers
  return false;
}

bool TextScan::Exponent() {
  const std::string_view before = rest_;
  if (CharIn("eE")) {
    Sign();
    if (While(IsAsciiDigit) > 0) return true;
  }
  rest_ = before;
  return false;
}

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAsciiLetter(char c) { return IsAsciiLower(c) || IsAsciiUpper(c); }
bool IsAsciiAlnum(char c) { return IsAsciiDigit(c) || IsAsciiLetter(c); }
bool IsLowerHexDigit(char c) { return IsAsciiDigit(c) || (c >= 'a' && c <= 'f'); }
bool IsHexDigit(char c) { return IsLowerHexDigit(c) || (c >= 'A' && c <= 'F'); }

bool AllOf(std::string_view text, bool (*accept)(char), size_t length) {
  if (length != std::string_view::npos && text.size() != length) return false;
  for (char c : text) {
    if (!accept(c)) return false;
  }
  return true;
}

bool IsDnsLabel(std::string_view text) {
  auto label_char = [](char c) { return IsAsciiDigit(c) || IsAsciiLower(c) || c == '-'; };
  return !text.empty() && text.front() != '-' && text.back() != '-' && AllOf(text, label_char);
}

bool IsDnsSubdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  while (true) {
    const size_t dot = text.find('.');
    if (!IsDnsLabel(text.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    text.remove_prefix(dot + 1);
  }
}

}  // namespace ergobench
