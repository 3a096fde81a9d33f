#include "runner/metrics/bleu.h"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "base/utf8.h"
#include "runner/metrics/tokenizer_13a.h"

namespace ergobench {
namespace {

constexpr int kMaxOrderLimit = 32;

void AppendUtf8(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.append({static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))});
  } else if (c < 0x10000) {
    out.append({static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
                static_cast<char>(0x80 | (c & 0x3F))});
  } else {
    out.append({static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
                static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))});
  }
}

std::string Lowercase(std::string_view text) {
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char c = DecodeUtf8At(text, pos);
    if (!c.valid || c.code_point < 0x80 || utf8 == static_cast<locale_t>(nullptr)) {
      const char byte = text[pos];
      out.push_back(byte >= 'A' && byte <= 'Z' ? static_cast<char>(byte - 'A' + 'a') : byte);
    } else {
      AppendUtf8(static_cast<uint32_t>(towlower_l(static_cast<wint_t>(c.code_point), utf8)), out);
    }
    pos += c.length;
  }
  return out;
}

// A segment as BLEU counts it: lowercased if asked, trailing whitespace cut, tokenized, and
// its tokens joined by single spaces, so that every n-gram is a substring of it.
std::string Prepare(std::string_view segment, const BleuOptions& options) {
  const std::string lowered = options.lowercase ? Lowercase(segment) : std::string(segment);
  const std::string_view line = TrimTrailingWhitespace(lowered);
  if (options.tokenizer == BleuTokenizer::k13a) return Tokenize13a(line);
  std::string joined;
  for (const std::string_view word : SplitOnWhitespace(line)) {
    if (!joined.empty()) joined.push_back(' ');
    joined.append(word);
  }
  return joined;
}

// The n-grams of orders 1 to max_order of a prepared line (views into it), with their counts.
using NgramCounts = std::unordered_map<std::string_view, int64_t>;

int64_t CountNgrams(std::string_view line, int max_order, NgramCounts& counts) {
  std::vector<size_t> starts, ends;  // of the tokens
  for (size_t pos = 0; pos < line.size();) {
    const size_t end = std::min(line.find(' ', pos), line.size());
    starts.push_back(pos);
    ends.push_back(end);
    pos = end + 1;
  }
  const auto tokens = static_cast<int64_t>(starts.size());
  for (int64_t n = 1; n <= max_order; ++n) {
    for (int64_t i = 0; i + n <= tokens; ++i) ++counts[line.substr(starts[i], ends[i + n - 1] - starts[i])];
  }
  return tokens;
}

int64_t Order(std::string_view ngram) { return 1 + std::count(ngram.begin(), ngram.end(), ' '); }

double Log(double p) { return p == 0.0 ? -9999999999.0 : std::log(p); }  // sacreBLEU's my_log

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

BleuStatistics& BleuStatistics::operator+=(const BleuStatistics& other) {
  hypothesis_length += other.hypothesis_length;
  reference_length += other.reference_length;
  matches.resize(std::max(matches.size(), other.matches.size()));
  totals.resize(std::max(totals.size(), other.totals.size()));
  for (size_t n = 0; n < other.matches.size(); ++n) matches[n] += other.matches[n];
  for (size_t n = 0; n < other.totals.size(); ++n) totals[n] += other.totals[n];
  return *this;
}

BleuStatistics SegmentBleuStatistics(std::string_view hypothesis, const std::vector<std::string_view>& references,
                                     const BleuOptions& options) {
  std::vector<std::string> prepared;  // the references' n-grams are views into these
  prepared.reserve(references.size());
  NgramCounts most_in_a_reference;
  std::vector<int64_t> reference_lengths;
  for (const std::string_view reference : references) {
    NgramCounts counts;
    reference_lengths.push_back(CountNgrams(prepared.emplace_back(Prepare(reference, options)), options.max_order, counts));
    for (const auto& [ngram, count] : counts) most_in_a_reference[ngram] = std::max(most_in_a_reference[ngram], count);
  }
  const std::string line = Prepare(hypothesis, options);
  NgramCounts counts;
  BleuStatistics s;
  s.hypothesis_length = CountNgrams(line, options.max_order, counts);
  // The closest reference length; the shorter of two as close.
  int64_t closest = -1;
  for (const int64_t length : reference_lengths) {
    const int64_t distance = std::llabs(s.hypothesis_length - length);
    const int64_t best = std::llabs(s.hypothesis_length - closest);
    if (closest < 0 || distance < best || (distance == best && length < closest)) closest = length;
  }
  s.reference_length = closest;
  s.matches.assign(options.max_order, 0);
  s.totals.assign(options.max_order, 0);
  for (const auto& [ngram, count] : counts) {
    const int64_t n = Order(ngram) - 1;
    s.totals[n] += count;
    const auto in_reference = most_in_a_reference.find(ngram);
    if (in_reference != most_in_a_reference.end()) s.matches[n] += std::min(count, in_reference->second);
  }
  return s;
}

