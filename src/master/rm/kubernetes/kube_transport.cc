#include "master/rm/kubernetes/kube_transport.h"

#include <curl/curl.h>

#include <charconv>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/version.h"

namespace det::master::kube {

namespace {

constexpr size_t kMaxIdleSessions = 8;
constexpr size_t kMaxStreamErrorBody = 64 * 1024;
constexpr long kKeepAliveIdleSeconds = 30;  // TCP keepalive: finds a peer gone silently
constexpr long kKeepAliveIntervalSeconds = 10;

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

struct CurlSessionPool {
  // A transfer's handle with the multi handle that runs it. The multi handle owns the connection
  // cache, so a session keeps its connections from one exchange to the next.
  struct Session {
    CURLM* multi = nullptr;
    CURL* easy = nullptr;
  };

  absl::Mutex mu;
  std::vector<Session> idle ABSL_GUARDED_BY(mu);

  Session Take() {
    {
      absl::MutexLock lock(&mu);
      if (!idle.empty()) {
        Session s = idle.back();
        idle.pop_back();
        return s;
      }
    }
    return Session{.multi = curl_multi_init(), .easy = curl_easy_init()};
  }

  void Give(Session s) {
    {
      absl::MutexLock lock(&mu);
      if (idle.size() < kMaxIdleSessions) {
        idle.push_back(s);
        return;
      }
    }
    Destroy(s);
  }

  static void Destroy(Session s) {
    curl_easy_cleanup(s.easy);
    curl_multi_cleanup(s.multi);
  }

  ~CurlSessionPool() {
    absl::MutexLock lock(&mu);
    for (Session s : idle) Destroy(s);
  }
};

namespace {

// What the callbacks of one exchange share.
struct Exchange {
  CURL* easy;
  const HttpRequest* request;
  HttpReply* reply;
  bool receiver_ended = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t len = size * n;
  long code = 0;
  curl_easy_getinfo(ex->easy, CURLINFO_RESPONSE_CODE, &code);
  if (!ex->request->on_body) {
    ex->reply->body.append(data, len);
  } else if (code >= 200 && code < 300) {
    if (!ex->request->on_body(std::string_view(data, len))) {
      ex->receiver_ended = true;
      return 0;  // ends the transfer
    }
  } else if (ex->reply->body.size() < kMaxStreamErrorBody) {
    ex->reply->body.append(data, std::min(len, kMaxStreamErrorBody - ex->reply->body.size()));
  }
  return len;
}

// Reads Retry-After (in seconds; the HTTP-date form is ignored). A status line starts a new
// header block (after a 100 Continue), whose Retry-After counts alone.
size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* reply = static_cast<HttpReply*>(user);
  absl::string_view line(data, size * n);
  constexpr absl::string_view kRetryAfter = "retry-after:";
  if (absl::StartsWith(line, "HTTP/")) {
    reply->retry_after.reset();
  } else if (line.size() > kRetryAfter.size() &&
             absl::EqualsIgnoreCase(line.substr(0, kRetryAfter.size()), kRetryAfter)) {
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(kRetryAfter.size()));
    long seconds = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc() && end == value.data() + value.size() && seconds >= 0) {
      reply->retry_after = std::chrono::seconds(seconds);
    }
  }
  return size * n;
}

void SetBlob(CURL* easy, CURLoption option, const std::string& data) {
  curl_blob blob{
      .data = const_cast<char*>(data.data()), .len = data.size(), .flags = CURL_BLOB_COPY};
  curl_easy_setopt(easy, option, &blob);
}

void SetTls(CURL* easy, const KubeConnection& c) {
  if (c.insecure_skip_tls_verify) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!c.ca_data_pem.empty()) {
    SetBlob(easy, CURLOPT_CAINFO_BLOB, c.ca_data_pem);
  } else if (!c.ca_file.empty()) {
    curl_easy_setopt(easy, CURLOPT_CAINFO, c.ca_file.c_str());
  }
  if (!c.client_cert_pem.empty()) {
    SetBlob(easy, CURLOPT_SSLCERT_BLOB, c.client_cert_pem);
  } else if (!c.client_cert_file.empty()) {
    curl_easy_setopt(easy, CURLOPT_SSLCERT, c.client_cert_file.c_str());
  }
  curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
  if (!c.client_key_pem.empty()) {
    SetBlob(easy, CURLOPT_SSLKEY_BLOB, c.client_key_pem);
  } else if (!c.client_key_file.empty()) {
    curl_easy_setopt(easy, CURLOPT_SSLKEY, c.client_key_file.c_str());
  }
  curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
}

