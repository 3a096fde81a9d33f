// Moses' detokenizer (mosesdecoder's scripts/tokenizer/detokenizer.perl, as sacremoses ports it)
// for the languages of MLBench's translation tasks: BLEU as sacreBLEU computes it wants
// detokenized text, and MLBench's WMT16 archive of task 4a is Moses-tokenized ("@-@" for a
// split hyphen, "&apos;" for an apostrophe, punctuation apart). The language-independent rules
// and English's ("en": a contraction such as "'s" joins the word before it, as does a
// possessive "'" after an "s"); other languages get the language-independent ones. Unicode's
// currency symbols and alphabetic characters come from ICU (ASCII's where the build has none).
// Nothing here depends on torch.
#pragma once

#include <string>
#include <string_view>

namespace ergobench {

// Tokens separated by spaces, detokenized: XML escapes undone, punctuation and quotes joined to
// their words, CJK characters joined, runs of spaces made one, the ends trimmed.
std::string MosesDetokenize(std::string_view tokenized, std::string_view language);

}  // namespace ergobench
