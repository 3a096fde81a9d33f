// The LM task's data: documents from plain-text files or JSON Lines ({"text": ...} per line,
// as OSCAR ships), optionally gzipped, tokenized and joined by <|endoftext|> into one
// token stream, which is cut into fixed-length training sequences. Ranks shard sequences
// with shard.h, so their shards are disjoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "runner/data/bpe_tokenizer.h"

namespace ergobench {

struct CorpusOptions {
  // A file, or a folder: every regular file under it, in name order.
  std::string path;
  // "text": a file is one document. "jsonl": one JSON object per line, its `text_field` a
  // document. "auto": jsonl for *.jsonl and *.json (also .gz), text for the rest.
  std::string format = "auto";
  std::string text_field = "text";
  // Stop once this many tokens are read (0: read everything).
  int64_t max_tokens = 0;
};

struct CorpusTokens {
  std::vector<int32_t> tokens;
  int64_t documents = 0;
  int64_t files = 0;
  int64_t bytes = 0;
};

StatusOr<CorpusTokens> LoadCorpus(const CorpusOptions& options, BpeTokenizer& tokenizer);

// Training sequences are windows of sequence_length + 1 tokens (the inputs, and the targets
// one token later) starting every sequence_length tokens: window i is
// tokens[i·S, i·S + S + 1). This many fit in `token_count` tokens.
int64_t PackedSequenceCount(int64_t token_count, int64_t sequence_length);

}  // namespace ergobench
