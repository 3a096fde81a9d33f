// Scanners for the short grammars that user input must match (numbers, DNS labels, hex digests,
// YAML's plain scalars), in place of regular expressions: libstdc++'s matcher recurses once per character,
// so a value of 100,000 characters overflows the stack, in the CLI and the operator alike. Each
// is a loop over the text: time linear in its length, constant stack.
#pragma once

#include <cstddef>
#include <string_view>

namespace ergobench {

// A cursor over `text`, which must outlive it: each method consumes what it names from the
// front, or nothing.
class TextScan {
 public:
  explicit TextScan(std::string_view text) : rest_(text) {}

  bool AtEnd() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

  // One character equal to `c` / among `chars` / for which `accept` holds.
  bool Char(char c);
  bool One(bool (*accept)(char));
  bool CharIn(std::string_view chars);
  // `literal` whole.
  bool Literal(std::string_view literal);
  // As many characters for which `accept` holds as there are; how many.
  size_t While(bool (*accept)(char));
  // [+-]?: whether a sign was there.
  bool Sign() { return CharIn("+-"); }
  // A decimal number without exponent: [0-9]+(\.[0-9]*)? | \.[0-9]+.
  bool Decimal();
  // A decimal exponent: [eE][+-]?[0-9]+.
  bool Exponent();

 private:
  std::string_view rest_;
};

bool IsAsciiDigit(char c);
bool IsAsciiLower(char c);
bool IsAsciiUpper(char c);
bool IsAsciiLetter(char c);
bool IsAsciiAlnum(char c);
bool IsLowerHexDigit(char c);
bool IsHexDigit(char c);

// Every character of `text` accepted, and `text` of `length` characters (any length if npos).
bool AllOf(std::string_view text, bool (*accept)(char), size_t length = std::string_view::npos);

// An RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most kMaxDnsLabelLength long (for the
// caller to check: some names must leave room for a suffix).
inline constexpr size_t kMaxDnsLabelLength = 63;
bool IsDnsLabel(std::string_view text);
// An RFC 1123 subdomain: DNS labels joined by '.', at most 253 characters (most objects' names).
bool IsDnsSubdomain(std::string_view text);

}  // namespace ergobench
