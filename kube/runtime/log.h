// Structured logs for the operator: one JSON object per line on stderr
// ({"ts":"…","level":"info","msg":"…","benchmark":"ns/name"}), what log pipelines parse
// without rules, or logfmt-like text for a terminal (--log-format text).
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

namespace ergobench::runtime {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

void SetLogFormat(bool json);
void SetMinLogLevel(LogLevel level);

using LogField = std::pair<std::string, std::string>;
void Log(LogLevel level, const std::string& message, std::initializer_list<LogField> fields = {});

}  // namespace ergobench::runtime
