#include "api/v1alpha1/image_reference.h"

#include "base/text_scan.h"

namespace ergobench {
namespace {

bool IsLowerAlnum(char c) { return IsAsciiDigit(c) || IsAsciiLower(c); }
bool IsDash(char c) { return c == '-'; }
bool IsWordChar(char c) { return IsAsciiAlnum(c) || c == '_'; }
bool IsTagChar(char c) { return IsWordChar(c) || c == '.' || c == '-'; }

// [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*
bool IsPathComponent(std::string_view text) {
  TextScan scan(text);
  if (scan.While(IsLowerAlnum) == 0) return false;
  while (!scan.AtEnd()) {
    // "__" before "_": a single '_' followed by another is no separator.
    const bool separator = scan.Literal("__") || scan.CharIn("._") || scan.While(IsDash) > 0;
    if (!separator || scan.While(IsLowerAlnum) == 0) return false;
  }
  return true;
}

// [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?, '.'-separated, then (:[0-9]+)?
bool IsDomain(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || !AllOf(port, IsAsciiDigit)) return false;
    text = text.substr(0, colon);
  }
  auto label_char = [](char c) { return IsAsciiAlnum(c) || c == '-'; };
  while (true) {
    const size_t dot = text.find('.');
    const std::string_view label = text.substr(0, dot);
    if (label.empty() || label.front() == '-' || label.back() == '-' || !AllOf(label, label_char)) return false;
    if (dot == std::string_view::npos) return true;
    text = text.substr(dot + 1);
  }
}

// \w[\w.-]{0,127}
bool IsTag(std::string_view text) {
  return !text.empty() && text.size() <= 128 && IsWordChar(text.front()) && AllOf(text, IsTagChar);
}

// [A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}
bool IsDigest(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view hex = text.substr(colon + 1);
  if (hex.size() < 32 || !AllOf(hex, IsHexDigit)) return false;
  TextScan algorithm(text.substr(0, colon));
  do {
    if (!algorithm.One(IsAsciiLetter)) return false;
    algorithm.While(IsAsciiAlnum);
  } while (algorithm.CharIn("-_+."));
  return algorithm.AtEnd();
}

}  // namespace

bool IsImageReference(std::string_view image) {
  std::string_view name = image;
  if (const size_t at = image.find('@'); at != std::string_view::npos) {
    if (!IsDigest(image.substr(at + 1))) return false;
    name = image.substr(0, at);
  }
  // A tag follows the last ':' after the last '/'; a ':' before it is the registry's port.
  const size_t slash = name.rfind('/');
  const size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    if (!IsTag(name.substr(colon + 1))) return false;
    name = name.substr(0, colon);
  }
  // The first of several components may be a registry (domain[:port]) instead of a path.
  for (bool first = true;; first = false) {
    const size_t next = name.find('/');
    const std::string_view component = name.substr(0, next);
    const bool registry = first && next != std::string_view::npos && IsDomain(component);
    if (!registry && !IsPathComponent(component)) return false;
    if (next == std::string_view::npos) return true;
    name = name.substr(next + 1);
  }
}

}  // namespace ergobench
