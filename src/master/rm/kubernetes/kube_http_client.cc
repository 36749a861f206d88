#include "master/rm/kubernetes/kube_http_client.h"

#include <algorithm>
#include <optional>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "master/rm/kubernetes/kube_status.h"
#include "master/rm/kubernetes/kube_transport.h"
#include "master/rm/kubernetes/line_splitter.h"

namespace det::master::kube {

using nlohmann::json;

// One call to the API server, as the retries and error messages need it.
struct KubeHttpClient::Call {
  std::string method;
  std::string path;
  std::string query;         // "a=b&c=d", values escaped
  std::string body;          // JSON
  const char* content_type;  // of the body; nullptr = none
  const char* accept;
  bool idempotent;  // may be sent again after a 5xx or a broken connection

  std::string Name() const { return absl::StrCat(method, " ", path); }
};

namespace {

constexpr char kJson[] = "application/json";
constexpr char kMergePatch[] = "application/merge-patch+json";
// Log replies are text; errors still come as a Status object.
constexpr char kJsonOrAnything[] = "application/json, */*";
constexpr size_t kMaxLogLine = 1 << 20;
constexpr size_t kMaxQuotedEvent = 200;

void AddParam(std::string& query, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  if (!query.empty()) query += '&';
  absl::StrAppend(&query, std::string(name), "=", client::UrlEncode(value));
}

bool IsSuccess(const HttpReply& reply) {
  return reply.outcome == HttpOutcome::kReplied && reply.status >= 200 && reply.status < 300;
}

// How long to wait before trying a call again after `reply`, its `attempt`th try; nullopt: not
// again (kube_http_client.h lists the rules).
std::optional<std::chrono::milliseconds> RetryDelay(const HttpReply& reply, bool idempotent,
                                                    int attempt, const KubeHttpOptions& options) {
  if (attempt >= options.max_attempts) return std::nullopt;
  std::chrono::milliseconds backoff = options.first_backoff * (1 << std::min(attempt - 1, 16));
  switch (reply.outcome) {
    case HttpOutcome::kNotSent:
      return backoff;
    case HttpOutcome::kBroken:
      return idempotent ? std::optional(backoff) : std::nullopt;
    case HttpOutcome::kReplied:
      break;
    default:
      return std::nullopt;
  }
  if (reply.status == 429 || reply.status == 503) {
    if (reply.retry_after && *reply.retry_after > std::chrono::seconds(0)) {
      return std::chrono::milliseconds(std::min(*reply.retry_after, options.max_retry_after));
    }
    return backoff;
  }
  if (idempotent && (reply.status == 500 || reply.status == 502 || reply.status == 504)) {
    return backoff;
  }
  return std::nullopt;
}

int WatchTimeoutSeconds(std::chrono::seconds base) {
  thread_local std::mt19937 random(std::random_device{}());
  int seconds = static_cast<int>(base.count());
  return seconds + std::uniform_int_distribution<int>(0, std::max(seconds / 5, 0))(random);
}

std::string Quoted(std::string_view text) {
  if (text.size() <= kMaxQuotedEvent) return std::string(text);
  return absl::StrCat(std::string(text.substr(0, kMaxQuotedEvent)), "...");
}

}  // namespace

KubeHttpClient::KubeHttpClient(KubeConnection connection, KubeHttpOptions options)
    : connection_(std::move(connection)),
      options_(std::move(options)),
      server_(connection_.server),
      transport_(std::make_unique<KubeTransport>(connection_, options_.connect_timeout)),
      token_(connection_.token),
      token_read_at_(std::chrono::steady_clock::now()) {
  while (!server_.empty() && server_.back() == '/') server_.pop_back();
  if (!options_.sleep) {
    options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  }
}

KubeHttpClient::~KubeHttpClient() = default;

std::string KubeHttpClient::Token() {
  if (connection_.token_file.empty()) return connection_.token;
  absl::MutexLock lock(&token_mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - token_read_at_ >= options_.token_file_refresh) {
    token_read_at_ = now;
    // A failed read keeps the token we have: the kubelet replaces the file atomically, so this is
    // a passing problem or one the server will report (401).
    absl::StatusOr<std::string> text = ReadFile(connection_.token_file);
    if (text.ok()) {
      std::string token(absl::StripAsciiWhitespace(*text));
      if (!token.empty()) token_ = std::move(token);
    }
  }
  return token_;
}

std::string KubeHttpClient::Url(const Call& call) const {
  return call.query.empty() ? absl::StrCat(server_, call.path)
                            : absl::StrCat(server_, call.path, "?", call.query);
}

HttpRequest KubeHttpClient::Request(const Call& call) {
  HttpRequest request;
  request.method = call.method;
  request.url = Url(call);
  request.headers.push_back(absl::StrCat("Accept: ", call.accept));
  if (call.content_type != nullptr) {
    request.headers.push_back(absl::StrCat("Content-Type: ", call.content_type));
  }
  if (std::string token = Token(); !token.empty()) {
    request.headers.push_back(absl::StrCat("Authorization: Bearer ", token));
  }
  request.body = call.body;
  return request;
}

bool KubeHttpClient::Wait(std::chrono::milliseconds delay, const std::atomic<bool>* stop) {
  if (stop == nullptr) {
    options_.sleep(delay);
    return true;
  }
  while (delay > std::chrono::milliseconds(0)) {
    if (stop->load()) return false;
    std::chrono::milliseconds slice = std::min(delay, kStopCheckInterval);
    options_.sleep(slice);
    delay -= slice;
  }
  return !stop->load();
}

HttpReply KubeHttpClient::Perform(const Call& call, HttpRequest request,
                                  const std::function<bool()>& ready_to_retry,
                                  const std::atomic<bool>* stop) {
  for (int attempt = 1;; ++attempt) {
    HttpReply reply = transport_->Perform(request);
    if (IsSuccess(reply)) return reply;
    std::optional<std::chrono::milliseconds> delay =
        RetryDelay(reply, call.idempotent, attempt, options_);
    if (!delay || (ready_to_retry && !ready_to_retry()) || !Wait(*delay, stop)) return reply;
    request.headers = Request(call).headers;  // the token may have been renewed
  }
}

absl::Status KubeHttpClient::StatusOf(const HttpReply& reply, const Call& call,
                                      std::chrono::seconds timeout) const {
  std::string name = call.Name();
  switch (reply.outcome) {
    case HttpOutcome::kReplied:
      return StatusFromKubeReply(reply.status, reply.body, name);
    case HttpOutcome::kNotSent:
    case HttpOutcome::kBroken:
      return absl::UnavailableError(absl::StrCat("cannot reach the Kubernetes API server at ",
                                                 server_, ": ", reply.error, " (", name, ")"));
    case HttpOutcome::kTimedOut:
      return absl::UnavailableError(absl::StrCat("the Kubernetes API server at ", server_,
                                                 " did not answer within ", timeout.count(), " s (",
                                                 name, ")"));
    case HttpOutcome::kTlsFailed:
      return absl::UnavailableError(absl::StrCat(
          "TLS with the Kubernetes API server at ", server_, " failed: ", reply.error,
          "; check the kubeconfig's certificate-authority(-data), client certificate and key, or "
          "insecure-skip-tls-verify (",
          name, ")"));
    case HttpOutcome::kStopped:
    case HttpOutcome::kReceiverEnded:
      break;
  }
  return absl::CancelledError(absl::StrCat(name, " was stopped"));
}

absl::StatusOr<json> KubeHttpClient::Send(const Call& call) {
  HttpRequest request = Request(call);
  request.timeout = options_.request_timeout;
  HttpReply reply = Perform(call, std::move(request), nullptr, nullptr);
  if (!IsSuccess(reply)) return StatusOf(reply, call, options_.request_timeout);
  if (reply.body.empty()) return json::object();
  absl::StatusOr<json> parsed = ParseJson(reply.body);
  if (!parsed.ok()) {
    return absl::InternalError(absl::StrCat("the Kubernetes API server's reply to ", call.Name(),
                                            " is not JSON: ", parsed.status().message()));
  }
  return parsed;
}

absl::StatusOr<json> KubeHttpClient::Create(std::string_view collection, const json& object) {
  return Send(Call{.method = "POST",
                   .path = std::string(collection),
                   .query = "",
                   .body = DumpJson(object),
                   .content_type = kJson,
                   .accept = kJson,
                   .idempotent = false});
}

absl::StatusOr<json> KubeHttpClient::Get(std::string_view item) {
  return Send(Call{.method = "GET",
                   .path = std::string(item),
                   .query = "",
                   .body = "",
                   .content_type = nullptr,
                   .accept = kJson,
                   .idempotent = true});
}

absl::StatusOr<json> KubeHttpClient::List(std::string_view collection, const ListOptions& options) {
  std::string query;
  AddParam(query, "labelSelector", options.label_selector);
  AddParam(query, "fieldSelector", options.field_selector);
  return Send(Call{.method = "GET",
                   .path = std::string(collection),
                   .query = query,
                   .body = "",
                   .content_type = nullptr,
                   .accept = kJson,
                   .idempotent = true});
}

absl::StatusOr<json> KubeHttpClient::Patch(std::string_view item, const json& merge_patch) {
  return Send(Call{.method = "PATCH",
                   .path = std::string(item),
                   .query = "",
                   .body = DumpJson(merge_patch),
                   .content_type = kMergePatch,
                   .accept = kJson,
                   .idempotent = true});
}

absl::Status KubeHttpClient::Delete(std::string_view item, std::string_view propagation_policy) {
  json options = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!propagation_policy.empty()) options["propagationPolicy"] = std::string(propagation_policy);
  return Send(Call{.method = "DELETE",
                   .path = std::string(item),
                   .query = "",
                   .body = DumpJson(options),
                   .content_type = kJson,
                   .accept = kJson,
                   .idempotent = true})
      .status();
}

