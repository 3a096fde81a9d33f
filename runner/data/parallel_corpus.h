// The translation tasks' data as MLBench's WMT16 archive lays it out, and as the synthetic
// language pair is written (synthetic_translation.h): `<prefix>.<lang>` files, one sentence a
// line, tokens separated by spaces (BPE pieces end in "@@" where a word goes on), and a shared
// vocabulary file of one token a line. Ids are GNMT's: 0 <pad>, 1 <unk>, 2 <s>, 3 <\s> (as
// MLBench writes it), then the vocabulary in file order. Nothing here depends on torch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace ergobench {

class Vocabulary {
 public:
  static constexpr int32_t kPad = 0;
  static constexpr int32_t kUnknown = 1;
  static constexpr int32_t kBegin = 2;
  static constexpr int32_t kEnd = 3;
  static constexpr int64_t kMaxTokens = 1 << 22;  // 4M: past any subword vocabulary
  static constexpr size_t kMaxTokenBytes = 1024;

  // One token a line (trailing whitespace ignored); blank lines, a token twice, one of the
  // special tokens, a token with a space, or more than kMaxTokens are errors naming `where`
  // and the line.
  static StatusOr<Vocabulary> Parse(std::string_view text, const std::string& where);
  static StatusOr<Vocabulary> FromFile(const std::string& path);
  // The words given, in order (the synthetic pair's), after the special tokens.
  static StatusOr<Vocabulary> FromWords(const std::vector<std::string>& words);
  // tensor2tensor's subtokens (subtokens.h), in order after the special tokens: they may hold
  // spaces, and Decode joins them as tensor2tensor does, not as BPE pieces. Refused where this
  // build cannot decode them.
  static StatusOr<Vocabulary> FromSubtokens(const std::vector<std::string>& subtokens, const std::string& where);

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  int32_t Id(std::string_view token) const;  // kUnknown where absent
  std::string_view Token(int32_t id) const;  // "<unk>" where out of range

  // A tokenized line's ids, without <s> and <\s>.
  std::vector<int32_t> Encode(std::string_view line) const;
  // Text of ids: up to the first <\s>, <s> and <pad> left out, BPE pieces joined ("@@ "
  // removed), as MLBench detokenizes before BLEU (less Moses' detokenizer); or subtokens
  // decoded as tensor2tensor decodes them.
  std::string Decode(const std::vector<int32_t>& ids) const;

 private:
  Vocabulary();
  Status Add(std::string_view token, const std::string& where, bool spaces = false);

  bool subtokens_ = false;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
};

// Sentence pairs as ids, each sentence stored flat: sentence i of a side is
// tokens[offsets[i], offsets[i + 1]).
struct ParallelSide {
  std::vector<int32_t> tokens;
  std::vector<int64_t> offsets = {0};
  int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
  std::vector<int32_t> Sentence(int64_t i) const {
    return {tokens.begin() + offsets[static_cast<size_t>(i)], tokens.begin() + offsets[static_cast<size_t>(i) + 1]};
  }
};

struct ParallelCorpus {
  ParallelSide source;
  ParallelSide target;
  int64_t skipped = 0;  // pairs with a side longer than max_length

  // Adds a pair, or counts it skipped where a side has more than `max_length` tokens (0: any).
  void Add(const std::vector<int32_t>& source_ids, const std::vector<int32_t>& target_ids, int64_t max_length);
  int64_t size() const { return source.size(); }
};

struct ParallelCorpusOptions {
  std::string source_path;
  std::string target_path;
  int64_t max_length = 0;     // tokens a side may have (0: any); longer pairs are skipped, as MLBench filters
  int64_t max_pairs = 0;      // read at most this many (0: all)
  size_t max_line_bytes = 1 << 20;
};

// Both files line by line; a different number of lines, a line longer than max_line_bytes, or
// a file that cannot be read is an error naming the file (and line).
StatusOr<ParallelCorpus> ReadParallelCorpus(const ParallelCorpusOptions& options, const Vocabulary& vocabulary);

}  // namespace ergobench
