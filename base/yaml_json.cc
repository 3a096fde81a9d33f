#include "base/yaml_json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "base/text_scan.h"
#include "base/utf8.h"

namespace ergobench {
namespace {

constexpr const char* kStrTag = "tag:yaml.org,2002:str";

std::string Where(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null()) return source;
  return source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }

// YAML 1.2's core schema: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+.
std::optional<nlohmann::json> ParseInteger(const std::string& text) {
  auto prefixed = [&text](std::string_view prefix, bool (*digit)(char)) {
    return text.size() > 2 && text.rfind(prefix, 0) == 0 && AllOf(std::string_view(text).substr(2), digit);
  };
  TextScan decimal(text);
  decimal.Sign();
  int base = 0;
  std::string digits = text;
  if (decimal.While(IsAsciiDigit) > 0 && decimal.AtEnd()) {
    base = 10;
  } else if (prefixed("0o", IsOctalDigit)) {
    base = 8;
    digits = text.substr(2);
  } else if (prefixed("0x", IsHexDigit)) {
    base = 16;
    digits = text.substr(2);
  } else {
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(digits.c_str(), &end, base);
  if (errno == ERANGE) return nlohmann::json(std::strtod(text.c_str(), nullptr));
  return nlohmann::json(static_cast<int64_t>(value));
}

// yaml-cpp 0.7 decodes the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the code
// point as one byte, not as UTF-8. The input is valid UTF-8 (CheckText), so such a byte where
// UTF-8 is invalid can only have come from them: it is encoded as UTF-8.
std::string EncodeLatin1Escapes(const std::string& decoded) {
  std::string out;
  size_t done = 0;
  for (size_t at = FirstInvalidUtf8(decoded); at != std::string::npos;) {
    const auto byte = static_cast<unsigned char>(decoded[done + at]);
    out.append(decoded, done, at);
    if (byte == 0x85 || byte == 0xA0) out += '\xC2';
    out += static_cast<char>(byte);
    done += at + 1;
    at = FirstInvalidUtf8(std::string_view(decoded).substr(done));
  }
  return done == 0 ? decoded : out + decoded.substr(done);
}

// Builds JSON from yaml-cpp's parse events. Events rather than YAML::Node, for three reasons:
// yaml-cpp 0.7's LoadAll loops forever on some malformed input (a lone ",", fixed upstream in
// 2024), an alias inside its own anchor makes a cyclic node graph that a conversion recurses
// into forever, and nested aliases multiply ("billion laughs"). Here each alias is copied when
// it is met, an alias to a node still open is a cycle, and the copies are bounded. A problem
// throws Stop, which ends the parse.
class JsonBuilder final : public YAML::EventHandler {
 public:
  struct Stop {
    Status status;
  };

  // The output may be this many times the input (bytes of scalars plus one per node): a
  // document without aliases never comes near it.
  static constexpr size_t kExpansionFactor = 16;
  static constexpr size_t kMinBudget = 1 << 16;

  JsonBuilder(const std::string& source, size_t input_bytes)
      : source_(source), budget_(std::max(kMinBudget, kExpansionFactor * input_bytes)) {}

  // The last document's root, and where its first event was (for the progress check).
  std::optional<nlohmann::json> TakeRoot() { return std::exchange(root_, std::nullopt); }
  std::optional<size_t> first_position() const { return first_position_; }

  void OnDocumentStart(const YAML::Mark&) override {
    stack_.clear();
    root_.reset();
    first_position_.reset();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Add(mark, nullptr, anchor, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (open_anchors_.count(anchor) > 0) Fail(mark, "an alias refers to a node that contains it");
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "an alias to an unknown anchor");
    Spend(Cost(it->second), mark);
    const std::string* key = it->second.is_string() ? &it->second.get_ref<const std::string&>() : nullptr;
    Insert(mark, it->second, key);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& decoded) override {
    const std::string value = EncodeLatin1Escapes(decoded);
    // "!" marks a quoted scalar; a plain one carries "?". Both mean "resolve by schema" in
    // YAML, but only plain scalars are typed by the core schema's patterns.
    nlohmann::json typed;
    if (tag == "!" || tag == kStrTag) {
      typed = value;
    } else if (tag == "?" || tag.empty()) {
      typed = ResolvePlainScalar(value);
    } else {
      Fail(mark, "unsupported YAML tag " + tag);
    }
    Spend(value.size(), mark);
    Add(mark, std::move(typed), anchor, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, nlohmann::json::array(), anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, nlohmann::json::object(), anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Collection {
    nlohmann::json value;
    YAML::anchor_t anchor;
    YAML::Mark mark;
    std::optional<std::string> key;  // in a map: the key waiting for its value
  };

  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& message) const {
    throw Stop{Status::InvalidArgument(Where(source_, mark) + ": " + message)};
  }

  static size_t Cost(const nlohmann::json& value) {
    size_t cost = 1 + (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
    if (value.is_structured()) {
      for (const auto& [key, item] : value.items()) cost += key.size() + Cost(item);
    }
    return cost;
  }

  void Spend(size_t cost, const YAML::Mark& mark) {
    if (!first_position_) first_position_ = mark.pos;
    spent_ += cost;
    if (spent_ > budget_) {
      throw Stop{Status::InvalidArgument(source_ + ": aliases expand the document beyond " +
                                         std::to_string(kExpansionFactor) + " times its size")};
    }
  }

  void Open(const YAML::Mark& mark, nlohmann::json value, YAML::anchor_t anchor) {
    if (!stack_.empty() && stack_.back().value.is_object() && !stack_.back().key) {
      Fail(mark, "mapping keys must be scalars");
    }
    Spend(1, mark);
    if (anchor != YAML::NullAnchor) open_anchors_.insert(anchor);
    stack_.push_back({std::move(value), anchor, mark, std::nullopt});
  }

  void Close() {
    Collection done = std::move(stack_.back());
    stack_.pop_back();
    if (done.anchor != YAML::NullAnchor) {
      open_anchors_.erase(done.anchor);
      anchors_[done.anchor] = done.value;
    }
    Insert(done.mark, std::move(done.value), nullptr);
  }

  // A scalar or null: `text` is its source text when it can be a mapping key.
  void Add(const YAML::Mark& mark, nlohmann::json value, YAML::anchor_t anchor, const std::string* text) {
    if (text == nullptr) Spend(1, mark);
    if (anchor != YAML::NullAnchor) anchors_[anchor] = value;
    Insert(mark, std::move(value), text);
  }

  void Insert(const YAML::Mark& mark, nlohmann::json value, const std::string* text) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Collection& parent = stack_.back();
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
    } else if (!parent.key) {
      if (text == nullptr) Fail(mark, "mapping keys must be scalars");
      if (parent.value.contains(*text)) Fail(mark, "duplicate key \"" + *text + "\"");
      parent.key = *text;
    } else {
      parent.value[*parent.key] = std::move(value);
      parent.key.reset();
    }
  }

  const std::string& source_;
  const size_t budget_;
  size_t spent_ = 0;
  std::vector<Collection> stack_;
  std::map<YAML::anchor_t, nlohmann::json> anchors_;  // completed anchored nodes
  std::set<YAML::anchor_t> open_anchors_;             // anchored collections still being built
  std::optional<nlohmann::json> root_;
  std::optional<size_t> first_position_;
};

// "source:line:column" of byte `offset` in `text`, counting characters, not UTF-8 bytes.
std::string WhereIs(std::string_view text, size_t offset, const std::string& source) {
  int line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;
    }
  }
  return source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// A YAML stream is Unicode text: UTF-8 here, with tab, line feed and carriage return the only
// C0 controls, and no DEL. yaml-cpp 0.7 loops forever on some inputs holding others (",\0" is
// one), and invalid UTF-8 taken in would make every later JSON encoding throw.
Status CheckText(std::string_view text, const std::string& source) {
  if (const size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
    return Status::InvalidArgument(WhereIs(text, bad, source) + ": invalid UTF-8");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", byte);
      return Status::InvalidArgument(WhereIs(text, i, source) + ": control character " + code +
                                     " is not allowed in YAML");
    }
  }
  return Status::Ok();
}

