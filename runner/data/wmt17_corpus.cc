#include "runner/data/wmt17_corpus.h"

#include <algorithm>
#include <vector>

#include "api/v1alpha1/load.h"
#include "runner/data/data_bytes.h"

namespace ergobench {
namespace {

constexpr int32_t kFairseqPad = 1, kFairseqEos = 2, kFairseqFirstWord = 3;

// A sentence of fairseq's ids as ergobench's, its <EOS> dropped (MakeBatch adds <\s>).
StatusOr<std::vector<int32_t>> SentenceIds(const ParallelSide& side, int64_t item, const Vocabulary& vocabulary,
                                           const std::string& where) {
  const int64_t begin = side.offsets[static_cast<size_t>(item)], end = side.offsets[static_cast<size_t>(item) + 1];
  const std::string at = where + ": sentence " + std::to_string(item);
  if (end == begin || side.tokens[static_cast<size_t>(end - 1)] != kFairseqEos) {
    return Status::InvalidArgument(at + " does not end in <EOS>");
  }
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(end - begin - 1));
  for (int64_t i = begin; i + 1 < end; ++i) {
    const int32_t id = side.tokens[static_cast<size_t>(i)];
    if (id < kFairseqFirstWord) return Status::InvalidArgument(at + " holds the special id " + std::to_string(id));
    if (id + 1 >= vocabulary.size()) {
      return Status::InvalidArgument(at + " holds id " + std::to_string(id) + ", past the dictionary's last (" +
                                     std::to_string(vocabulary.size() - 2) + ")");
    }
    ids.push_back(id + 1);
  }
  return ids;
}

}  // namespace

StatusOr<Vocabulary> ParseWmt17Dictionary(std::string_view text, const std::string& where, int64_t pad_to) {
  std::vector<std::string> subtokens;
  int64_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    ++number;
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    const std::string at = where + ":" + std::to_string(number);
    if (line.size() < 3 || line.front() != '\'' || line.back() != '\'') {
      return Status::InvalidArgument(at + ": not a quoted subtoken such as 'the_'");
    }
    const std::string_view subtoken = line.substr(1, line.size() - 2);
    if (number <= 2) {
      const std::string_view reserved = number == 1 ? "<pad>_" : "<EOS>_";
      if (subtoken != reserved) return Status::InvalidArgument(at + ": '" + std::string(reserved) + "' must come here");
      continue;
    }
    subtokens.emplace_back(subtoken);
  }
  // MLBench's Dictionary pads itself with "<pad000i>" to its embedding's size.
  for (int64_t i = 0; 4 + static_cast<int64_t>(subtokens.size()) < pad_to; ++i) {
    subtokens.push_back("<pad000" + std::to_string(i) + ">");
  }
  return Vocabulary::FromSubtokens(subtokens, where);
}

StatusOr<Vocabulary> ReadWmt17Dictionary(const std::string& path) {
  StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return Status::NotFound(path + ": cannot be read");
  CountDataBytes(static_cast<int64_t>(text->size()));
  return ParseWmt17Dictionary(*text, path);
}

StatusOr<ParallelCorpus> Wmt17CorpusOf(const ParallelSide& source, const ParallelSide& target,
                                       const Wmt17CorpusOptions& options, const Vocabulary& vocabulary) {
  if (source.size() != target.size()) {
    return Status::InvalidArgument(options.source_prefix + " holds " + std::to_string(source.size()) + " sentences, " +
                                   options.target_prefix + " " + std::to_string(target.size()) +
                                   ": a parallel corpus has one on each side for each pair");
  }
  ParallelCorpus corpus;
  for (int64_t i = 0; i < source.size(); ++i) {
    ASSIGN_OR_RETURN(const std::vector<int32_t> source_ids, SentenceIds(source, i, vocabulary, options.source_prefix));
    ASSIGN_OR_RETURN(const std::vector<int32_t> target_ids, SentenceIds(target, i, vocabulary, options.target_prefix));
    corpus.Add(source_ids, target_ids, options.max_length);
  }
  return corpus;
}

StatusOr<ParallelCorpus> ReadWmt17Corpus(const Wmt17CorpusOptions& options, const Vocabulary& vocabulary) {
  ASSIGN_OR_RETURN(const ParallelSide source, ReadIndexedDataset(options.source_prefix, options.limits));
  ASSIGN_OR_RETURN(const ParallelSide target, ReadIndexedDataset(options.target_prefix, options.limits));
  return Wmt17CorpusOf(source, target, options, vocabulary);
}

}  // namespace ergobench