BleuScore ScoreBleu(const BleuStatistics& statistics, const BleuOptions& options) {
  BleuScore result;
  result.statistics = statistics;
  const auto sys_len = static_cast<double>(statistics.hypothesis_length);
  const auto ref_len = static_cast<double>(statistics.reference_length);
  result.brevity_penalty = sys_len >= ref_len ? 1.0 : sys_len > 0 ? std::exp(1 - ref_len / sys_len) : 0.0;
  const size_t orders = static_cast<size_t>(options.max_order);
  result.precisions.assign(orders, 0.0);
  std::vector<double> matches(orders, 0.0), totals(orders, 0.0);
  for (size_t n = 0; n < orders && n < statistics.matches.size() && n < statistics.totals.size(); ++n) {
    matches[n] = static_cast<double>(statistics.matches[n]);
    totals[n] = static_cast<double>(statistics.totals[n]);
  }
  if (std::all_of(matches.begin(), matches.end(), [](double m) { return m == 0; })) return result;
  const double smooth_value = options.smooth_value.value_or(options.smoothing == BleuSmoothing::kAddK ? 1.0 : 0.1);
  double exp_divisor = 1.0;
  size_t effective_order = orders;
  for (size_t n = 0; n < orders; ++n) {
    if (options.smoothing == BleuSmoothing::kAddK && n > 0) {
      matches[n] += smooth_value;
      totals[n] += smooth_value;
    }
    if (totals[n] == 0) break;
    if (options.effective_order) effective_order = n + 1;
    if (matches[n] != 0) {
      result.precisions[n] = 100.0 * matches[n] / totals[n];
    } else if (options.smoothing == BleuSmoothing::kExp) {
      exp_divisor *= 2;
      result.precisions[n] = 100.0 / (exp_divisor * totals[n]);
    } else if (options.smoothing == BleuSmoothing::kFloor) {
      result.precisions[n] = 100.0 * smooth_value / totals[n];
    }
  }
  double log_sum = 0.0;
  for (size_t n = 0; n < effective_order; ++n) log_sum += Log(result.precisions[n]);
  result.score = result.brevity_penalty * std::exp(log_sum / static_cast<double>(effective_order));
  return result;
}

std::string BleuScore::Format(int decimals) const {
  std::string precision_list;
  for (const double p : precisions) precision_list += (precision_list.empty() ? "" : "/") + Printf("%.1f", p);
  const double ratio = statistics.reference_length != 0 ? static_cast<double>(statistics.hypothesis_length) /
                                                               static_cast<double>(statistics.reference_length)
                                                         : 0.0;
  char score_text[64];
  std::snprintf(score_text, sizeof score_text, "%.*f", std::clamp(decimals, 0, 17), score);
  return "BLEU = " + std::string(score_text) + " " + precision_list + " (BP = " + Printf("%.3f", brevity_penalty) +
         " ratio = " + Printf("%.3f", ratio) + " hyp_len = " + std::to_string(statistics.hypothesis_length) +
         " ref_len = " + std::to_string(statistics.reference_length) + ")";
}

StatusOr<BleuScore> CorpusBleu(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  if (options.max_order < 1 || options.max_order > kMaxOrderLimit) {
    return Status::InvalidArgument("BLEU: max_order must be 1 to " + std::to_string(kMaxOrderLimit) + ", not " +
                                   std::to_string(options.max_order));
  }
  if (options.smooth_value && !(std::isfinite(*options.smooth_value) && *options.smooth_value >= 0)) {
    return Status::InvalidArgument("BLEU: the smoothing value must be a number of at least 0");
  }
  if (references.empty()) return Status::InvalidArgument("BLEU: no references");
  for (size_t k = 0; k < references.size(); ++k) {
    if (references[k].size() != hypotheses.size()) {
      return Status::InvalidArgument("BLEU: reference stream " + std::to_string(k) + " has " +
                                     std::to_string(references[k].size()) + " lines for " +
                                     std::to_string(hypotheses.size()) + " hypotheses");
    }
  }
  BleuStatistics corpus;
  corpus.matches.assign(options.max_order, 0);
  corpus.totals.assign(options.max_order, 0);
  std::vector<std::string_view> segment_references(references.size());
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    for (size_t k = 0; k < references.size(); ++k) segment_references[k] = references[k][i];
    corpus += SegmentBleuStatistics(hypotheses[i], segment_references, options);
  }
  return ScoreBleu(corpus, options);
}

}  // namespace ergobench