// Whether a YAML 1.1 reader (PyYAML; go-yaml v2 behind kubectl) might type this plain scalar as
// other than a string, where 1.2's core schema would not: its booleans y, yes, on, off and the
// like, and anything that starts as a number might (1_000, 0b1, 1:20, 017). Quoting more than
// needed costs nothing.
bool Yaml11MightRetype(const std::string& text) {
  if (text.empty()) return false;
  if (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '+' || text[0] == '-' || text[0] == '.') {
    return true;
  }
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "="}) {
    if (lower == word) return true;
  }
  return false;
}

void EmitString(YAML::Emitter& out, const std::string& text) {
  // Plain only where every reader reads it back as this very string; the emitter quotes what
  // the syntax needs.
  const bool controls = std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;  // written only as escapes
  });
  const nlohmann::json typed = ResolvePlainScalar(text);
  if (controls) {
    // The emitter escapes DEL only when it escapes every character past ASCII.
    out << YAML::EscapeNonAscii << YAML::DoubleQuoted << text << YAML::EmitNonAscii;
  } else if (typed.is_string() && typed.get_ref<const std::string&>() == text && !Yaml11MightRetype(text)) {
    out << text;
  } else {
    out << YAML::DoubleQuoted << text;
  }
}

void EmitFloat(YAML::Emitter& out, double value) {
  if (std::isnan(value)) {
    out << ".nan";
  } else if (std::isinf(value)) {
    out << (value > 0 ? ".inf" : "-.inf");
  } else {
    // The shortest text that reads back as the same double, with a point before any exponent,
    // which YAML 1.1 needs to read it as a float ("5e-05" is a string there, "5.0e-05" is not).
    std::string text = nlohmann::json(value).dump();
    if (const size_t e = text.find_first_of("eE"); e != std::string::npos && text.find('.') == std::string::npos) {
      text.insert(e, ".0");
    }
    out << text;
  }
}

