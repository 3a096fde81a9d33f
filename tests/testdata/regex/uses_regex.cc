// A fixture for tests/check_no_regex.py: it must be found.
#include <regex>

bool IsLabel(const std::string& s) { return std::regex_match(s, std::regex("[a-z]+")); }
