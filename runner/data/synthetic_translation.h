// A synthetic language pair for the translation tasks (4a, 4b) where no WMT data is at hand:
// the target is a deterministic function of the source, so a model can learn it and a perfect
// translation scores BLEU 100, and learning it takes what translation takes. Source sentences
// are clauses "DET ADJ* NOUN VERB DET ADJ* NOUN", joined by "and", of pseudo-words; the target
// language differs in three ways:
//   - its own words (a fixed dictionary, one target word for each source word);
//   - local reordering: adjectives follow their noun, in reverse order;
//   - agreement: every noun has a gender, and its determiner and adjectives take the noun's
//     gender and number ("lo"/"la"/"los"/"las", "uno"/"una"/"unos"/"unas"; adjective + "o",
//     "a", "os" or "as"), and the verb takes its subject's number ("-e" or "-ed").
// Nouns take "s" in the plural in both languages. A word-by-word gloss (the dictionary alone)
// scores far below 100 (tests/runner/data/synthetic_translation_test.cc), so BLEU measures how
// much of the grammar a model learned. Nothing here depends on torch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct SyntheticPairOptions {
  uint64_t seed = 1;
  int nouns = 64;
  int adjectives = 24;
  int verbs = 24;
  int max_adjectives = 2;          // per noun phrase
  int max_clauses = 2;             // joined by "and"
};

class SyntheticLanguagePair {
 public:
  // Refuses word counts outside 1 to 4096, adjectives per noun outside 0 to 8 and clauses per
  // sentence outside 1 to 8.
  static StatusOr<SyntheticLanguagePair> Create(const SyntheticPairOptions& options);

  struct Pair {
    std::string source;
    std::string target;
  };
  // Sentence `index` of the pair's endless, deterministic corpus.
  Pair Sentence(uint64_t index) const;

  // The target of a source sentence of the grammar (what a perfect model outputs); an error
  // naming the first word that does not fit.
  StatusOr<std::string> Translate(std::string_view source) const;
  // The dictionary alone, word by word in source order, agreement ignored: the baseline a
  // model must beat.
  std::string Gloss(std::string_view source) const;

  // Every word each language can use.
  std::vector<std::string> SourceWords() const;
  std::vector<std::string> TargetWords() const;

 private:
  explicit SyntheticLanguagePair(const SyntheticPairOptions& options);

  enum class Kind { kDeterminer, kAdjective, kNoun, kVerb, kAnd };
  struct Entry {
    Kind kind;
    int index;
    bool plural;
  };
  StatusOr<Entry> Lookup(std::string_view source_word) const;

  SyntheticPairOptions options_;
  std::vector<std::string> source_nouns_, source_adjectives_, source_verbs_;
  std::vector<std::string> target_nouns_, target_adjectives_, target_verbs_;
  std::vector<bool> feminine_;  // by noun
  std::unordered_map<std::string, Entry> entries_;  // every source word, plural nouns included
};

}  // namespace ergobench