void Emit(YAML::Emitter& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, member] : value.items()) {
        // YAML allows an implicit key up to 1024 characters; past a safe margin, "? key".
        if (key.size() > 256) out << YAML::LongKey;
        out << YAML::Key;
        EmitString(out, key);
        out << YAML::Value;
        Emit(out, member);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const nlohmann::json& item : value) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case nlohmann::json::value_t::string:
      EmitString(out, value.get_ref<const std::string&>());
      return;
    case nlohmann::json::value_t::boolean:
      out << (value.get<bool>() ? "true" : "false");
      return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      out << value.dump();
      return;
    case nlohmann::json::value_t::number_float:
      EmitFloat(out, value.get<double>());
      return;
    default:  // null, and the binary and discarded values JSON text never holds
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string ToYaml(const nlohmann::json& value) {
  YAML::Emitter out;
  Emit(out, value);
  return std::string(out.c_str()) + "\n";
}

nlohmann::json ResolvePlainScalar(const std::string& text) {
  auto one_of = [&text](std::initializer_list<std::string_view> words) {
    return std::find(words.begin(), words.end(), text) != words.end();
  };
  if (one_of({"~", "null", "Null", "NULL", ""})) return nullptr;
  if (one_of({"true", "True", "TRUE"})) return true;
  if (one_of({"false", "False", "FALSE"})) return false;
  if (auto integer = ParseInteger(text)) return *integer;
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  TextScan number(text);
  number.Sign();
  if (number.Decimal()) {
    number.Exponent();
    if (number.AtEnd()) return std::strtod(text.c_str(), nullptr);
  }
  if (one_of({".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) return std::numeric_limits<double>::infinity();
  if (one_of({"-.inf", "-.Inf", "-.INF"})) return -std::numeric_limits<double>::infinity();
  if (one_of({".nan", ".NaN", ".NAN"})) return std::numeric_limits<double>::quiet_NaN();
  return text;
}

StatusOr<std::vector<nlohmann::json>> ParseYamlDocuments(std::string_view text,
                                                         const std::string& source) {
  RETURN_IF_ERROR(CheckText(text, source));
  std::istringstream in{std::string(text)};
  JsonBuilder builder(source, text.size());
  std::vector<nlohmann::json> documents;
  size_t last_empty = std::string_view::npos;  // where the last empty document began
  try {
    YAML::Parser parser(in);
    // Each document takes at least a byte ("---" takes three): more documents than bytes is
    // the parser going round in circles, whatever the events say.
    for (size_t handled = 0; parser.HandleNextDocument(builder); ++handled) {
      if (handled > text.size()) {
        return Status::InvalidArgument(source + ": malformed YAML: the parser makes no progress");
      }
      std::optional<nlohmann::json> root = builder.TakeRoot();
      if (root && !root->is_null()) {
        documents.push_back(std::move(*root));
        last_empty = std::string_view::npos;
        continue;
      }
      // yaml-cpp 0.7 reports an endless run of empty documents, all at one place, for input
      // it cannot consume: two in a row at the same place end it.
      const size_t at = builder.first_position().value_or(std::string_view::npos);
      if (at != std::string_view::npos && at == last_empty) {
        return Status::InvalidArgument(source + ": malformed YAML: the parser cannot get past byte " +
                                       std::to_string(at));
      }
      last_empty = at;
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(Where(source, e.mark) + ": malformed YAML: " + e.msg);
  } catch (const JsonBuilder::Stop& stop) {
    return stop.status;
  }
  return documents;
}

}  // namespace ergobench
