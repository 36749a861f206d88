#include "agent/docker_streams.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace det::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Frame(uint8_t stream, const std::string& payload) {
  std::string h = {static_cast<char>(stream), 0, 0, 0};
  const uint32_t n = static_cast<uint32_t>(payload.size());
  for (int shift : {24, 16, 8, 0}) h.push_back(static_cast<char>((n >> shift) & 0xff));
  return h + payload;
}

TEST(MultiplexedStreamDecoderTest, SplitsFramesByStreamWhateverTheChunks) {
  const std::string stream = Frame(1, "hello\n") + Frame(2, "oops\n") + Frame(1, std::string(70000, 'x'));
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{8}, size_t{9}, stream.size()}) {
    std::string out, err;
    MultiplexedStreamDecoder d([&](StdType t, std::string_view p) { (t == StdType::kStdout ? out : err) += p; });
    for (size_t i = 0; i < stream.size(); i += chunk) ASSERT_TRUE(d.Feed(std::string_view(stream).substr(i, chunk)).ok());
    EXPECT_EQ(out, "hello\n" + std::string(70000, 'x')) << chunk;
    EXPECT_EQ(err, "oops\n") << chunk;
    EXPECT_TRUE(d.AtFrameBoundary());
  }
}

TEST(MultiplexedStreamDecoderTest, RefusesARawStream) {
  MultiplexedStreamDecoder d([](StdType, std::string_view) {});
  absl::Status s = d.Feed("plain text from a TTY\n");
  EXPECT_THAT(s.message(), HasSubstr("not multiplexed"));
  EXPECT_FALSE(d.Feed(Frame(1, "x")).ok()) << "nothing more after a broken header";
}

TEST(PullMessageTest, ReadsProgressAndErrors) {
  auto p = ParsePullMessage(R"({"status":"Downloading","progressDetail":{"current":1048576,"total":4194304},"id":"a1b2"})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->status, "Downloading");
  EXPECT_EQ(p->id, "a1b2");
  EXPECT_EQ(p->current, 1048576);
  EXPECT_EQ(p->total, 4194304);
  auto e = ParsePullMessage(R"({"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->error, "manifest unknown");
  EXPECT_EQ(ParsePullMessage(R"({"errorDetail":{"message":"denied"}})")->error, "denied");
  EXPECT_FALSE(ParsePullMessage("not json").ok());
}

TEST(PullReporterTest, SaysEachStatusOnceAndProgressAtARate) {
  std::vector<std::string> lines;
  PullReporter r([&](std::string l) { lines.push_back(std::move(l)); }, std::chrono::seconds(1));
  auto t0 = std::chrono::steady_clock::time_point{};
  r.Add({.status = "Pulling from det-test/python"}, t0);
  r.Add({.status = "Pulling fs layer", .id = "L1"}, t0);
  r.Add({.status = "Pulling fs layer", .id = "L1"}, t0);
  r.Add({.status = "Downloading", .id = "L1", .current = 1000000, .total = 4000000}, t0);
  r.Add({.status = "Downloading", .id = "L1", .current = 2000000, .total = 4000000}, t0 + std::chrono::milliseconds(500));
  r.Add({.status = "Downloading", .id = "L1", .current = 3000000, .total = 4000000}, t0 + std::chrono::milliseconds(1200));
  r.Add({.status = "Pull complete", .id = "L1"}, t0 + std::chrono::seconds(2));
  r.Add({.error = "unauthorized: authentication required"}, t0 + std::chrono::seconds(2));
  EXPECT_THAT(lines, ElementsAre("Pulling from det-test/python", "L1: Pulling fs layer",
                                 "L1: Downloading 1.0/4.0 MB (25%)", "L1: Downloading 3.0/4.0 MB (75%)",
                                 "L1: Pull complete", "Error pulling the image: unauthorized: authentication required"));
}

}  // namespace
}  // namespace det::agent
