#include "runner/data/text_corpus.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runner/data/gz_file.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsJsonLines(const std::string& path, const std::string& format) {
  if (format != "auto") return format == "jsonl";
  std::string_view name = path;
  if (EndsWith(name, ".gz")) name.remove_suffix(3);
  return EndsWith(name, ".jsonl") || EndsWith(name, ".json");
}

StatusOr<std::vector<std::string>> CorpusFiles(const std::string& path) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) return std::vector<std::string>{path};
  if (!fs::is_directory(path, error)) return Status::NotFound(path + ": no such file or folder");
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(path, error), end; it != end && !error; it.increment(error)) {
    if (it->is_regular_file(error)) files.push_back(it->path().string());
  }
  if (error) return Status::InvalidArgument(path + ": " + error.message());
  if (files.empty()) return Status::NotFound(path + ": the folder holds no files");
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

StatusOr<CorpusTokens> LoadCorpus(const CorpusOptions& options, BpeTokenizer& tokenizer) {
  if (options.format != "auto" && options.format != "text" && options.format != "jsonl") {
    return Status::InvalidArgument("spec.hyperparameters.corpusFormat: expected auto, text or jsonl, got \"" +
                                   options.format + "\"");
  }
  ASSIGN_OR_RETURN(const std::vector<std::string> files, CorpusFiles(options.path));
  CorpusTokens out;
  const auto full = [&] { return options.max_tokens > 0 && static_cast<int64_t>(out.tokens.size()) >= options.max_tokens; };
  const auto add_document = [&](std::string_view text) {
    if (text.empty()) return;
    const std::vector<int32_t> ids = tokenizer.Encode(text);
    out.tokens.insert(out.tokens.end(), ids.begin(), ids.end());
    out.tokens.push_back(tokenizer.end_of_text());
    ++out.documents;
  };
  for (const std::string& file : files) {
    if (full()) break;
    ASSIGN_OR_RETURN(const std::string content, ReadMaybeGzipped(file));
    ++out.files;
    out.bytes += static_cast<int64_t>(content.size());
    if (!IsJsonLines(file, options.format)) {
      add_document(content);
      continue;
    }
    size_t start = 0;
    for (int64_t line_number = 1; start < content.size() && !full(); ++line_number) {
      size_t end = content.find('\n', start);
      if (end == std::string::npos) end = content.size();
      const std::string_view line = std::string_view(content).substr(start, end - start);
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      const nlohmann::json object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      const std::string where = file + ":" + std::to_string(line_number);
      if (!object.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
      const auto text = object.find(options.text_field);
      if (text == object.end() || !text->is_string()) {
        return Status::InvalidArgument(where + ": no string field \"" + options.text_field + "\"");
      }
      add_document(text->get_ref<const std::string&>());
    }
  }
  if (options.max_tokens > 0 && static_cast<int64_t>(out.tokens.size()) > options.max_tokens) {
    out.tokens.resize(static_cast<size_t>(options.max_tokens));
  }
  if (out.tokens.empty()) return Status::InvalidArgument(options.path + ": the corpus holds no text");
  return out;
}

int64_t PackedSequenceCount(int64_t token_count, int64_t sequence_length) {
  if (sequence_length <= 0 || token_count <= sequence_length) return 0;
  return (token_count - 1) / sequence_length;
}

}  // namespace ergobench
