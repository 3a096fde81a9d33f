// A translation vocabulary file and a line of text on any bytes (the dataset is the user's):
// parsing never crashes, and a line of the vocabulary's own tokens decodes to itself.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "runner/data/parallel_corpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t cut = std::min(text.find('\0'), text.size());
  auto vocabulary = ergobench::Vocabulary::Parse(text.substr(0, cut), "fuzz");
  if (!vocabulary.ok()) return 0;
  std::string line;
  for (int32_t id = 4; id < vocabulary->size() && id < 64; ++id) {
    const std::string_view token = vocabulary->Token(id);
    if (token.size() >= 2 && token.substr(token.size() - 2) == "@@") continue;  // joins, by design
    line += (line.empty() ? "" : " ") + std::string(token);
  }
  if (vocabulary->Decode(vocabulary->Encode(line)) != line) std::abort();
  vocabulary->Decode(vocabulary->Encode(text.substr(std::min(cut + 1, text.size()))));
  return 0;
}
