// GPT-2's byte-level BPE tokenizer: reads OpenAI's vocab.json and merges.txt, splits text
// with GPT-2's pre-tokenizer, merges by rank, and decodes back to the exact bytes. Without
// files it is byte level: one token per byte and <|endoftext|> as 256. The LM task encodes
// its corpus with it; nothing here depends on torch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace ergobench {

// GPT-2's pre-tokenizer, the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// as a scanner. ASCII is classified exactly; other code points as glibc's C.UTF-8 locale
// classifies them (letters, digits, spaces). Bytes that are not UTF-8 count as symbols.
std::vector<std::string_view> PreTokenize(std::string_view text);

class BpeTokenizer {
 public:
  static BpeTokenizer ByteLevel();
  // `vocab_json`: {"token": id, ...} over GPT-2's byte-to-unicode alphabet; every one of the
  // 256 single-byte tokens must be in it. `merges_txt`: "a b" per line by priority, an
  // optional "#version" first line.
  static StatusOr<BpeTokenizer> FromFiles(const std::string& vocab_path, const std::string& merges_path);
  static StatusOr<BpeTokenizer> Parse(std::string_view vocab_json, std::string_view merges_txt,
                                      const std::string& where = "tokenizer");

  std::vector<int32_t> Encode(std::string_view text);
  // Bytes of the tokens, concatenated. Unknown ids are an error.
  StatusOr<std::string> Decode(const std::vector<int32_t>& ids) const;

  int32_t end_of_text() const { return end_of_text_; }
  int64_t vocab_size() const { return static_cast<int64_t>(id_to_token_.size()); }
  bool byte_level() const { return ranks_.empty(); }

 private:
  BpeTokenizer() = default;
  std::vector<int32_t> EncodePiece(std::string_view piece);

  std::unordered_map<std::string, int32_t> token_to_id_;
  std::vector<std::string> id_to_token_;
  std::unordered_map<std::string, int> ranks_;  // "left right" -> merge priority
  std::unordered_map<std::string, std::vector<int32_t>> cache_;
  int32_t end_of_text_ = -1;
};

}  // namespace ergobench
