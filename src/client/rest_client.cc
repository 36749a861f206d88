#include "client/rest_client.h"

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/errors.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::client {

// The client's open sockets (libcurl opens and closes them through the callbacks below), so that
// Cancel() on another thread can shut them down: a transfer blocked on one (a long poll) ends at once.
// Sockets close under the lock, so a shut-down number always still belongs to this client.
struct RestClientSockets {
  std::mutex mu;
  std::vector<curl_socket_t> open;  // guarded by mu
  bool cancelled = false;           // guarded by mu; no new connection after Cancel()
};

namespace {

curl_socket_t OpenSocket(void* sockets, curlsocktype, curl_sockaddr* addr) {
  auto* s = static_cast<RestClientSockets*>(sockets);
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->cancelled) return CURL_SOCKET_BAD;
  curl_socket_t fd = socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
  if (fd != CURL_SOCKET_BAD) s->open.push_back(fd);
  return fd;
}

int CloseSocket(void* sockets, curl_socket_t fd) {
  auto* s = static_cast<RestClientSockets*>(sockets);
  std::lock_guard<std::mutex> lock(s->mu);
  std::erase(s->open, fd);
  return close(fd);
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlHeaders {
  curl_slist* list = nullptr;
  ~CurlHeaders() { curl_slist_free_all(list); }
  void Add(const std::string& h) { list = curl_slist_append(list, h.c_str()); }
};

size_t AppendToString(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// Splits a streamed body into lines and hands each to a callback; a false return aborts the transfer.
struct LineSplitter {
  std::string pending;
  std::function<bool(std::string_view)> on_line;
  bool stopped = false;
};

size_t SplitLines(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<LineSplitter*>(user);
  s->pending.append(data, size * n);
  size_t start = 0;
  for (size_t nl; (nl = s->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (!s->on_line(std::string_view(s->pending).substr(start, nl - start))) {
      s->stopped = true;
      return 0;  // abort
    }
  }
  s->pending.erase(0, start);
  return size * n;
}

// libcurl's progress hook runs during every transfer (at least once a second while idle): it ends the
// transfer once the client is cancelled (a transfer that is not blocked on a socket Cancel() shut down).
int AbortWhenCancelled(void* cancelled, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<std::atomic<bool>*>(cancelled)->load() ? 1 : 0;
}

// CURLOPT_SSL_CTX_FUNCTION (OpenSSL backend): makes OpenSSL's chain verification also require the
// name in `name` (a C string), which stands in for the URL's host. curl's own host check is off then.
CURLcode RequireCertName(CURL*, void* ssl_ctx, void* name) {
  const char* n = static_cast<const char*>(name);
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(static_cast<SSL_CTX*>(ssl_ctx));
  // An IP address must match an IP SAN; anything else is a DNS name.
  if (X509_VERIFY_PARAM_set1_ip_asc(param, n) != 1) {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_host(param, n, 0) != 1) return CURLE_SSL_CERTPROBLEM;
  }
  return CURLE_OK;
}

// Applies what every call shares: cancellation, timeouts, no signals, TLS verification.
void SetCommonOptions(CURL* curl, std::atomic<bool>* cancelled, RestClientSockets* sockets,
                      long timeout_seconds, const TlsOptions& tls, char* errbuf) {
  errbuf[0] = '\0';
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, OpenSocket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, sockets);
  curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, CloseSocket);
  curl_easy_setopt(curl, CURLOPT_CLOSESOCKETDATA, sockets);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  if (tls.no_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else {
    if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
    if (!tls.cert_name.empty()) {
      curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
      curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, RequireCertName);
      curl_easy_setopt(curl, CURLOPT_SSL_CTX_DATA, const_cast<char*>(tls.cert_name.c_str()));
    }
  }
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, AbortWhenCancelled);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, cancelled);
}

