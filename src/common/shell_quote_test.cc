#include "common/shell_quote.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace det {
namespace {

// What sh makes of `line`'s words: one "[word]" per argument.
std::string ShWords(const std::string& line) {
  std::string script = "printf '[%s]' " + line;
  FILE* p = ::popen(("sh -c " + ShellQuote(script)).c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

std::string Bracketed(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += "[" + w + "]";
  return s;
}

TEST(ShellQuoteTest, PlainWordsStayAndOthersAreSingleQuoted) {
  EXPECT_EQ(ShellQuote("root@3f2a-b"), "root@3f2a-b");
  EXPECT_EQ(ShellQuote("/home/u/.cache/k"), "/home/u/.cache/k");
  EXPECT_EQ(ShellQuote("StrictHostKeyChecking=no"), "StrictHostKeyChecking=no");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  // Round trip through a real sh.
  std::vector<std::string> words = {"a b", "it's", "$x `y` \"z\"", "", "*", "ok", "%h;|&"};
  EXPECT_EQ(ShWords(ShellJoin(words)), Bracketed(words));
}

}  // namespace
}  // namespace det
