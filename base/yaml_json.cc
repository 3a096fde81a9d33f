#include "base/yaml_json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace ergobench {
namespace {

constexpr const char* kStrTag = "tag:yaml.org,2002:str";

std::string Where(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null()) return source;
  return source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::optional<nlohmann::json> ParseInteger(const std::string& text) {
  static const std::regex kDecimal("[-+]?[0-9]+");
  static const std::regex kOctal("0o[0-7]+");
  static const std::regex kHex("0x[0-9a-fA-F]+");
  int base = 0;
  std::string digits = text;
  if (std::regex_match(text, kDecimal)) {
    base = 10;
  } else if (std::regex_match(text, kOctal)) {
    base = 8;
    digits = text.substr(2);
  } else if (std::regex_match(text, kHex)) {
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

// Converts one document. yaml-cpp shares an aliased node rather than copying it, so an alias
// inside its own anchor is a cycle, and nested aliases multiply ("billion laughs"): the path
// from the root is checked for the node being converted, and the output is bounded.
class Converter {
 public:
  // The output may be this many times the input (bytes of scalars plus one per node): a
  // document without aliases never comes near it.
  static constexpr size_t kExpansionFactor = 16;
  static constexpr size_t kMinBudget = 1 << 16;

  Converter(const std::string& source, size_t input_bytes)
      : source_(source), budget_(std::max(kMinBudget, kExpansionFactor * input_bytes)) {}

  StatusOr<nlohmann::json> Convert(const YAML::Node& node) {
    for (const YAML::Node& ancestor : path_) {
      if (ancestor.is(node)) {
        return Status::InvalidArgument(Where(source_, node.Mark()) + ": an alias refers to a node that contains it");
      }
    }
    spent_ += 1 + (node.IsScalar() ? node.Scalar().size() : 0);
    if (spent_ > budget_) {
      return Status::InvalidArgument(source_ + ": aliases expand the document beyond " + std::to_string(kExpansionFactor) +
                                     " times its size");
    }
    path_.push_back(node);
    StatusOr<nlohmann::json> out = ConvertNode(node);
    path_.pop_back();
    return out;
  }

 private:
  StatusOr<nlohmann::json> ConvertNode(const YAML::Node& node) {
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nlohmann::json(nullptr);
      case YAML::NodeType::Scalar: {
        const std::string& tag = node.Tag();
        // "!" marks a quoted scalar; a plain one carries "?". Both mean "resolve by schema"
        // in YAML, but only plain scalars are typed by the core schema's patterns.
        if (tag == "!" || tag == kStrTag) return nlohmann::json(node.Scalar());
        if (tag == "?" || tag.empty()) return ResolvePlainScalar(node.Scalar());
        return Status::InvalidArgument(Where(source_, node.Mark()) + ": unsupported YAML tag " + tag);
      }
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        for (const YAML::Node& item : node) {
          ASSIGN_OR_RETURN(nlohmann::json value, Convert(item));
          out.push_back(std::move(value));
        }
        return out;
      }
      case YAML::NodeType::Map:
        return ConvertMap(node);
    }
    return Status::Internal("unreachable YAML node type");
  }

  StatusOr<nlohmann::json> ConvertMap(const YAML::Node& node) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        return Status::InvalidArgument(Where(source_, entry.first.Mark()) + ": mapping keys must be scalars");
      }
      const std::string& key = entry.first.Scalar();
      if (out.contains(key)) {
        return Status::InvalidArgument(Where(source_, entry.first.Mark()) + ": duplicate key \"" + key + "\"");
      }
      ASSIGN_OR_RETURN(nlohmann::json value, Convert(entry.second));
      out[key] = std::move(value);
    }
    return out;
  }

  const std::string& source_;
  const size_t budget_;
  size_t spent_ = 0;
  std::vector<YAML::Node> path_;  // from the document's root to the node being converted
};

}  // namespace

nlohmann::json ResolvePlainScalar(const std::string& text) {
  static const std::regex kNull("~|null|Null|NULL|");
  static const std::regex kTrue("true|True|TRUE");
  static const std::regex kFalse("false|False|FALSE");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  static const std::regex kInf("[-+]?\\.(inf|Inf|INF)");
  static const std::regex kNan("\\.(nan|NaN|NAN)");

  if (std::regex_match(text, kNull)) return nullptr;
  if (std::regex_match(text, kTrue)) return true;
  if (std::regex_match(text, kFalse)) return false;
  if (auto integer = ParseInteger(text)) return *integer;
  if (std::regex_match(text, kFloat)) return std::strtod(text.c_str(), nullptr);
  if (std::regex_match(text, kInf)) {
    return text[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
  }
  if (std::regex_match(text, kNan)) return std::numeric_limits<double>::quiet_NaN();
  return text;
}

StatusOr<std::vector<nlohmann::json>> ParseYamlDocuments(std::string_view text,
                                                         const std::string& source) {
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(Where(source, e.mark) + ": malformed YAML: " + e.msg);
  }
  std::vector<nlohmann::json> documents;
  for (const YAML::Node& node : nodes) {
    if (node.IsNull()) continue;
    ASSIGN_OR_RETURN(nlohmann::json document, Converter(source, text.size()).Convert(node));
    documents.push_back(std::move(document));
  }
  return documents;
}

}  // namespace ergobench