absl::Status KubeHttpClient::Watch(std::string_view collection, const ListOptions& options,
                                   const std::string& resource_version,
                                   const std::function<void(const WatchEvent&)>& on_event,
                                   const std::atomic<bool>& stop) {
  int timeout_seconds = WatchTimeoutSeconds(options_.watch_timeout);
  std::string query = "watch=true&allowWatchBookmarks=true";
  AddParam(query, "timeoutSeconds", std::to_string(timeout_seconds));
  AddParam(query, "resourceVersion", resource_version);
  AddParam(query, "labelSelector", options.label_selector);
  AddParam(query, "fieldSelector", options.field_selector);
  Call call{.method = "GET",
            .path = std::string(collection),
            .query = query,
            .body = "",
            .content_type = nullptr,
            .accept = kJson,
            .idempotent = true};

  absl::Status ended;  // why the stream was ended here (an ERROR event, a malformed one)
  bool delivered = false;
  LineSplitter lines;
  LineSplitter::OnLine on_line = [&](std::string_view line) {
    if (absl::StripAsciiWhitespace(absl::string_view(line.data(), line.size())).empty()) {
      return true;
    }
    json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) {
      ended = absl::InternalError(
          absl::StrCat("a malformed watch event from ", call.Name(), ": ", Quoted(line)));
      return false;
    }
    std::string type = event["type"].get<std::string>();
    json object = event.contains("object") ? std::move(event["object"]) : json();
    if (type == "ERROR") {
      ended = StatusFromWatchError(object, call.Name());
      return false;
    }
    delivered = true;
    on_event(WatchEvent{.type = std::move(type), .object = std::move(object)});
    return !stop.load();
  };

  const std::chrono::seconds timeout = std::chrono::seconds(timeout_seconds) + options_.watch_grace;
  HttpRequest request = Request(call);
  request.timeout = timeout;
  request.on_body = [&](std::string_view piece) { return lines.Feed(piece, on_line); };
  request.stop = &stop;
  auto ready_to_retry = [&] {
    lines = LineSplitter();  // drops what a broken try left of an event
    return !delivered;
  };
  HttpReply reply = Perform(call, std::move(request), ready_to_retry, &stop);
  if (stop.load()) return absl::CancelledError(absl::StrCat(call.Name(), " was stopped"));
  if (!ended.ok()) return ended;
  if (IsSuccess(reply)) {
    lines.Finish(on_line);  // a last event without its newline
    if (stop.load()) return absl::CancelledError(absl::StrCat(call.Name(), " was stopped"));
    return ended;
  }
  if (reply.outcome == HttpOutcome::kTimedOut) {
    return absl::UnavailableError(absl::StrCat("the Kubernetes API server did not end the watch ",
                                               call.Name(), " within ", timeout_seconds,
                                               " s (its timeoutSeconds) plus ",
                                               options_.watch_grace.count(), " s; ended it here"));
  }
  if (reply.outcome == HttpOutcome::kBroken && delivered) {
    return absl::UnavailableError(
        absl::StrCat("the watch stream ", call.Name(), " broke: ", reply.error));
  }
  return StatusOf(reply, call, timeout);
}

