#include "runner/data/synthetic_translation.h"

#include <set>

#include "runner/data/shard.h"
#include "runner/metrics/tokenizer_13a.h"

namespace ergobench {
namespace {

constexpr int kMaxWords = 4096;
constexpr int kMaxPerSentence = 8;

// Function words: never drawn as content words.
const std::set<std::string, std::less<>> kReserved = {"the", "a", "some", "and", "lo", "la", "los", "las",
                                                      "uno", "una", "unos", "unas", "y"};

// Pseudo-words from syllables, distinct within `taken`. Source words are CV syllables and end
// in a vowel; target stems end in one of l m n r t. So no word ends as a suffix makes another
// end: a plural's "s", an adjective's "o", "a", "os" or "as", a verb's "e" or "ed".
std::string DrawWord(SplitMix64& rng, bool target, std::set<std::string, std::less<>>& taken) {
  static constexpr std::string_view kConsonants = "bdfgklmnprtvz";
  static constexpr std::string_view kVowels = "aeiou";
  static constexpr std::string_view kFinals = "lmnrt";
  for (;;) {
    std::string word;
    const uint64_t syllables = 2 + rng.Below(2);
    for (uint64_t i = 0; i < syllables; ++i) {
      word += kConsonants[rng.Below(kConsonants.size())];
      word += kVowels[rng.Below(kVowels.size())];
    }
    if (target) word += kFinals[rng.Below(kFinals.size())];
    if (!kReserved.count(word) && taken.insert(word).second) return word;
  }
}

std::vector<std::string> DrawWords(SplitMix64& rng, int count, bool target, std::set<std::string, std::less<>>& taken) {
  std::vector<std::string> words;
  for (int i = 0; i < count; ++i) words.push_back(DrawWord(rng, target, taken));
  return words;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// A target determiner or adjective ending for a noun of this gender and number.
std::string Ending(bool feminine, bool plural) { return std::string(feminine ? "a" : "o") + (plural ? "s" : ""); }

}  // namespace

StatusOr<SyntheticLanguagePair> SyntheticLanguagePair::Create(const SyntheticPairOptions& options) {
  const auto in_range = [](const char* name, int value, int min, int max) {
    if (value >= min && value <= max) return Status::Ok();
    return Status::InvalidArgument(std::string("synthetic language pair: ") + name + " must be " + std::to_string(min) +
                                   " to " + std::to_string(max) + ", not " + std::to_string(value));
  };
  RETURN_IF_ERROR(in_range("nouns", options.nouns, 1, kMaxWords));
  RETURN_IF_ERROR(in_range("adjectives", options.adjectives, 1, kMaxWords));
  RETURN_IF_ERROR(in_range("verbs", options.verbs, 1, kMaxWords));
  RETURN_IF_ERROR(in_range("max_adjectives", options.max_adjectives, 0, kMaxPerSentence));
  RETURN_IF_ERROR(in_range("max_clauses", options.max_clauses, 1, kMaxPerSentence));
  return SyntheticLanguagePair(options);
}

SyntheticLanguagePair::SyntheticLanguagePair(const SyntheticPairOptions& options) : options_(options) {
  SplitMix64 rng(options.seed ^ 0x5EEDF00DCAFEull);
  std::set<std::string, std::less<>> source_taken, target_taken;
  source_nouns_ = DrawWords(rng, options.nouns, false, source_taken);
  source_adjectives_ = DrawWords(rng, options.adjectives, false, source_taken);
  source_verbs_ = DrawWords(rng, options.verbs, false, source_taken);
  target_nouns_ = DrawWords(rng, options.nouns, true, target_taken);
  target_adjectives_ = DrawWords(rng, options.adjectives, true, target_taken);
  target_verbs_ = DrawWords(rng, options.verbs, true, target_taken);
  for (int i = 0; i < options.nouns; ++i) feminine_.push_back(rng.Below(2) == 1);
  entries_ = {{"the", {Kind::kDeterminer, 0, false}}, {"a", {Kind::kDeterminer, 1, false}},
              {"some", {Kind::kDeterminer, 1, true}}, {"and", {Kind::kAnd, 0, false}}};
  for (int i = 0; i < options.adjectives; ++i) entries_.emplace(source_adjectives_[i], Entry{Kind::kAdjective, i, false});
  for (int i = 0; i < options.verbs; ++i) entries_.emplace(source_verbs_[i], Entry{Kind::kVerb, i, false});
  for (int i = 0; i < options.nouns; ++i) {
    entries_.emplace(source_nouns_[i], Entry{Kind::kNoun, i, false});
    entries_.emplace(source_nouns_[i] + "s", Entry{Kind::kNoun, i, true});
  }
}

SyntheticLanguagePair::Pair SyntheticLanguagePair::Sentence(uint64_t index) const {
  SplitMix64 rng(options_.seed * 0x9E3779B97F4A7C15ull + index * 0xD1B54A32D192ED03ull + 1);
  std::vector<std::string> source;
  const uint64_t clauses = 1 + rng.Below(static_cast<uint64_t>(options_.max_clauses));
  for (uint64_t clause = 0; clause < clauses; ++clause) {
    if (clause > 0) source.push_back("and");
    for (int part = 0; part < 2; ++part) {  // subject, verb, object
      const bool definite = rng.Below(2) == 0;
      const bool plural = rng.Below(2) == 0;
      source.push_back(definite ? "the" : plural ? "some" : "a");
      const uint64_t adjectives = rng.Below(static_cast<uint64_t>(options_.max_adjectives) + 1);
      for (uint64_t i = 0; i < adjectives; ++i) source.push_back(source_adjectives_[rng.Below(source_adjectives_.size())]);
      source.push_back(source_nouns_[rng.Below(source_nouns_.size())] + (plural ? "s" : ""));
      if (part == 0) source.push_back(source_verbs_[rng.Below(source_verbs_.size())]);
    }
  }
  Pair pair{Join(source), ""};
  pair.target = *Translate(pair.source);  // the grammar's own sentence always translates
  return pair;
}

StatusOr<SyntheticLanguagePair::Entry> SyntheticLanguagePair::Lookup(std::string_view word) const {
  const auto it = entries_.find(std::string(word));
  if (it == entries_.end()) return Status::NotFound("not a word of the language");
  return it->second;
}

StatusOr<std::string> SyntheticLanguagePair::Translate(std::string_view source) const {
  const std::vector<std::string_view> words = SplitOnWhitespace(source);
  std::vector<std::string> target;
  size_t at = 0;
  const auto fail = [&](const std::string& why) {
    const std::string word = at < words.size() ? "'" + std::string(words[at].substr(0, 64)) + "'" : "the end";
    return Status::InvalidArgument("word " + std::to_string(at + 1) + " (" + word + "): " + why);
  };
  // One noun phrase, its words in target order; its noun's number through `plural`.
  const auto noun_phrase = [&](bool* plural) -> Status {
    if (at >= words.size()) return fail("a determiner (the, a, some) was expected");
    ASSIGN_OR_RETURN(const Entry determiner, Lookup(words[at]));
    if (determiner.kind != Kind::kDeterminer) return fail("a determiner (the, a, some) was expected");
    std::vector<int> adjectives;
    StatusOr<Entry> entry = Status::NotFound("");
    while (++at < words.size() && (entry = Lookup(words[at])).ok() && entry->kind == Kind::kAdjective) {
      if (adjectives.size() == kMaxPerSentence) return fail("more adjectives than a noun phrase takes");
      adjectives.push_back(entry->index);
    }
    if (at >= words.size() || !entry.ok() || entry->kind != Kind::kNoun) return fail("a noun was expected");
    const bool feminine = feminine_[static_cast<size_t>(entry->index)];
    *plural = entry->plural;
    if (determiner.index == 1 && determiner.plural != *plural) return fail("the determiner and the noun disagree in number");
    target.push_back((determiner.index == 0 ? "l" : "un") + Ending(feminine, *plural));
    target.push_back(target_nouns_[static_cast<size_t>(entry->index)] + (*plural ? "s" : ""));
    for (auto it = adjectives.rbegin(); it != adjectives.rend(); ++it) {
      target.push_back(target_adjectives_[static_cast<size_t>(*it)] + Ending(feminine, *plural));
    }
    ++at;
    return Status::Ok();
  };
  for (;;) {
    bool plural_subject = false, plural_object = false;
    RETURN_IF_ERROR(noun_phrase(&plural_subject));
    StatusOr<Entry> verb = at < words.size() ? Lookup(words[at]) : Status::NotFound("");
    if (!verb.ok() || verb->kind != Kind::kVerb) return fail("a verb was expected");
    target.push_back(target_verbs_[static_cast<size_t>(verb->index)] + (plural_subject ? "ed" : "e"));
    ++at;
    RETURN_IF_ERROR(noun_phrase(&plural_object));
    if (at == words.size()) return Join(target);
    StatusOr<Entry> conjunction = Lookup(words[at]);
    if (!conjunction.ok() || conjunction->kind != Kind::kAnd) return fail("'and' or the end was expected");
    target.push_back("y");
    ++at;
  }
}

std::string SyntheticLanguagePair::Gloss(std::string_view source) const {
  std::vector<std::string> target;
  for (const std::string_view word : SplitOnWhitespace(source)) {
    const StatusOr<Entry> entry = Lookup(word);
    if (!entry.ok()) {
      target.emplace_back(word);
      continue;
    }
    const auto i = static_cast<size_t>(entry->index);
    switch (entry->kind) {
      case Kind::kDeterminer: target.push_back(entry->index == 0 ? "lo" : entry->plural ? "unos" : "uno"); break;
      case Kind::kAdjective: target.push_back(target_adjectives_[i] + "o"); break;
      case Kind::kNoun: target.push_back(target_nouns_[i] + (entry->plural ? "s" : "")); break;
      case Kind::kVerb: target.push_back(target_verbs_[i] + "e"); break;
      case Kind::kAnd: target.push_back("y"); break;
    }
  }
  return Join(target);
}

std::vector<std::string> SyntheticLanguagePair::SourceWords() const {
  std::vector<std::string> words = {"the", "a", "some", "and"};
  for (const auto* list : {&source_adjectives_, &source_verbs_}) words.insert(words.end(), list->begin(), list->end());
  for (const std::string& noun : source_nouns_) words.insert(words.end(), {noun, noun + "s"});
  return words;
}

std::vector<std::string> SyntheticLanguagePair::TargetWords() const {
  std::vector<std::string> words = {"lo", "la", "los", "las", "uno", "una", "unos", "unas", "y"};
  for (const std::string& adjective : target_adjectives_) {
    for (const char* ending : {"o", "a", "os", "as"}) words.push_back(adjective + ending);
  }
  for (const std::string& verb : target_verbs_) words.insert(words.end(), {verb + "e", verb + "ed"});
  for (const std::string& noun : target_nouns_) words.insert(words.end(), {noun, noun + "s"});
  return words;
}

}  // namespace ergobench
