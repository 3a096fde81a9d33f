// Reads YAML into JSON values, typing scalars by the YAML 1.2 core schema: plain `1.10`
// is a number, quoted "1.10" stays a string, `yes` is a string, `~` is null. JSON is the
// one in-memory form of every document; the codecs only ever decode JSON. And writes JSON
// values as YAML that reads back as the same values (`-o yaml`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ergobench {

// Parses every document of a (possibly multi-document) YAML stream. Empty documents are
// skipped. `source` names the input in error messages ("task0a.yaml:3:7: ...").
StatusOr<std::vector<nlohmann::json>> ParseYamlDocuments(std::string_view text,
                                                         const std::string& source);

// Types one plain (unquoted, untagged) scalar by the YAML 1.2 core schema.
nlohmann::json ResolvePlainScalar(const std::string& text);

// One YAML document (block style, no "---") that ParseYamlDocuments reads back as `value`: a
// string that would read as another type ("true", "1.10", "~", "") is quoted, floats keep
// every digit they need, NaN and the infinities are .nan and .inf.
std::string ToYaml(const nlohmann::json& value);

}  // namespace ergobench
