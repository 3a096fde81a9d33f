#include "runner/metrics/moses_detokenizer.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#if ERGOBENCH_HAS_ICU
#include <unicode/uchar.h>
#endif

#include "base/utf8.h"
#include "runner/metrics/tokenizer_13a.h"

namespace ergobench {
namespace {

bool IsCurrency(uint32_t c) {
#if ERGOBENCH_HAS_ICU
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_SC_MASK) != 0;
#else
  return c == '$';
#endif
}

bool IsAlphabetic(uint32_t c) {
#if ERGOBENCH_HAS_ICU
  return u_isUAlphabetic(static_cast<UChar32>(c));
#else
  return c < 0x80 && std::isalpha(static_cast<int>(c));
#endif
}

// sacremoses' is_cjk ranges.
bool IsCjk(uint32_t c) {
  static constexpr std::pair<uint32_t, uint32_t> kRanges[] = {
      {4352, 4607},     {11904, 42191},   {43072, 43135},   {44032, 55215},   {63744, 64255},   {65072, 65103},
      {65381, 65500},   {94208, 101119},  {110592, 110895}, {110960, 111359}, {131072, 196607}};
  for (const auto& [first, last] : kRanges) {
    if (c >= first && c <= last) return true;
  }
  return false;
}

std::vector<uint32_t> CodePoints(std::string_view text) {
  std::vector<uint32_t> points;
  for (size_t i = 0; i < text.size();) {
    const Utf8Char c = DecodeUtf8At(text, i);
    points.push_back(c.valid ? c.code_point : 0xFFFD);
    i += c.length;
  }
  return points;
}

// Whether every character of `token` is one of `chars` or passes `also`.
bool AllOf(std::string_view token, std::u32string_view chars, bool (*also)(uint32_t) = nullptr) {
  const std::vector<uint32_t> points = CodePoints(token);
  for (const uint32_t c : points) {
    if (chars.find(static_cast<char32_t>(c)) == std::u32string_view::npos && !(also && also(c))) return false;
  }
  return !points.empty();
}

void ReplaceAll(std::string* text, std::string_view from, std::string_view to) {
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// The text with Moses' escapes undone, in sacremoses' order (&amp; last).
std::string Unescaped(std::string_view tokenized) {
  std::string text = " " + std::string(tokenized) + " ";
  ReplaceAll(&text, " @-@ ", "-");
  static constexpr std::pair<std::string_view, std::string_view> kEscapes[] = {
      {"&bar;", "|"},  {"&#124;", "|"}, {"&lt;", "<"},    {"&gt;", ">"},   {"&bra;", "["}, {"&ket;", "]"},
      {"&quot;", "\""}, {"&apos;", "'"}, {"&#91;", "["},  {"&#93;", "]"},  {"&amp;", "&"}};
  for (const auto& [from, to] : kEscapes) ReplaceAll(&text, from, to);
  return text;
}

}  // namespace

std::string MosesDetokenize(std::string_view tokenized, std::string_view language) {
  const std::string text = Unescaped(tokenized);
  const std::vector<std::string_view> tokens = SplitOnWhitespace(text);
  std::map<std::string, int> quotes;
  std::string out, space = " ";
  const auto shift_right = [&](std::string_view token) { out.append(space).append(token), space = ""; };
  const auto shift_left = [&](std::string_view token) { out.append(token), space = " "; };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view token = tokens[i];
    const std::vector<uint32_t> points = CodePoints(token);
    if (IsCjk(points.front()) && language != "ko") {
      const bool after_cjk = i > 0 && IsCjk(CodePoints(tokens[i - 1]).back());
      out.append(after_cjk ? "" : space).append(token);
      space = " ";
    } else if (AllOf(token, U"([{¿¡", IsCurrency)) {
      shift_right(token);
    } else if (AllOf(token, U",.?!:;\\%}])")) {
      shift_left(token);
    } else if (language == "en" && i > 0 && points.size() > 1 && points[0] == '\'' && IsAlphabetic(points[1])) {
      shift_left(token);  // a contraction: "It 's"
    } else if (AllOf(token, U"'\"„“`")) {
      const std::string normal = AllOf(token, U"„“”") ? "\"" : std::string(token);
      if (quotes[normal] % 2 == 0) {
        if (language == "en" && token == "'" && i > 0 && tokens[i - 1].ends_with('s')) {
          shift_left(token);  // a possessive: "the Jones ' house"
          continue;
        }
        shift_right(token);  // an opening quote
      } else {
        shift_left(token);  // a closing one
      }
      ++quotes[normal];
    } else {
      out.append(space).append(token);
      space = " ";
    }
  }
  std::string joined;  // one space for any run, none at the ends
  for (const char c : out) {
    if (c != ' ' || (!joined.empty() && joined.back() != ' ')) joined.push_back(c);
  }
  return std::string(TrimTrailingWhitespace(joined));
}

}  // namespace ergobench
