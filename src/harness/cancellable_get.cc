#include "harness/cancellable_get.h"

#include <curl/curl.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/errors.h"
#include "common/json_yaml.h"

namespace det::harness {
namespace {

size_t AppendToString(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

}  // namespace

CancellableGet::CancellableGet(std::string master_url, std::string allocation_token)
    : master_url_(std::move(master_url)), allocation_token_(std::move(allocation_token)) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (!absl::StartsWith(master_url_, "http://") && !absl::StartsWith(master_url_, "https://")) {
    master_url_ = "http://" + master_url_;
  }
  while (!master_url_.empty() && master_url_.back() == '/') master_url_.pop_back();
  multi_ = curl_multi_init();
  easy_ = curl_easy_init();
}

CancellableGet::~CancellableGet() {
  curl_easy_cleanup(static_cast<CURL*>(easy_));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void CancellableGet::Cancel() {
  cancelled_.store(true);
  curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

absl::StatusOr<nlohmann::json> CancellableGet::Get(const std::string& path, long timeout_seconds) {
  if (cancelled_.load()) return absl::CancelledError("cancelled");
  CURL* easy = static_cast<CURL*>(easy_);
  CURLM* multi = static_cast<CURLM*>(multi_);
  curl_easy_reset(easy);
  std::string url = master_url_ + path;
  std::string body;
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  std::string auth = "Grpc-Metadata-x-allocation-token: Bearer " + allocation_token_;
  if (!allocation_token_.empty()) headers = curl_slist_append(headers, auth.c_str());
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT, timeout_seconds);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &body);
  curl_multi_add_handle(multi, easy);

  CURLcode rc = CURLE_OK;
  bool done = false;
  bool cancelled = false;
  while (!done) {
    if (cancelled_.load()) {
      cancelled = true;
      break;
    }
    int running = 0;
    CURLMcode mc = curl_multi_perform(multi, &running);
    if (mc != CURLM_OK) {
      rc = CURLE_FAILED_INIT;
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
        rc = msg->data.result;
        done = true;
      }
    }
    if (done || running == 0) break;
    // Sleeps until socket activity, a wakeup from Cancel(), or one second.
    curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  curl_multi_remove_handle(multi, easy);
  curl_slist_free_all(headers);
  if (cancelled) return absl::CancelledError(absl::StrCat("GET ", path, " cancelled"));
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return absl::DeadlineExceededError(
        absl::StrCat("GET ", master_url_, path, " timed out after ", timeout_seconds, " s"));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach the master at ", master_url_, ": ", curl_easy_strerror(rc)));
  }
  long code = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code >= 300) return api::StatusFromErrorResponse(static_cast<int>(code), body);
  if (body.empty()) return nlohmann::json::object();
  return ParseJson(body);
}

}  // namespace det::harness
