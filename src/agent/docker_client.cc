#include "agent/docker_client.h"

#include <curl/curl.h>

#include <mutex>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "client/rest_client.h"
#include "common/base64.h"

namespace det::agent {

using nlohmann::json;

namespace {

constexpr char kApiBase[] = "http://localhost/v1.41";

struct Transfer {
  CURL* curl = nullptr;
  std::string body;
  const std::function<void(std::string_view)>* on_data = nullptr;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (t->on_data != nullptr && *t->on_data && status >= 200 && status < 300) {
    (*t->on_data)(std::string_view(data, size * n));
  } else {
    t->body.append(data, size * n);
  }
  return size * n;
}

absl::Status StatusFor(long status, const std::string& what, const std::string& body) {
  const std::string message = absl::StrCat(what, ": ", EngineErrorMessage(body));
  if (status == 404) return absl::NotFoundError(message);
  if (status == 409) return absl::FailedPreconditionError(message);
  if (status >= 400 && status < 500) return absl::InvalidArgumentError(message);
  return absl::InternalError(message);
}

}  // namespace

std::string EngineErrorMessage(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return std::string(absl::StripAsciiWhitespace(body.substr(0, 2000)));
}

std::pair<std::string, std::string> SplitImageReference(const std::string& image) {
  if (image.find('@') != std::string::npos) return {image, ""};
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    return {image.substr(0, colon), image.substr(colon + 1)};
  }
  return {image, "latest"};
}

std::string RegistryAuthHeader(const RegistryAuth& auth) {
  json config = json::object();
  std::string username = auth.username;
  std::string password = auth.password;
  if (username.empty() && !auth.auth.empty()) {
    if (absl::StatusOr<std::string> decoded = Base64Decode(auth.auth); decoded.ok()) {
      const size_t colon = decoded->find(':');
      username = decoded->substr(0, colon);
      password = colon == std::string::npos ? "" : decoded->substr(colon + 1);
    }
  }
  if (!username.empty()) config["username"] = username;
  if (!password.empty()) config["password"] = password;
  if (!auth.identity_token.empty()) config["identitytoken"] = auth.identity_token;
  if (!auth.server_address.empty()) config["serveraddress"] = auth.server_address;
  return absl::StrReplaceAll(Base64Encode(config.dump()), {{"+", "-"}, {"/", "_"}});
}

std::string ContainerCreateBody(const ContainerConfig& config) {
  json env = json::array();
  for (const auto& [k, v] : config.env) env.push_back(absl::StrCat(k, "=", v));
  const ContainerSettings& c = config.settings;
  json host = {{"NetworkMode", c.network_mode.empty() ? "host" : c.network_mode},
               {"Binds", c.binds},
               {"CapAdd", c.cap_add},
               {"CapDrop", c.cap_drop},
               {"AutoRemove", false}};
  if (c.shm_size > 0) host["ShmSize"] = c.shm_size;
  json devices = json::array();
  for (const std::string& d : c.devices) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t colon = d.find(':', start);
      parts.push_back(d.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    devices.push_back({{"PathOnHost", parts[0]},
                       {"PathInContainer", parts.size() > 1 ? parts[1] : parts[0]},
                       {"CgroupPermissions", parts.size() > 2 ? parts[2] : "rwm"}});
  }
  host["Devices"] = devices;
  if (!c.gpus.empty()) {
    host["DeviceRequests"] = json::array({{{"Driver", "nvidia"}, {"DeviceIDs", c.gpus}, {"Capabilities", {{"gpu"}}}}});
  }
  json body = {{"Image", c.image},
               {"Entrypoint", config.entrypoint},
               {"Env", env},
               {"Labels", config.labels},
               {"Tty", false},
               {"OpenStdin", false},
               {"AttachStdout", false},
               {"AttachStderr", false},
               {"HostConfig", host}};
  if (!config.user.empty()) body["User"] = config.user;
  if (!config.work_dir.empty()) body["WorkingDir"] = config.work_dir;
  return body.dump();
}

DockerClient::DockerClient(std::string socket_path, std::chrono::milliseconds request_timeout)
    : socket_path_(std::move(socket_path)), request_timeout_(request_timeout) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

