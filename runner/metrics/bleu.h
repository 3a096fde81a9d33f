// Corpus BLEU (Papineni et al., 2002) exactly as sacreBLEU 2.x computes it, its defaults
// ours: 13a tokenization, n-grams up to 4, counts clipped by the most any reference of the
// segment has, the closest reference length (the shorter on a tie), one brevity penalty for
// the corpus, and "exp" smoothing of orders with no match (which changes nothing on a corpus
// with a match at every order). The translation tasks (4a, 4b) score their decoded output with
// it, and tests/runner/metrics/bleu_test.cc holds sacreBLEU's own test values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

enum class BleuTokenizer { k13a, kNone };
enum class BleuSmoothing { kExp, kFloor, kAddK, kNone };

struct BleuOptions {
  BleuTokenizer tokenizer = BleuTokenizer::k13a;
  BleuSmoothing smoothing = BleuSmoothing::kExp;
  std::optional<double> smooth_value;  // unset: 0.1 for floor, 1 for add-k
  bool lowercase = false;              // Unicode simple case mapping (glibc's C.UTF-8)
  bool effective_order = false;        // the orders a short corpus has, not always max_order
  int max_order = 4;
};

// What BLEU needs of a corpus, summed segment by segment: lengths in tokens, and by n-gram
// order (1 to max_order) the hypothesis's n-grams and those of them a reference has.
struct BleuStatistics {
  int64_t hypothesis_length = 0;
  int64_t reference_length = 0;
  std::vector<int64_t> matches;
  std::vector<int64_t> totals;

  BleuStatistics& operator+=(const BleuStatistics& other);
};

struct BleuScore {
  double score = 0;                // 0 to 100
  std::vector<double> precisions;  // by order, in percent, smoothed
  double brevity_penalty = 0;
  BleuStatistics statistics;

  // As sacreBLEU prints it: "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944
  // hyp_len = 17 ref_len = 18)", the score to `decimals` places.
  std::string Format(int decimals = 2) const;
};

// The statistics of one segment: a hypothesis against its references (an empty one counts, as
// a reference of no tokens). `references` must not be empty.
BleuStatistics SegmentBleuStatistics(std::string_view hypothesis, const std::vector<std::string_view>& references,
                                     const BleuOptions& options = {});

// The score of a corpus's summed statistics.
BleuScore ScoreBleu(const BleuStatistics& statistics, const BleuOptions& options = {});

// `references` as sacreBLEU takes them, in streams: references[k][i] is reference k of
// segment i. Every stream must have a line for every hypothesis; options must be in range.
StatusOr<BleuScore> CorpusBleu(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references,
                               const BleuOptions& options = {});

}  // namespace ergobench