absl::Status TransportError(CURLcode rc, const std::string& master_url, const char* errbuf) {
  if (rc == CURLE_ABORTED_BY_CALLBACK) return absl::CancelledError("the call to the master was cancelled");
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return absl::DeadlineExceededError(absl::StrCat("the master at ", master_url, " did not answer in time"));
  }
  std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot verify the TLS certificate of the master at ", master_url, ": ", detail,
        "; set DET_MASTER_CERT_FILE to the master's certificate (or its CA) file, DET_MASTER_CERT_NAME "
        "to the name in it, or DET_MASTER_CERT_FILE=noverify to skip verification"));
  }
  std::string hint;
  if (rc == CURLE_GOT_NOTHING && absl::StartsWith(master_url, "http://")) {
    hint = " (if the master serves HTTPS, use an https:// URL)";
  } else if (rc == CURLE_SSL_CONNECT_ERROR && absl::StartsWith(master_url, "https://")) {
    hint = " (if the master serves plain HTTP, use an http:// URL)";
  } else if (rc == CURLE_COULDNT_CONNECT) {
    hint = "; is it running? (det deploy local cluster-up), or set DET_MASTER / -m to its URL";
  } else if (rc == CURLE_COULDNT_RESOLVE_HOST) {
    hint = "; check the host name in DET_MASTER / -m";
  }
  return absl::UnavailableError(absl::StrCat("cannot reach the master at ", master_url, ": ", detail, hint));
}

}  // namespace

std::string UrlEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

TlsOptions TlsOptions::FromEnvironment() {
  TlsOptions tls;
  if (const char* file = std::getenv("DET_MASTER_CERT_FILE"); file != nullptr && *file != '\0') {
    if (std::string_view(file) == "noverify") {
      tls.no_verify = true;
    } else {
      tls.ca_file = file;
    }
  }
  if (const char* name = std::getenv("DET_MASTER_CERT_NAME"); name != nullptr) tls.cert_name = name;
  return tls;
}

RestClient::RestClient(std::string master_url, Credentials credentials, TlsOptions tls)
    : master_url_(std::move(master_url)),
      credentials_(std::move(credentials)),
      tls_(std::move(tls)),
      sockets_(std::make_unique<RestClientSockets>()) {
  GlobalInitOnce();
  if (!absl::StartsWith(master_url_, "http://") && !absl::StartsWith(master_url_, "https://")) {
    master_url_ = "http://" + master_url_;
  }
  while (!master_url_.empty() && master_url_.back() == '/') master_url_.pop_back();
  curl_ = curl_easy_init();
}

RestClient::~RestClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

void RestClient::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(sockets_->mu);
  sockets_->cancelled = true;
  for (curl_socket_t fd : sockets_->open) shutdown(fd, SHUT_RDWR);
}

absl::StatusOr<RawResponse> RestClient::Send(std::string_view method, std::string_view path,
                                             std::string_view body) {
  if (cancelled_) return absl::CancelledError("the call to the master was cancelled");
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  std::string url = master_url_ + std::string(path);
  RawResponse resp;
  CurlHeaders headers;
  headers.Add("Content-Type: application/json");
  headers.Add("Accept: application/json");
  if (!credentials_.user_token.empty()) headers.Add("Authorization: Bearer " + credentials_.user_token);
  if (!credentials_.allocation_token.empty()) {
    headers.Add("Grpc-Metadata-x-allocation-token: Bearer " + credentials_.allocation_token);
  }
  std::string method_str(method);
  std::string body_str(body);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method_str.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  char errbuf[CURL_ERROR_SIZE];
  SetCommonOptions(curl, &cancelled_, sockets_.get(), timeout_seconds_, tls_, errbuf);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp.body);
  if (method != "GET" && (method != "DELETE" || !body.empty())) {  // a DELETE may carry a body (DeleteCheckpoints)
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body_str.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_str.size()));
  }
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // errbuf dies with this call
  if (rc != CURLE_OK) {
    if (cancelled_) return absl::CancelledError("the call to the master was cancelled");
    return TransportError(rc, master_url_, errbuf);
  }
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  resp.status = static_cast<int>(code);
  return resp;
}

