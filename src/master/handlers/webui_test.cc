#include "master/handlers/webui.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace det::master {
namespace {

namespace fs = std::filesystem;

class WebUiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("webui_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "assets");
    Write("index.html", "<html>index</html>");
    Write("assets/index-abc123.js", "console.log(1)");
    Write("favicon.svg", "<svg/>");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  static std::string Header(const HttpResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(WebUiTest, ServesFilesWithTheirTypesAndCaching) {
  HttpResponse js = ServeWebUiFile(dir_.string(), "assets/index-abc123.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Header(js, "Cache-Control"), "public, max-age=31536000, immutable");

  HttpResponse svg = ServeWebUiFile(dir_.string(), "favicon.svg");
  EXPECT_EQ(svg.content_type, "image/svg+xml");
  EXPECT_EQ(Header(svg, "Cache-Control"), "no-cache");
}

TEST_F(WebUiTest, SendsThePrecompressedFileToClientsThatAcceptGzip) {
  Write("assets/index-abc123.js.gz", "GZ");
  HttpResponse gz = ServeWebUiFile(dir_.string(), "assets/index-abc123.js", /*accept_gzip=*/true);
  EXPECT_EQ(gz.body, "GZ");
  EXPECT_EQ(Header(gz, "Content-Encoding"), "gzip");
  EXPECT_EQ(gz.content_type, "text/javascript; charset=utf-8");
  HttpResponse plain = ServeWebUiFile(dir_.string(), "assets/index-abc123.js", /*accept_gzip=*/false);
  EXPECT_EQ(plain.body, "console.log(1)");
  EXPECT_EQ(Header(plain, "Content-Encoding"), "");
  // No .gz beside it: the file itself.
  EXPECT_EQ(ServeWebUiFile(dir_.string(), "favicon.svg", true).body, "<svg/>");
}

TEST_F(WebUiTest, ClientSideRoutesGetTheIndex) {
  for (const char* rest : {"", "experiments/7", "trials/12/logs", "jobs", "login"}) {
    HttpResponse r = ServeWebUiFile(dir_.string(), rest);
    EXPECT_EQ(r.status, 200) << rest;
    EXPECT_EQ(r.body, "<html>index</html>") << rest;
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8") << rest;
    EXPECT_EQ(Header(r, "Cache-Control"), "no-cache") << rest;
  }
}

TEST_F(WebUiTest, MissingFilesAndEscapesAre404) {
  EXPECT_EQ(ServeWebUiFile(dir_.string(), "assets/gone-123.js").status, 404);
  EXPECT_EQ(ServeWebUiFile(dir_.string(), "../webui_test.cc").status, 404);
  EXPECT_EQ(ServeWebUiFile(dir_.string(), "assets/../../etc/passwd").status, 404);
  EXPECT_EQ(ServeWebUiFile(dir_.string(), "experiments/../index.html").status, 404);
}

TEST_F(WebUiTest, WithoutABuildSaysHowToBuildIt) {
  HttpResponse r = ServeWebUiFile("", "experiments/1");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("make build"), std::string::npos);
}

TEST_F(WebUiTest, FindsTheBuildFromRootOrBesideTheBinary) {
  // {root}/webui
  fs::path root = dir_ / "root";
  fs::create_directories(root / "webui");
  std::ofstream(root / "webui" / "index.html") << "x";
  EXPECT_EQ(FindWebUiDir(root.string(), "/nonexistent/bin/determined-master"), (root / "webui").string());
  EXPECT_EQ(FindWebUiDir((dir_ / "nothing").string(), ""), "");
  // A build tree inside the repository: REPO/build/bin/determined-master and REPO/webui/build.
  fs::path repo = dir_ / "repo";
  fs::create_directories(repo / "build" / "bin");
  fs::create_directories(repo / "webui" / "build");
  std::ofstream(repo / "webui" / "build" / "index.html") << "x";
  EXPECT_EQ(FindWebUiDir("", (repo / "build" / "bin" / "determined-master").string()),
            (repo / "webui" / "build").string());
  EXPECT_EQ(FindWebUiDir("", (dir_ / "elsewhere" / "bin" / "determined-master").string()), "");
}

}  // namespace
}  // namespace det::master
