#include "runner/data/bpe_tokenizer.h"

#include <locale.h>
#include <wctype.h>

#include <array>
#include <climits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "runner/data/gz_file.h"

namespace ergobench {
namespace {

constexpr char kEndOfText[] = "<|endoftext|>";

std::string Utf8(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// The code point at `pos` and its length in bytes; a byte that does not start valid UTF-8
// is returned as itself with length 1 and `valid` false.
// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 are
// shifted to U+0100 and up, so that every token is printable text (a space is "Ġ").
struct ByteAlphabet {
  std::array<std::string, 256> symbol;
  std::array<int, 324> byte_of{};  // code point -> byte, -1 where none

  ByteAlphabet() {
    byte_of.fill(-1);
    int shifted = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + shifted++);
      symbol[static_cast<size_t>(b)] = Utf8(cp);
      byte_of[cp] = b;
    }
  }
};

const ByteAlphabet& Alphabet() {
  static const ByteAlphabet alphabet;
  return alphabet;
}

enum class CharClass { kLetter, kNumber, kSpace, kOther };

CharClass Classify(const Utf8Char& cp) {
  if (!cp.valid) return CharClass::kOther;
  if (cp.code_point < 0x80) {
    const int c = static_cast<int>(cp.code_point);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return CharClass::kLetter;
    if (c >= '0' && c <= '9') return CharClass::kNumber;
    if (c == ' ' || (c >= '\t' && c <= '\r')) return CharClass::kSpace;
    return CharClass::kOther;
  }
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  if (utf8 == static_cast<locale_t>(nullptr)) return CharClass::kLetter;
  const auto wc = static_cast<wint_t>(cp.code_point);
  if (iswspace_l(wc, utf8)) return CharClass::kSpace;
  if (iswdigit_l(wc, utf8)) return CharClass::kNumber;
  if (iswalpha_l(wc, utf8)) return CharClass::kLetter;
  return CharClass::kOther;
}

// Where the run of code points of class `cls` starting at `pos` ends.
size_t RunEnd(std::string_view text, size_t pos, CharClass cls) {
  while (pos < text.size()) {
    const Utf8Char cp = DecodeUtf8At(text, pos);
    if (Classify(cp) != cls) break;
    pos += cp.length;
  }
  return pos;
}

}  // namespace

std::vector<std::string_view> PreTokenize(std::string_view text) {
  static constexpr std::string_view kContractions[] = {"s", "t", "re", "ve", "m", "ll", "d"};
  std::vector<std::string_view> pieces;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    if (text[pos] == '\'') {
      size_t matched = 0;
      for (std::string_view c : kContractions) {
        if (text.substr(pos + 1, c.size()) == c) {
          matched = c.size();
          break;
        }
      }
      if (matched > 0) {
        pieces.push_back(text.substr(pos, matched + 1));
        pos += matched + 1;
        continue;
      }
    }
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": one leading space joins the run after it.
    size_t run = pos;
    if (text[pos] == ' ' && pos + 1 < text.size() && Classify(DecodeUtf8At(text, pos + 1)) != CharClass::kSpace) run = pos + 1;
    const CharClass cls = Classify(DecodeUtf8At(text, run));
    if (cls != CharClass::kSpace) {
      pos = RunEnd(text, run, cls);
    } else {
      // "\s+(?!\S)|\s+": a run of spaces, less its last one when a word follows, which then
      // goes with the word (" word") or stands alone.
      size_t last = pos;
      size_t end = pos;
      while (end < text.size()) {
        const Utf8Char cp = DecodeUtf8At(text, end);
        if (Classify(cp) != CharClass::kSpace) break;
        last = end;
        end += cp.length;
      }
      pos = (end < text.size() && last > start) ? last : end;
    }
    pieces.push_back(text.substr(start, pos - start));
  }
  return pieces;
}

BpeTokenizer BpeTokenizer::ByteLevel() {
  BpeTokenizer t;
  for (int b = 0; b < 256; ++b) {
    t.token_to_id_[Alphabet().symbol[static_cast<size_t>(b)]] = b;
    t.id_to_token_.push_back(Alphabet().symbol[static_cast<size_t>(b)]);
  }
  t.end_of_text_ = 256;
  t.token_to_id_[kEndOfText] = 256;
  t.id_to_token_.push_back(kEndOfText);
  return t;
}

StatusOr<BpeTokenizer> BpeTokenizer::FromFiles(const std::string& vocab_path, const std::string& merges_path) {
  ASSIGN_OR_RETURN(const std::string vocab, ReadMaybeGzipped(vocab_path));
  ASSIGN_OR_RETURN(const std::string merges, ReadMaybeGzipped(merges_path));
  return Parse(vocab, merges, vocab_path + " and " + merges_path);
}

