#pragma once
// The web UI (webui/, a Vite build): static files under /det/, `/` redirecting there. Client-side
// routes (/det/experiments/7, /det/jobs, ...) are answered with index.html, so links people share
// keep working; only paths that name a file (a last segment with an extension) can be 404s.
#include <string>

#include "master/http/router.h"

namespace det::master {

struct MasterContext;  // master_context.h

// Where the built UI is: `{root}/webui` when the master's `root` setting is given (upstream's
// static-files directory), else the first of DIR_OF_BINARY/../share/determined/webui (an install)
// and DIR_OF_BINARY/../../webui/build (a build tree inside the repository) holding index.html.
// "" when none does.
std::string FindWebUiDir(const std::string& root, const std::string& binary_path);

// Answers GET /det/{rest} from `dir` (rest "" is the index). Never reads outside `dir`: a `..`
// segment is a 404. Hashed assets (assets/...) are cacheable forever, index.html never. With
// `accept_gzip`, a FILE.gz beside the file (scripts/build-webui.sh writes them) is sent instead, with
// Content-Encoding: gzip.
HttpResponse ServeWebUiFile(const std::string& dir, const std::string& rest, bool accept_gzip = false);

// GET /, GET /det/* (public: the page itself signs in through /api/v1/auth/login).
void RegisterWebUiRoutes(Router& router, const MasterContext& ctx);

}  // namespace det::master
