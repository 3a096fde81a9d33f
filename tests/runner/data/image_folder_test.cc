#include "runner/data/image_folder.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace ergobench {
namespace {

void Touch(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

TEST(ImageFolderTest, ClassesAreSortedFolderNamesAndFilesFollowThem) {
  TempDir dir;
  Touch(dir.path() / "n02" / "b.JPEG");
  Touch(dir.path() / "n02" / "a.jpg");
  Touch(dir.path() / "n01" / "z.JPEG");
  Touch(dir.path() / "n01" / "notes.txt");  // not an image
  Touch(dir.path() / "README");             // not a class
  std::filesystem::create_directories(dir.path() / "n03");  // a class without images keeps its label
  auto folder = ListImageFolder(dir.path().string(), 1000, "spec.hyperparameters.classes");
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_EQ(folder->classes, (std::vector<std::string>{"n01", "n02", "n03"}));
  const std::string root = dir.path().string();
  EXPECT_EQ(folder->paths, (std::vector<std::string>{root + "/n01/z.JPEG", root + "/n02/a.jpg", root + "/n02/b.JPEG"}));
  EXPECT_EQ(folder->labels, (std::vector<int32_t>{0, 1, 1}));
}

TEST(ImageFolderTest, ProblemsNameTheFolderOrTheField) {
  TempDir dir;
  auto empty = ListImageFolder(dir.path().string(), 1000, "spec.hyperparameters.classes");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("holds no class folders"), std::string::npos);
  Touch(dir.path() / "a" / "x.txt");
  Touch(dir.path() / "b" / "y.txt");
  auto no_images = ListImageFolder(dir.path().string(), 1000, "spec.hyperparameters.classes");
  ASSERT_FALSE(no_images.ok());
  EXPECT_NE(no_images.status().message().find("no .JPEG"), std::string::npos);
  Touch(dir.path() / "c" / "z.JPEG");
  auto too_many = ListImageFolder(dir.path().string(), 2, "spec.hyperparameters.classes");
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(),
            "spec.hyperparameters.classes: 2, but " + dir.path().string() + " holds 3 class folders");
  auto missing = ListImageFolder((dir.path() / "nope").string(), 2, "f");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope: cannot list"), std::string::npos);
}

}  // namespace
}  // namespace ergobench
