#include "master/handlers/webui.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/file_util.h"
#include "master/handlers/master_context.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

namespace fs = std::filesystem;

std::string ContentTypeOf(const std::string& path) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"},  {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},         {".map", "application/json"},
      {".svg", "image/svg+xml"},             {".png", "image/png"},
      {".ico", "image/x-icon"},              {".woff2", "font/woff2"},
      {".woff", "font/woff"},                {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [ext, type] : kTypes) {
    if (absl::EndsWith(path, ext)) return type;
  }
  return "application/octet-stream";
}

bool HasIndex(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "index.html", ec);
}

HttpResponse NotFound(const std::string& what) {
  return HttpResponse{.status = 404, .content_type = "text/plain; charset=utf-8", .body = what + " not found\n"};
}

}  // namespace

std::string FindWebUiDir(const std::string& root, const std::string& binary_path) {
  if (!root.empty()) {
    fs::path dir = fs::path(root) / "webui";
    return HasIndex(dir) ? dir.lexically_normal().string() : "";
  }
  if (binary_path.empty()) return "";
  fs::path bin_dir = fs::path(binary_path).parent_path();
  for (fs::path dir : {bin_dir / ".." / "share" / "determined" / "webui", bin_dir / ".." / ".." / "webui" / "build"}) {
    if (HasIndex(dir)) return dir.lexically_normal().string();
  }
  return "";
}

HttpResponse ServeWebUiFile(const std::string& dir, const std::string& rest, bool accept_gzip) {
  if (dir.empty()) {
    return HttpResponse{.status = 404,
                        .content_type = "text/plain; charset=utf-8",
                        .body = "The web UI is not built. Build it with `make build` (webui/: npm ci && npm run "
                                "build), or point the master's `root` setting at a directory holding webui/.\n"};
  }
  std::vector<std::string> segments = absl::StrSplit(rest, '/', absl::SkipEmpty());
  for (const std::string& s : segments) {
    if (s == ".." || s == "." || absl::StrContains(s, '\\')) return NotFound("/det/" + rest);
  }
  const bool names_file = !segments.empty() && absl::StrContains(segments.back(), '.');
  std::string relative = names_file ? rest : "index.html";
  absl::StatusOr<std::string> body = absl::NotFoundError("not read");
  if (accept_gzip) body = ReadFile(fs::path(dir) / (relative + ".gz"));
  const bool gzipped = body.ok();
  if (!gzipped) body = ReadFile(fs::path(dir) / relative);
  if (!body.ok()) {
    // A client-side route whose last segment has a dot (an experiment named "v1.2"?) is not a
    // thing the UI links to; a missing asset must stay a 404 so a stale page notices.
    return NotFound("/det/" + rest);
  }
  HttpResponse resp{.status = 200, .content_type = ContentTypeOf(relative), .body = std::move(*body)};
  if (gzipped) resp.headers.emplace_back("Content-Encoding", "gzip");
  resp.headers.emplace_back("Vary", "Accept-Encoding");
  if (absl::StartsWith(relative, "assets/")) {
    resp.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
  } else {
    resp.headers.emplace_back("Cache-Control", "no-cache");
  }
  return resp;
}

void RegisterWebUiRoutes(Router& router, const MasterContext& ctx) {
  std::error_code ec;
  std::string binary = fs::read_symlink("/proc/self/exe", ec).string();
  std::string dir = FindWebUiDir(ctx.config.root, ec ? "" : binary);
  router.Add("GET", "/", Access::kPublic, [](HttpRequest&, ResponderPtr r) {
    HttpResponse resp{.status = 302, .content_type = "text/plain; charset=utf-8", .body = "/det/\n"};
    resp.headers.emplace_back("Location", "/det/");
    r->Send(std::move(resp));
  });
  router.Add("GET", "/det/*", Access::kPublic, [dir](HttpRequest& req, ResponderPtr r) {
    r->Send(ServeWebUiFile(dir, req.path_params["*"], absl::StrContains(req.Header("accept-encoding"), "gzip")));
  });
}

}  // namespace det::master
