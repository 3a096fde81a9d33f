// Golden files for the operator's pure builders: every field of a built object is pinned in
// tests/operator/controller/testdata/<name>. After an intended change, regenerate them with
// ERGOBENCH_UPDATE_GOLDEN=1 and review the diff.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/testing/test_paths.h"

namespace ergobench::testing {

inline void ExpectGolden(const nlohmann::json& actual, const std::string& name) {
  const std::string path = std::string(kSourceDir) + "/tests/operator/controller/testdata/" + name;
  if (std::getenv("ERGOBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual.dump(2) << "\n";
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json expected = nlohmann::json::parse(text.str());
  EXPECT_EQ(actual, expected) << "diff (expected → actual): " << nlohmann::json::diff(expected, actual).dump(1);
}

}  // namespace ergobench::testing
