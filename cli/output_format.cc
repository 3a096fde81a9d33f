#include "cli/output_format.h"

#include <algorithm>

#include "base/yaml_json.h"

namespace ergobench {

Status CheckOutputFormat(const std::string& flag, const std::string& format, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end()) return Status::Ok();
  std::string choices;
  for (const std::string& choice : allowed) choices += (choices.empty() ? "" : ", ") + choice;
  return Status::InvalidArgument(flag + " " + format + ": expected one of " + choices);
}

StatusOr<std::string> FormatDocuments(const std::vector<nlohmann::json>& documents, const std::string& format) {
  RETURN_IF_ERROR(CheckOutputFormat("-o", format, {"json", "yaml"}));
  std::string out;
  for (const nlohmann::json& document : documents) {
    out += format == "json" ? document.dump(2) + "\n" : "---\n" + ToYaml(document);
  }
  return out;
}

}  // namespace ergobench