absl::StatusOr<DockerClient::Reply> DockerClient::Call(const std::string& method, const std::string& path,
                                                       const std::string& body,
                                                       const std::vector<std::string>& headers,
                                                       const std::function<void(std::string_view)>& on_data,
                                                       bool streaming) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  Transfer t{.curl = curl, .on_data = &on_data};
  curl_slist* list = nullptr;
  for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
  if (!body.empty()) list = curl_slist_append(list, "Content-Type: application/json");
  const std::string url = absl::StrCat(kApiBase, path);
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket_path_.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  if (!streaming) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  if (method == "POST" || method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  CURLcode rc = curl_easy_perform(curl);
  Reply reply;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_easy_cleanup(curl);
  curl_slist_free_all(list);
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("the container engine at ", socket_path_, " did not answer ", method,
                                               " ", path, ": ", errbuf[0] ? errbuf : curl_easy_strerror(rc)));
  }
  reply.body = std::move(t.body);
  return reply;
}

absl::StatusOr<std::string> DockerClient::Describe() {
  absl::StatusOr<Reply> r = Call("GET", "/version", "", {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status != 200) return StatusFor(r->status, "GET /version", r->body);
  json v = json::parse(r->body, nullptr, false);
  if (!v.is_object()) return absl::InternalError(absl::StrCat("GET /version: not JSON: ", r->body.substr(0, 200)));
  std::string name = "container engine";
  if (v.contains("Components") && v["Components"].is_array() && !v["Components"].empty()) {
    name = v["Components"][0].value("Name", name);
  }
  return absl::StrCat(name, " ", v.value("Version", "?"), " (API ", v.value("ApiVersion", "?"), ")");
}

absl::StatusOr<bool> DockerClient::HasImage(const std::string& image) {
  absl::StatusOr<Reply> r = Call("GET", absl::StrCat("/images/", image, "/json"), "", {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status == 200) return true;
  if (r->status == 404) return false;
  return StatusFor(r->status, absl::StrCat("inspecting image ", image), r->body);
}

absl::Status DockerClient::Pull(const std::string& image, const std::optional<RegistryAuth>& auth,
                                const std::function<void(const PullMessage&)>& on_message) {
  auto [from, tag] = SplitImageReference(image);
  std::string path = absl::StrCat("/images/create?fromImage=", client::UrlEncode(from));
  if (!tag.empty()) absl::StrAppend(&path, "&tag=", client::UrlEncode(tag));
  std::vector<std::string> headers;
  if (auth) headers.push_back(absl::StrCat("X-Registry-Auth: ", RegistryAuthHeader(*auth)));
  // One JSON object a line ("\r\n" from dockerd, "\n" from podman); podman reports a failure in it.
  std::string partial;
  std::string failure;
  auto take_line = [&](std::string line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) return;
    absl::StatusOr<PullMessage> m = ParsePullMessage(line);
    if (!m.ok()) return;
    if (!m->error.empty() && failure.empty()) failure = m->error;
    if (on_message) on_message(*m);
  };
  std::function<void(std::string_view)> on_data = [&](std::string_view data) {
    partial.append(data);
    size_t nl;
    while ((nl = partial.find('\n')) != std::string::npos) {
      take_line(partial.substr(0, nl));
      partial.erase(0, nl + 1);
    }
  };
  absl::StatusOr<Reply> r = Call("POST", path, "", headers, on_data, true);
  if (!r.ok()) return r.status();
  take_line(partial);
  if (r->status < 200 || r->status >= 300) {
    absl::Status s = StatusFor(r->status, absl::StrCat("pulling ", image), r->body);
    return r->status == 404 ? s : absl::Status(absl::StatusCode::kFailedPrecondition, s.message());
  }
  if (!failure.empty()) return absl::FailedPreconditionError(absl::StrCat("pulling ", image, ": ", failure));
  return absl::OkStatus();
}

absl::StatusOr<std::string> DockerClient::Create(const ContainerConfig& config) {
  std::string path = "/containers/create";
  if (!config.name.empty()) absl::StrAppend(&path, "?name=", client::UrlEncode(config.name));
  absl::StatusOr<Reply> r = Call("POST", path, ContainerCreateBody(config), {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status != 201) {
    return StatusFor(r->status, absl::StrCat("creating a container of ", config.settings.image), r->body);
  }
  json j = json::parse(r->body, nullptr, false);
  if (!j.is_object() || !j.contains("Id") || !j["Id"].is_string()) {
    return absl::InternalError(absl::StrCat("POST /containers/create: no Id in ", r->body.substr(0, 200)));
  }
  return j["Id"].get<std::string>();
}

absl::StatusOr<int> DockerClient::Start(const std::string& id) {
  absl::StatusOr<Reply> r = Call("POST", absl::StrCat("/containers/", id, "/start"), "", {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status != 204 && r->status != 304) return StatusFor(r->status, "starting the container", r->body);
  absl::StatusOr<Reply> inspected = Call("GET", absl::StrCat("/containers/", id, "/json"), "", {}, nullptr, false);
  if (!inspected.ok()) return inspected.status();
  if (inspected->status != 200) return StatusFor(inspected->status, "inspecting the container", inspected->body);
  json j = json::parse(inspected->body, nullptr, false);
  if (j.is_object() && j.contains("State") && j["State"].is_object()) return j["State"].value("Pid", 0);
  return 0;
}

absl::Status DockerClient::FollowOutput(const std::string& id,
                                        const std::function<void(StdType, std::string_view)>& on_output) {
  MultiplexedStreamDecoder decoder(on_output);
  absl::Status framing = absl::OkStatus();
  std::function<void(std::string_view)> on_data = [&](std::string_view data) {
    if (framing.ok()) framing = decoder.Feed(data);
  };
  absl::StatusOr<Reply> r =
      Call("GET", absl::StrCat("/containers/", id, "/logs?follow=1&stdout=1&stderr=1"), "", {}, on_data, true);
  if (!r.ok()) return r.status();
  if (r->status != 200) return StatusFor(r->status, "following the container's output", r->body);
  return framing;
}

absl::StatusOr<int> DockerClient::Wait(const std::string& id) {
  absl::StatusOr<Reply> r = Call("POST", absl::StrCat("/containers/", id, "/wait"), "", {}, nullptr, true);
  if (!r.ok()) return r.status();
  if (r->status != 200) return StatusFor(r->status, "waiting for the container", r->body);
  json j = json::parse(r->body, nullptr, false);
  if (!j.is_object() || !j.contains("StatusCode") || !j["StatusCode"].is_number_integer()) {
    return absl::InternalError(absl::StrCat("POST /containers/wait: no StatusCode in ", r->body.substr(0, 200)));
  }
  return j["StatusCode"].get<int>();
}

absl::Status DockerClient::Kill(const std::string& id, const std::string& signal) {
  absl::StatusOr<Reply> r =
      Call("POST", absl::StrCat("/containers/", id, "/kill?signal=", signal), "", {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status == 204) return absl::OkStatus();
  // Not running any more: dockerd 409, podman 500 "container state improper".
  if (r->status == 409 || EngineErrorMessage(r->body).find("state improper") != std::string::npos) {
    return absl::OkStatus();
  }
  return StatusFor(r->status, absl::StrCat("sending ", signal, " to the container"), r->body);
}

absl::StatusOr<std::vector<ListedContainer>> DockerClient::List(const std::string& key, const std::string& value) {
  const json filters = {{"label", {absl::StrCat(key, "=", value)}}};
  absl::StatusOr<Reply> r =
      Call("GET", absl::StrCat("/containers/json?all=1&filters=", client::UrlEncode(filters.dump())), "", {}, nullptr,
           false);
  if (!r.ok()) return r.status();
  if (r->status != 200) return StatusFor(r->status, "listing containers", r->body);
  const json listed = json::parse(r->body, nullptr, false);
  if (!listed.is_array()) {
    return absl::InternalError(absl::StrCat("listing containers: not a JSON list: ", r->body.substr(0, 200)));
  }
  std::vector<ListedContainer> out;
  for (const json& c : listed) {
    if (!c.is_object() || !c.contains("Id") || !c["Id"].is_string()) continue;
    ListedContainer item{.id = c["Id"].get<std::string>()};
    if (c.contains("Labels") && c["Labels"].is_object()) {
      for (const auto& [k, v] : c["Labels"].items()) {
        if (v.is_string()) item.labels[k] = v.get<std::string>();
      }
    }
    out.push_back(std::move(item));
  }
  return out;
}

absl::Status DockerClient::Remove(const std::string& id) {
  absl::StatusOr<Reply> r = Call("DELETE", absl::StrCat("/containers/", id, "?force=1&v=1"), "", {}, nullptr, false);
  if (!r.ok()) return r.status();
  if (r->status == 204 || r->status == 404) return absl::OkStatus();
  return StatusFor(r->status, "removing the container", r->body);
}

}  // namespace det::agent
