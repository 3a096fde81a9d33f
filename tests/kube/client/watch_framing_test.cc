#include "kube/client/watch_framing.h"

#include <gtest/gtest.h>

#include <vector>

namespace ergobench::kube {
namespace {

std::vector<std::string> FeedAll(LineSplitter* splitter, const std::vector<std::string>& chunks) {
  std::vector<std::string> lines;
  for (const auto& chunk : chunks) {
    Status s = splitter->Feed(chunk, [&](std::string_view line) {
      lines.emplace_back(line);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return lines;
}

TEST(LineSplitter, ReassemblesEventsSplitAnywhere) {
  const std::string stream = "{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}\n";
  // Every way to cut the stream in two gives the same three lines.
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    LineSplitter splitter;
    auto lines = FeedAll(&splitter, {stream.substr(0, cut), stream.substr(cut)});
    EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"})) << "cut at " << cut;
    EXPECT_EQ(splitter.pending(), 0u);
  }
  // One byte at a time.
  LineSplitter splitter;
  std::vector<std::string> bytes;
  for (char c : stream) bytes.emplace_back(1, c);
  EXPECT_EQ(FeedAll(&splitter, bytes).size(), 3u);
}

TEST(LineSplitter, KeepsAPartialLineUntilItsNewline) {
  LineSplitter splitter;
  EXPECT_TRUE(FeedAll(&splitter, {"{\"type\":\"ADD"}).empty());
  EXPECT_EQ(splitter.pending(), 12u);
}

TEST(LineSplitter, RefusesUnboundedLines) {
  LineSplitter splitter(8);
  Status s = splitter.Feed("0123456789", [](std::string_view) { return Status::Ok(); });
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("longer than 8 bytes"), std::string::npos);
}

TEST(LineSplitter, StopsAtTheHandlersError) {
  LineSplitter splitter;
  int seen = 0;
  Status s = splitter.Feed("a\nb\nc\n", [&](std::string_view) {
    ++seen;
    return seen == 2 ? Status::Cancelled("enough") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, 2);
}

TEST(ParseWatchEvent, ReadsEveryType) {
  auto added = ParseWatchEvent(R"({"type":"ADDED","object":{"metadata":{"name":"p","resourceVersion":"7"}}})");
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->type, WatchEventType::kAdded);
  EXPECT_EQ(EventResourceVersion(*added), "7");
  auto bookmark = ParseWatchEvent(R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12"}}})");
  ASSERT_TRUE(bookmark.ok());
  EXPECT_EQ(bookmark->type, WatchEventType::kBookmark);
  EXPECT_EQ(EventResourceVersion(*bookmark), "12");
  auto error = ParseWatchEvent(R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})");
  ASSERT_TRUE(error.ok());
  EXPECT_EQ(error->type, WatchEventType::kError);
  EXPECT_EQ(ParseWatchEvent(R"({"type":"DELETED","object":{}})")->type, WatchEventType::kDeleted);
  EXPECT_EQ(ParseWatchEvent(R"({"type":"MODIFIED","object":{}})")->type, WatchEventType::kModified);
}

TEST(ParseWatchEvent, RejectsMalformedLines) {
  EXPECT_FALSE(ParseWatchEvent("not json").ok());
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"ADDED"})").ok());
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"RENAMED","object":{}})").ok());
}

}  // namespace
}  // namespace ergobench::kube
