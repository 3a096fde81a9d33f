#include "runner/data/parallel_corpus.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/utf8.h"
#include "runner/data/data_bytes.h"
#include "runner/data/subtokens.h"
#include "runner/metrics/tokenizer_13a.h"

namespace ergobench {
namespace {

constexpr std::string_view kSpecial[] = {"<pad>", "<unk>", "<s>", "<\\s>"};

std::string Shown(std::string_view text) { return "'" + AbbreviateUtf8(text, 40) + "'"; }

// Reads one line of at most `max_bytes` into `line`; false at the end of the file.
StatusOr<bool> ReadLine(std::istream& in, size_t max_bytes, const std::string& where, int64_t number,
                        std::string* line) {
  line->clear();
  char c;
  bool any = false;
  while (in.get(c)) {
    any = true;
    if (c == '\n') return true;
    if (line->size() == max_bytes) {
      return Status::InvalidArgument(where + ":" + std::to_string(number) + ": a line longer than " +
                                     std::to_string(max_bytes) + " bytes");
    }
    line->push_back(c);
  }
  if (in.bad()) return Status::Unavailable(where + ": read failed");
  return any;
}

}  // namespace

Vocabulary::Vocabulary() {
  for (const std::string_view token : kSpecial) {
    ids_.emplace(std::string(token), static_cast<int32_t>(tokens_.size()));
    tokens_.emplace_back(token);
  }
}

Status Vocabulary::Add(std::string_view token, const std::string& where, bool spaces) {
  if (token.empty()) return Status::InvalidArgument(where + ": a blank token");
  if (token.size() > kMaxTokenBytes) {
    return Status::InvalidArgument(where + ": a token of " + std::to_string(token.size()) + " bytes (at most " +
                                   std::to_string(kMaxTokenBytes) + ")");
  }
  if (const std::vector<std::string_view> words = SplitOnWhitespace(token);
      !spaces && (words.size() != 1 || words[0] != token)) {
    return Status::InvalidArgument(where + ": " + Shown(token) + " holds whitespace");
  }
  if (size() >= kMaxTokens) return Status::InvalidArgument(where + ": more than " + std::to_string(kMaxTokens) + " tokens");
  const auto [it, added] = ids_.emplace(std::string(token), static_cast<int32_t>(tokens_.size()));
  if (!added) {
    return Status::InvalidArgument(where + ": " + Shown(token) + (it->second < 4 ? " is a special token, given by ergobench"
                                                                                 : " again (id " + std::to_string(it->second) + ")"));
  }
  tokens_.emplace_back(token);
  return Status::Ok();
}

StatusOr<Vocabulary> Vocabulary::Parse(std::string_view text, const std::string& where) {
  Vocabulary vocabulary;
  int64_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    ++number;
    RETURN_IF_ERROR(vocabulary.Add(TrimTrailingWhitespace(text.substr(start, end - start)),
                                   where + ":" + std::to_string(number)));
    start = end + 1;
  }
  if (vocabulary.size() == 4) return Status::InvalidArgument(where + ": no tokens");
  return vocabulary;
}

StatusOr<Vocabulary> Vocabulary::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  CountDataBytes(static_cast<int64_t>(text.str().size()));
  return Parse(text.str(), path);
}

StatusOr<Vocabulary> Vocabulary::FromWords(const std::vector<std::string>& words) {
  Vocabulary vocabulary;
  for (size_t i = 0; i < words.size(); ++i) RETURN_IF_ERROR(vocabulary.Add(words[i], "word " + std::to_string(i + 1)));
  return vocabulary;
}

StatusOr<Vocabulary> Vocabulary::FromSubtokens(const std::vector<std::string>& subtokens, const std::string& where) {
  RETURN_IF_ERROR(CheckSubtokensSupported());
  Vocabulary vocabulary;
  vocabulary.subtokens_ = true;
  for (size_t i = 0; i < subtokens.size(); ++i) {
    RETURN_IF_ERROR(vocabulary.Add(subtokens[i], where + ": subtoken " + std::to_string(i + 1), /*spaces=*/true));
  }
  if (vocabulary.size() == 4) return Status::InvalidArgument(where + ": no subtokens");
  return vocabulary;
}

int32_t Vocabulary::Id(std::string_view token) const {
  const auto it = ids_.find(std::string(token));
  return it == ids_.end() ? kUnknown : it->second;
}

std::string_view Vocabulary::Token(int32_t id) const {
  return id >= 0 && id < size() ? std::string_view(tokens_[static_cast<size_t>(id)]) : kSpecial[kUnknown];
}

std::vector<int32_t> Vocabulary::Encode(std::string_view line) const {
  std::vector<int32_t> ids;
  for (const std::string_view token : SplitOnWhitespace(line)) ids.push_back(Id(token));
  return ids;
}

std::string Vocabulary::Decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (const int32_t id : ids) {
    if (id == kEnd) break;
    if (id == kBegin || id == kPad) continue;
    if (!text.empty() && !subtokens_) text.push_back(' ');
    text.append(Token(id));
  }
  if (subtokens_) return DecodeSubtokens(text);
  // "@@ " joins a piece to the next; a trailing "@@" has nothing to join.
  std::string joined;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "@@ ") == 0) {
      i += 2;
    } else if (i + 2 == text.size() && text.compare(i, 2, "@@") == 0) {
      break;
    } else {
      joined.push_back(text[i]);
    }
  }
  return joined;
}

void ParallelCorpus::Add(const std::vector<int32_t>& source_ids, const std::vector<int32_t>& target_ids,
                         int64_t max_length) {
  const auto longest = static_cast<int64_t>(std::max(source_ids.size(), target_ids.size()));
  if (max_length > 0 && longest > max_length) {
    ++skipped;
    return;
  }
  for (auto [side, ids] : {std::pair{&source, &source_ids}, std::pair{&target, &target_ids}}) {
    side->tokens.insert(side->tokens.end(), ids->begin(), ids->end());
    side->offsets.push_back(static_cast<int64_t>(side->tokens.size()));
  }
}

StatusOr<ParallelCorpus> ReadParallelCorpus(const ParallelCorpusOptions& options, const Vocabulary& vocabulary) {
  std::ifstream source(options.source_path, std::ios::binary), target(options.target_path, std::ios::binary);
  if (!source) return Status::NotFound(options.source_path + ": cannot be read");
  if (!target) return Status::NotFound(options.target_path + ": cannot be read");
  ParallelCorpus corpus;
  std::string source_line, target_line;
  for (int64_t number = 1; options.max_pairs == 0 || corpus.source.size() < options.max_pairs; ++number) {
    ASSIGN_OR_RETURN(const bool more_source, ReadLine(source, options.max_line_bytes, options.source_path, number, &source_line));
    ASSIGN_OR_RETURN(const bool more_target, ReadLine(target, options.max_line_bytes, options.target_path, number, &target_line));
    if (more_source != more_target) {
      return Status::InvalidArgument((more_source ? options.target_path : options.source_path) + " ends at line " +
                                     std::to_string(number - 1) + ", " +
                                     (more_source ? options.source_path : options.target_path) +
                                     " goes on: a parallel corpus has a line on each side for each pair");
    }
    if (!more_source) break;
    CountDataBytes(static_cast<int64_t>(source_line.size() + target_line.size()) + 2);  // and their newlines
    corpus.Add(vocabulary.Encode(source_line), vocabulary.Encode(target_line), options.max_length);
  }
  return corpus;
}

}  // namespace ergobench