absl::StatusOr<nlohmann::json> RestClient::Call(std::string_view method, std::string_view path,
                                                const std::string* body) {
  ASSIGN_OR_RETURN(RawResponse resp, Send(method, path, body != nullptr ? *body : std::string()));
  if (resp.status < 200 || resp.status >= 300) return api::StatusFromErrorResponse(resp.status, resp.body);
  if (resp.body.empty()) return nlohmann::json::object();
  return ParseJson(resp.body);
}

absl::StatusOr<nlohmann::json> RestClient::Get(std::string_view path) { return Call("GET", path, nullptr); }
absl::StatusOr<nlohmann::json> RestClient::Delete(std::string_view path) {
  return Call("DELETE", path, nullptr);
}
absl::StatusOr<nlohmann::json> RestClient::Delete(std::string_view path, const nlohmann::json& body) {
  std::string text = DumpJson(body);
  return Call("DELETE", path, &text);
}
absl::StatusOr<nlohmann::json> RestClient::Post(std::string_view path, const nlohmann::json& body) {
  std::string text = DumpJson(body);
  return Call("POST", path, &text);
}
absl::StatusOr<nlohmann::json> RestClient::Patch(std::string_view path, const nlohmann::json& body) {
  std::string text = DumpJson(body);
  return Call("PATCH", path, &text);
}

absl::StatusOr<nlohmann::json> RestClient::Put(std::string_view path, const nlohmann::json& body) {
  std::string text = DumpJson(body);
  return Call("PUT", path, &text);
}

absl::Status RestClient::Stream(std::string_view path,
                                const std::function<bool(const nlohmann::json&)>& on_result) {
  if (cancelled_) return absl::CancelledError("the call to the master was cancelled");
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  std::string url = master_url_ + std::string(path);
  CurlHeaders headers;
  headers.Add("Accept: application/json");
  if (!credentials_.user_token.empty()) headers.Add("Authorization: Bearer " + credentials_.user_token);
  if (!credentials_.allocation_token.empty()) {
    headers.Add("Grpc-Metadata-x-allocation-token: Bearer " + credentials_.allocation_token);
  }
  absl::Status stream_status;
  std::string error_body;
  LineSplitter splitter;
  splitter.on_line = [&](std::string_view line) {
    if (line.empty()) return true;
    auto j = ParseJson(line);
    if (!j.ok()) {
      error_body.append(line);  // a non-stream error response
      return true;
    }
    if (j->contains("result")) return on_result((*j)["result"]);
    if (j->contains("error")) {
      const nlohmann::json& e = (*j)["error"];
      std::string msg = e.value("message", e.value("error", std::string("stream error")));
      stream_status = absl::InternalError(msg);
      if (e.contains("code") && e["code"].is_number_integer()) {
        int code = e["code"];
        if (code > 0 && code <= 16) stream_status = absl::Status(static_cast<absl::StatusCode>(code), msg);
      }
      if (e.contains("grpcCode") && e["grpcCode"].is_number_integer()) {
        int code = e["grpcCode"];
        if (code > 0 && code <= 16) stream_status = absl::Status(static_cast<absl::StatusCode>(code), msg);
      }
      return false;
    }
    return true;
  };
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  char errbuf[CURL_ERROR_SIZE];
  SetCommonOptions(curl, &cancelled_, sockets_.get(), 0L, tls_, errbuf);  // streams (log follow) may last as long as the task
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, SplitLines);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &splitter);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // errbuf dies with this call
  if (!splitter.pending.empty() && !splitter.stopped) {
    std::string rest = std::move(splitter.pending);
    splitter.on_line(rest);
  }
  if (rc != CURLE_OK && !splitter.stopped && cancelled_) {
    return absl::CancelledError("the call to the master was cancelled");
  }
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  // An error answer is one JSON document ({"error": ...}), read above like a stream's error line.
  if (code >= 300 && stream_status.ok()) {
    return api::StatusFromErrorResponse(static_cast<int>(code), error_body);
  }
  if (!stream_status.ok()) return stream_status;
  if (rc != CURLE_OK && !splitter.stopped) return TransportError(rc, master_url_, errbuf);
  return absl::OkStatus();
}

}  // namespace det::client