HttpOutcome OutcomeOf(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return HttpOutcome::kReplied;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      return HttpOutcome::kNotSent;
    case CURLE_OPERATION_TIMEDOUT:
      return HttpOutcome::kTimedOut;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
      return HttpOutcome::kTlsFailed;
    default:
      return HttpOutcome::kBroken;
  }
}

}  // namespace

KubeTransport::KubeTransport(const KubeConnection& connection, std::chrono::seconds connect_timeout)
    : tls_(connection),
      connect_timeout_(connect_timeout),
      pool_(std::make_unique<CurlSessionPool>()) {
  GlobalInitOnce();
  tls_.token.clear();  // only the TLS fields are kept
}

KubeTransport::~KubeTransport() = default;

HttpReply KubeTransport::Perform(const HttpRequest& request) {
  HttpReply reply;
  if (request.stop != nullptr && request.stop->load()) {
    reply.outcome = HttpOutcome::kStopped;
    return reply;
  }
  CurlSessionPool::Session session = pool_->Take();
  CURL* easy = session.easy;
  curl_easy_reset(easy);  // keeps the session's connections
  Exchange exchange{.easy = easy, .request = &request, .reply = &reply};
  char errbuf[CURL_ERROR_SIZE] = "";
  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip before a body
  std::string user_agent = absl::StrCat("determined-master/", kVersion);

  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, user_agent.c_str());
  if (request.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method != "DELETE") {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
  }
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode (gzip)
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::chrono::milliseconds(connect_timeout_).count()));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::chrono::milliseconds(request.timeout).count()));
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, kKeepAliveIdleSeconds);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, kKeepAliveIntervalSeconds);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &exchange);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &reply);
  SetTls(easy, tls_);

  // The multi interface, so that `stop` is looked at every kStopCheckInterval even while the
  // server sends nothing (a quiet watch, a log follow).
  curl_multi_add_handle(session.multi, easy);
  const int poll_ms = static_cast<int>(request.stop != nullptr ? kStopCheckInterval.count() : 1000);
  CURLcode result = CURLE_OK;
  bool stopped = false;
  for (;;) {
    int running = 0;
    CURLMcode mc = curl_multi_perform(session.multi, &running);
    if (mc == CURLM_OK && running == 0) {
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(session.multi, &queued)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) result = msg->data.result;
      }
      break;
    }
    if (mc == CURLM_OK && request.stop != nullptr && request.stop->load()) {
      stopped = true;
      break;
    }
    if (mc == CURLM_OK) mc = curl_multi_poll(session.multi, nullptr, 0, poll_ms, nullptr);
    if (mc != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      snprintf(errbuf, sizeof(errbuf), "%s", curl_multi_strerror(mc));
      break;
    }
  }
  long code = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  reply.status = static_cast<int>(code);
  curl_off_t connect_time = 0;
  curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_time);
  curl_multi_remove_handle(session.multi, easy);         // halts an unfinished transfer
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, nullptr);  // errbuf dies with this call
  curl_slist_free_all(headers);
  pool_->Give(session);

  if (stopped) {
    reply.outcome = HttpOutcome::kStopped;
  } else if (exchange.receiver_ended) {
    reply.outcome = HttpOutcome::kReceiverEnded;
  } else if (result == CURLE_OPERATION_TIMEDOUT && connect_time == 0) {
    reply.outcome = HttpOutcome::kNotSent;  // the connect timeout: no connection, nothing sent
  } else {
    reply.outcome = OutcomeOf(result);
  }
  if (result != CURLE_OK) reply.error = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(result);
  return reply;
}

}  // namespace det::master::kube
