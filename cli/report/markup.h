// Text as HTML and SVG take it: the characters markup gives meaning to, escaped. Run names,
// labels and messages come from users' files and clusters, so every one goes through this.
#pragma once

#include <string>
#include <string_view>

namespace ergobench {

inline std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace ergobench
