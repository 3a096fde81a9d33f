// BLEU on any bytes (a model's output is whatever it decodes to): a hypothesis and a reference
// cut from the input at its first newline. Neither crashes nor loops; the score is within
// 0 to 100; and a segment of at least four tokens scores 100 against itself. Moses'
// detokenizer, which WMT16 text goes through first, leaves no run of spaces and none at the ends.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "runner/metrics/bleu.h"
#include "runner/metrics/moses_detokenizer.h"
#include "runner/metrics/tokenizer_13a.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t cut = std::min(input.find('\n'), input.size());
  const std::string hypothesis = input.substr(0, cut);
  const std::string reference = cut < input.size() ? input.substr(cut + 1) : "";
  for (const bool lowercase : {false, true}) {
    ergobench::BleuOptions options;
    options.lowercase = lowercase;
    auto score = ergobench::CorpusBleu({hypothesis}, {{reference}}, options);
    if (!score.ok() || !(score->score >= 0 && score->score <= 100 + 1e-9)) std::abort();
  }
  auto self = ergobench::CorpusBleu({hypothesis}, {{hypothesis}});
  const size_t tokens = ergobench::SplitOnWhitespace(ergobench::Tokenize13a(
      ergobench::TrimTrailingWhitespace(hypothesis))).size();
  if (!self.ok() || (tokens >= 4 && std::fabs(self->score - 100) > 1e-9)) std::abort();
  for (const char* language : {"en", "de"}) {
    const std::string text = ergobench::MosesDetokenize(hypothesis, language);
    if (text.find("  ") != std::string::npos || text.starts_with(' ') || text.ends_with(' ')) std::abort();
  }
  return 0;
}
