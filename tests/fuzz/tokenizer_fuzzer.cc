// The byte-level BPE tokenizer on any bytes (a corpus is the user's): encoding never fails,
// and decoding gives the bytes back.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runner/data/bpe_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ergobench::BpeTokenizer tokenizer = ergobench::BpeTokenizer::ByteLevel();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto decoded = tokenizer.Decode(tokenizer.Encode(text));
  if (!decoded.ok() || *decoded != text) std::abort();
  return 0;
}
