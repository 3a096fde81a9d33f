#include "runner/metrics/tokenizer_13a.h"

#include <cstdint>

#include "base/utf8.h"

namespace ergobench {
namespace {

bool IsWhitespace(const Utf8Char& c) {
  const uint32_t v = c.code_point;
  return c.valid && ((v >= 0x09 && v <= 0x0D) || (v >= 0x1C && v <= 0x20) || v == 0x85 || v == 0xA0 ||
                     v == 0x1680 || (v >= 0x2000 && v <= 0x200A) || v == 0x2028 || v == 0x2029 || v == 0x202F ||
                     v == 0x205F || v == 0x3000);
}

bool IsDigit(const Utf8Char& c) { return c.valid && c.code_point >= '0' && c.code_point <= '9'; }
bool IsPeriodOrComma(const Utf8Char& c) { return c.valid && (c.code_point == '.' || c.code_point == ','); }

// The character class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols and the space, less ' , - .
bool IsSetApart(unsigned char c) {
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == '/';
}

void ReplaceAll(std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  size_t start = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, start)) {
    out.append(text, start, at - start).append(to);
    start = at + from.size();
  }
  if (start == 0) return;
  text = out.append(text, start, std::string::npos);
}

// One pass of Python's re.sub with a pattern of two one-character groups, (A)(B), and a
// replacement that puts spaces around them: matches are taken left to right, never
// overlapping, a character at a time where none starts.
template <typename First, typename Second>
std::string SubstitutePairs(std::string_view text, First first, Second second, std::string_view before,
                            std::string_view between, std::string_view after) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char a = DecodeUtf8At(text, pos);
    if (pos + a.length < text.size() && first(a)) {
      const Utf8Char b = DecodeUtf8At(text, pos + a.length);
      if (second(b)) {
        out.append(before).append(text.substr(pos, a.length)).append(between);
        out.append(text.substr(pos + a.length, b.length)).append(after);
        pos += a.length + b.length;
        continue;
      }
    }
    out.append(text.substr(pos, a.length));
    pos += a.length;
  }
  return out;
}

}  // namespace

std::vector<std::string_view> SplitOnWhitespace(std::string_view text) {
  std::vector<std::string_view> words;
  size_t word_start = std::string_view::npos;
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char c = DecodeUtf8At(text, pos);
    if (IsWhitespace(c)) {
      if (word_start != std::string_view::npos) words.push_back(text.substr(word_start, pos - word_start));
      word_start = std::string_view::npos;
    } else if (word_start == std::string_view::npos) {
      word_start = pos;
    }
    pos += c.length;
  }
  if (word_start != std::string_view::npos) words.push_back(text.substr(word_start));
  return words;
}

std::string_view TrimTrailingWhitespace(std::string_view text) {
  size_t end = 0;  // just past the last character that is not whitespace
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char c = DecodeUtf8At(text, pos);
    pos += c.length;
    if (!IsWhitespace(c)) end = pos;
  }
  return text.substr(0, end);
}

std::string Tokenize13a(std::string_view line) {
  std::string text(line);
  ReplaceAll(text, "<skipped>", "");
  ReplaceAll(text, "-\n", "");
  ReplaceAll(text, "\n", " ");
  if (text.find('&') != std::string::npos) {  // in this order: "&amp;quot;" becomes '&quot;', not '"'
    ReplaceAll(text, "&quot;", "\"");
    ReplaceAll(text, "&amp;", "&");
    ReplaceAll(text, "&lt;", "<");
    ReplaceAll(text, "&gt;", ">");
  }
  std::string spaced = " ";
  for (const char c : text) {
    if (IsSetApart(static_cast<unsigned char>(c))) {
      spaced.append({' ', c, ' '});
    } else {
      spaced.push_back(c);
    }
  }
  spaced.push_back(' ');
  const auto not_digit = [](const Utf8Char& c) { return !IsDigit(c); };
  const auto is_dash = [](const Utf8Char& c) { return c.valid && c.code_point == '-'; };
  // Periods and commas apart unless preceded by a digit, then unless followed by one; a dash
  // after a digit apart.
  spaced = SubstitutePairs(spaced, not_digit, IsPeriodOrComma, "", " ", " ");
  spaced = SubstitutePairs(spaced, IsPeriodOrComma, not_digit, " ", " ", "");
  spaced = SubstitutePairs(spaced, IsDigit, is_dash, "", " ", " ");
  std::string tokens;
  for (const std::string_view word : SplitOnWhitespace(spaced)) {
    if (!tokens.empty()) tokens.push_back(' ');
    tokens.append(word);
  }
  return tokens;
}

}  // namespace ergobench