absl::Status KubeHttpClient::Logs(std::string_view pod, const LogOptions& options,
                                  const std::function<void(std::string_view line)>& on_line,
                                  const std::atomic<bool>& stop) {
  std::string query;
  AddParam(query, "container", options.container);
  if (options.follow) AddParam(query, "follow", "true");
  if (options.timestamps) AddParam(query, "timestamps", "true");
  AddParam(query, "sinceTime", options.since_time);
  Call call{.method = "GET",
            .path = std::string(pod) + "/log",
            .query = query,
            .body = "",
            .content_type = nullptr,
            .accept = kJsonOrAnything,
            .idempotent = true};

  bool delivered = false;
  LineSplitter lines(kMaxLogLine);
  LineSplitter::OnLine deliver = [&](std::string_view line) {
    delivered = true;
    on_line(line);
    return !stop.load();
  };
  HttpRequest request = Request(call);
  request.on_body = [&](std::string_view piece) { return lines.Feed(piece, deliver); };
  request.stop = &stop;
  auto ready_to_retry = [&] {
    lines = LineSplitter(kMaxLogLine);  // drops what a broken try left of a line
    return !delivered;
  };
  HttpReply reply = Perform(call, std::move(request), ready_to_retry, &stop);
  if (stop.load()) return absl::CancelledError(absl::StrCat(call.Name(), " was stopped"));
  if (IsSuccess(reply)) {
    lines.Finish(deliver);  // a last line without its newline
    return absl::OkStatus();
  }
  if (reply.outcome == HttpOutcome::kBroken && delivered) {
    return absl::UnavailableError(
        absl::StrCat("the log stream ", call.Name(), " broke: ", reply.error));
  }
  return StatusOf(reply, call, std::chrono::seconds(0));
}

}  // namespace det::master::kube
