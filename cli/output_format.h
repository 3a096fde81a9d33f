// `-o json|yaml`: documents written for programs rather than people. json: each document
// indented, one after another (a stream that jq reads); yaml: each a YAML document after "---".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ergobench {

// InvalidArgument naming `flag` unless `format` is one of `allowed`.
Status CheckOutputFormat(const std::string& flag, const std::string& format, const std::vector<std::string>& allowed);

// `documents` as `format` says, json or yaml; InvalidArgument for any other.
StatusOr<std::string> FormatDocuments(const std::vector<nlohmann::json>& documents, const std::string& format);

}  // namespace ergobench
