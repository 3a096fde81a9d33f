// MLBench's WMT17 archive of task 4b as it is published (mlbench-core's wmt17_dataset.py, from
// fairseq and MLPerf's reference): tensor2tensor subtokens (subtokens.h) in a dictionary file of
// one quoted subtoken a line, '<pad>_' and '<EOS>_' first; each split's sides as fairseq
// IndexedDatasets (indexed_dataset.h) named <split>.<source>-<target>.<language>, sentences of
// fairseq's ids (0 unused, 1 <pad>, 2 <EOS> ending each sentence, then the dictionary's third
// line on). ergobench's ids are those plus one (its <s> and <\s> take 2 and 3), and, as
// MLBench's, the vocabulary is padded to 33,712 tokens, the embedding's size there. Nothing here
// depends on torch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "runner/data/indexed_dataset.h"
#include "runner/data/parallel_corpus.h"

namespace ergobench {

inline constexpr int64_t kWmt17VocabularySize = 33712;

// The dictionary's text, padded to `pad_to` tokens: a line that is not one quoted subtoken, or
// first lines other than '<pad>_' and '<EOS>_', are errors naming `where` and the line.
StatusOr<Vocabulary> ParseWmt17Dictionary(std::string_view text, const std::string& where,
                                          int64_t pad_to = kWmt17VocabularySize);
StatusOr<Vocabulary> ReadWmt17Dictionary(const std::string& path);

struct Wmt17CorpusOptions {
  std::string source_prefix;  // <folder>/<split>.<source>-<target>.<source>, without .idx/.bin
  std::string target_prefix;
  int64_t max_length = 0;  // tokens a side may have (0: any); longer pairs are skipped
  IndexedDatasetLimits limits;
};

// Both sides, in ergobench's ids: sides of different lengths, a sentence without its <EOS> or
// with a special id inside, or an id past the vocabulary are errors naming the file and item.
StatusOr<ParallelCorpus> ReadWmt17Corpus(const Wmt17CorpusOptions& options, const Vocabulary& vocabulary);

// The same from sides already read (fairseq's ids), for tests and the fuzzer.
StatusOr<ParallelCorpus> Wmt17CorpusOf(const ParallelSide& source, const ParallelSide& target,
                                       const Wmt17CorpusOptions& options, const Vocabulary& vocabulary);

}  // namespace ergobench
