// MLBench's WMT17 archive on any bytes (the dataset is the user's): a fairseq IndexedDataset's
// index and data, then a dictionary, then subtokens to decode, split by the first two NUL-free
// "\n--\n" separators. Nothing crashes or reads past its input; an index that parses has
// offsets that end at the token count; a corpus that reads has each sentence's ids inside the
// vocabulary.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runner/data/indexed_dataset.h"
#include "runner/data/subtokens.h"
#include "runner/data/wmt17_corpus.h"

namespace {

// The next part of `rest` up to a separator (all of it where there is none).
std::string_view Next(std::string_view* rest) {
  constexpr std::string_view kSeparator = "\n--\n";
  const size_t at = rest->find(kSeparator);
  const std::string_view part = rest->substr(0, at);
  *rest = at == std::string_view::npos ? std::string_view() : rest->substr(at + kSeparator.size());
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(bytes), size);
  const std::string_view index = Next(&rest), data = Next(&rest), dictionary = Next(&rest);
  ergobench::IndexedDatasetLimits limits;
  limits.max_items = 1 << 16;
  limits.max_tokens = 1 << 20;
  const auto side = ergobench::ParseIndexedDataset(index, data, "fuzz", limits);
  if (side.ok() && side->offsets.back() != static_cast<int64_t>(side->tokens.size())) std::abort();
  ergobench::DecodeSubtokens(rest);
  const auto vocabulary = ergobench::ParseWmt17Dictionary(dictionary, "fuzz", 64);  // small: fast, and ids past it reachable
  if (!vocabulary.ok() || !side.ok()) return 0;
  const auto corpus = ergobench::Wmt17CorpusOf(*side, *side, {"fuzz.en", "fuzz.de", 0, limits}, *vocabulary);
  if (!corpus.ok()) return 0;
  for (const int32_t id : corpus->source.tokens) {
    if (id < 4 || id >= vocabulary->size()) std::abort();
  }
  for (int64_t i = 0; i < corpus->size() && i < 16; ++i) vocabulary->Decode(corpus->target.Sentence(i));
  return 0;
}