StatusOr<BpeTokenizer> BpeTokenizer::Parse(std::string_view vocab_json, std::string_view merges_txt,
                                           const std::string& where) {
  BpeTokenizer t;
  const nlohmann::json vocab = nlohmann::json::parse(vocab_json, nullptr, /*allow_exceptions=*/false);
  if (!vocab.is_object() || vocab.empty()) {
    return Status::InvalidArgument(where + ": the vocabulary is not a JSON object of token to id");
  }
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= static_cast<int64_t>(vocab.size())) {
      return Status::InvalidArgument(where + ": token " + nlohmann::json(token).dump() + " has id " + id.dump() +
                                     "; ids must be 0 .. " + std::to_string(vocab.size() - 1));
    }
    t.token_to_id_[token] = id.get<int32_t>();
  }
  t.id_to_token_.assign(vocab.size(), "");
  for (const auto& [token, id] : t.token_to_id_) {
    if (!t.id_to_token_[static_cast<size_t>(id)].empty()) {
      return Status::InvalidArgument(where + ": id " + std::to_string(id) + " is given to two tokens");
    }
    t.id_to_token_[static_cast<size_t>(id)] = token;
  }
  for (int b = 0; b < 256; ++b) {
    if (!t.token_to_id_.count(Alphabet().symbol[static_cast<size_t>(b)])) {
      return Status::InvalidArgument(where + ": the vocabulary lacks the token of byte " + std::to_string(b) +
                                     ", so some text could not be encoded");
    }
  }
  const auto eot = t.token_to_id_.find(kEndOfText);
  if (eot == t.token_to_id_.end()) return Status::InvalidArgument(where + ": the vocabulary has no <|endoftext|>");
  t.end_of_text_ = eot->second;

  std::istringstream lines{std::string(merges_txt)};
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (line_number == 1 && line.rfind("#version", 0) == 0)) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      return Status::InvalidArgument(where + ": merges line " + std::to_string(line_number) +
                                     ": expected two symbols separated by one space, got \"" + line + "\"");
    }
    t.ranks_.emplace(line, static_cast<int>(t.ranks_.size()));
  }
  return t;
}

std::vector<int32_t> BpeTokenizer::EncodePiece(std::string_view piece) {
  if (byte_level()) {
    std::vector<int32_t> ids;
    for (const char c : piece) ids.push_back(static_cast<unsigned char>(c));
    return ids;
  }
  const std::string key(piece);
  if (const auto cached = cache_.find(key); cached != cache_.end()) return cached->second;

  std::vector<std::string> symbols;
  for (const char c : piece) symbols.push_back(Alphabet().symbol[static_cast<unsigned char>(c)]);
  while (symbols.size() > 1) {
    int best = INT_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto rank = ranks_.find(symbols[i] + " " + symbols[i + 1]);
      if (rank != ranks_.end() && rank->second < best) {
        best = rank->second;
        at = i;
      }
    }
    if (best == INT_MAX) break;
    const std::string left = symbols[at];
    const std::string right = symbols[at + 1];
    std::vector<std::string> merged;
    for (size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(left + right);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  std::vector<int32_t> ids;
  for (const std::string& symbol : symbols) {
    const auto id = token_to_id_.find(symbol);
    if (id != token_to_id_.end()) {
      ids.push_back(id->second);
      continue;
    }
    // A merge whose result is not in the vocabulary: its bytes, which all are.
    for (size_t pos = 0; pos < symbol.size();) {
      const Utf8Char cp = DecodeUtf8At(symbol, pos);
      ids.push_back(token_to_id_.at(Alphabet().symbol[static_cast<size_t>(Alphabet().byte_of[cp.code_point])]));
      pos += cp.length;
    }
  }
  cache_.emplace(key, ids);
  return ids;
}

std::vector<int32_t> BpeTokenizer::Encode(std::string_view text) {
  std::vector<int32_t> ids;
  for (std::string_view piece : PreTokenize(text)) {
    const std::vector<int32_t> piece_ids = EncodePiece(piece);
    ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
  }
  return ids;
}

StatusOr<std::string> BpeTokenizer::Decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (const int32_t id : ids) {
    if (id < 0 || id >= vocab_size()) {
      return Status::OutOfRange("token id " + std::to_string(id) + " is not in the vocabulary of " +
                                std::to_string(vocab_size()));
    }
    const std::string& token = id_to_token_[static_cast<size_t>(id)];
    std::string bytes;
    bool special = false;
    for (size_t pos = 0; pos < token.size() && !special;) {
      const Utf8Char cp = DecodeUtf8At(token, pos);
      special = !cp.valid || cp.code_point >= Alphabet().byte_of.size() || Alphabet().byte_of[cp.code_point] < 0;
      if (!special) bytes += static_cast<char>(Alphabet().byte_of[cp.code_point]);
      pos += cp.length;
    }
    out += special ? token : bytes;  // <|endoftext|> and its kind stand for themselves
  }
  return out;
}

}  // namespace ergobench
