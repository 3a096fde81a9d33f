// sacreBLEU's default tokenizer, "13a" (that of WMT's mteval-v13a.pl). BLEU scores are only
// comparable when every system's output and reference went through the same tokenizer (Post,
// "A Call for Clarity in Reporting BLEU Scores", WMT 2018); this one is what sacreBLEU, and so
// MLPerf and MLBench, report by default.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ergobench {

// `line` tokenized as sacreBLEU 2.x's Tokenizer13a: "<skipped>" and "-\n" dropped, newlines as
// spaces, &quot; &amp; &lt; &gt; unescaped; ASCII symbols other than ' , - . set apart;
// periods and commas set apart unless between digits; a dash after a digit set apart. The
// tokens come back joined by single spaces. Any bytes are taken: those that are not UTF-8 are
// kept as they are, and count as neither digits nor spaces.
std::string Tokenize13a(std::string_view line);

// Python's str.split(): the words of `text` between runs of Unicode whitespace (U+0009-000D,
// U+001C-0020, U+0085, U+00A0, U+1680, U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000).
std::vector<std::string_view> SplitOnWhitespace(std::string_view text);

// Python's str.rstrip(): `text` less the Unicode whitespace it ends with.
std::string_view TrimTrailingWhitespace(std::string_view text);

}  // namespace ergobench
