#include "base/yaml_json.h"

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

StatusOr<nlohmann::json> Convert(const YAML::Node& node, const std::string& source) {
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
      return Status::InvalidArgument(Where(source, node.Mark()) + ": unsupported YAML tag " + tag);
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node) {
        ASSIGN_OR_RETURN(nlohmann::json value, Convert(item, source));
        out.push_back(std::move(value));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          return Status::InvalidArgument(Where(source, entry.first.Mark()) +
                                         ": mapping keys must be scalars");
        }
        const std::string& key = entry.first.Scalar();
        if (out.contains(key)) {
          return Status::InvalidArgument(Where(source, entry.first.Mark()) + ": duplicate key \"" +
                                         key + "\"");
        }
        ASSIGN_OR_RETURN(nlohmann::json value, Convert(entry.second, source));
        out[key] = std::move(value);
      }
      return out;
    }
  }
  return Status::Internal("unreachable YAML node type");
}

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
    ASSIGN_OR_RETURN(nlohmann::json document, Convert(node, source));
    documents.push_back(std::move(document));
  }
  return documents;
}

}  // namespace ergobench
