#include "master/rm/kubernetes/kube_connection.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base64.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::master::kube {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kOutsideClusterHint[] =
    "; outside a Kubernetes cluster, set the Kubernetes resource manager's kubeconfig_path";

// A parsed kubeconfig and where it came from, for relative paths and error messages.
struct Kubeconfig {
  fs::path file;
  json doc;

  absl::Status Error(absl::StatusCode code, const std::string& what) const {
    return absl::Status(code, absl::StrCat("kubeconfig ", file.string(), ": ", what));
  }
  absl::Status Invalid(const std::string& what) const {
    return Error(absl::StatusCode::kInvalidArgument, what);
  }
  // Paths in a kubeconfig are relative to its directory, as kubectl reads them.
  fs::path Resolve(const std::string& path) const {
    fs::path p(path);
    return p.is_absolute() ? p : file.parent_path() / p;
  }
};

std::vector<std::string> EntryNames(const json& list) {
  std::vector<std::string> names;
  if (!list.is_array()) return names;
  for (const json& entry : list) {
    if (entry.is_object() && entry.contains("name") && entry["name"].is_string()) {
      names.push_back(entry["name"].get<std::string>());
    }
  }
  return names;
}

// The `key` object ("cluster", "user", "context") of the entry of `section` named `name`; null
// when that entry has none (a user with no credentials).
absl::StatusOr<json> FindEntry(const Kubeconfig& kc, const std::string& section,
                               const std::string& key, const std::string& name,
                               const std::string& named_by) {
  const json* list = kc.doc.contains(section) ? &kc.doc[section] : nullptr;
  if (list != nullptr && !list->is_null() && !list->is_array()) {
    return kc.Invalid(absl::StrCat(section, " must be a list"));
  }
  if (list != nullptr && list->is_array()) {
    for (const json& entry : *list) {
      if (entry.is_object() && entry.value("name", json()) == name) {
        json inner = entry.contains(key) ? entry[key] : json();
        if (!inner.is_null() && !inner.is_object()) {
          return kc.Invalid(absl::StrCat(section, "[\"", name, "\"].", key, " must be a map"));
        }
        return inner;
      }
    }
  }
  std::vector<std::string> known = list != nullptr ? EntryNames(*list) : std::vector<std::string>{};
  return kc.Invalid(absl::StrCat(named_by, " \"", name, "\", which is not among its ", section,
                                 " (", known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
}

// A string field ("" when absent). YAML types plain scalars, so a numeric token reads as its text.
absl::StatusOr<std::string> StringField(const Kubeconfig& kc, const json& obj,
                                        const std::string& key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return std::string();
  const json& v = obj[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return kc.Invalid(absl::StrCat(where, ".", key, " must be a string"));
}

absl::StatusOr<bool> BoolField(const Kubeconfig& kc, const json& obj, const std::string& key,
                               const std::string& where) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return false;
  const json& v = obj[key];
  if (v.is_boolean()) return v.get<bool>();
  if (v == "true") return true;
  if (v == "false") return false;
  return kc.Invalid(absl::StrCat(where, ".", key, " must be true or false, got ", v.dump()));
}

// A file a field names, resolved against the kubeconfig's directory; it must exist.
absl::StatusOr<std::string> FileField(const Kubeconfig& kc, const json& obj, const std::string& key,
                                      const std::string& where) {
  ASSIGN_OR_RETURN(std::string value, StringField(kc, obj, key, where));
  if (value.empty()) return std::string();
  fs::path path = kc.Resolve(value);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return kc.Invalid(
        absl::StrCat(where, ".", key, " names ", path.string(), ", which is not a readable file"));
  }
  return path.string();
}

// A `-data` field: base64 of PEM text.
absl::StatusOr<std::string> PemDataField(const Kubeconfig& kc, const json& obj,
                                         const std::string& key, const std::string& where) {
  ASSIGN_OR_RETURN(std::string value, StringField(kc, obj, key, where));
  if (value.empty()) return std::string();
  absl::StatusOr<std::string> pem = Base64Decode(std::string(absl::StripAsciiWhitespace(value)));
  if (!pem.ok()) return kc.Invalid(absl::StrCat(where, ".", key, " is not valid base64"));
  if (!absl::StrContains(*pem, "-----BEGIN ")) {
    return kc.Invalid(
        absl::StrCat(where, ".", key, " does not hold PEM data (no -----BEGIN line)"));
  }
  return *std::move(pem);
}

absl::Status ReadCluster(const Kubeconfig& kc, const std::string& name, KubeConnection& conn) {
  ASSIGN_OR_RETURN(json cluster,
                   FindEntry(kc, "clusters", "cluster", name, "the context names cluster"));
  std::string where = absl::StrCat("clusters[\"", name, "\"].cluster");
  ASSIGN_OR_RETURN(conn.server, StringField(kc, cluster, "server", where));
  if (conn.server.empty()) return kc.Invalid(absl::StrCat(where, ".server is missing"));
  ASSIGN_OR_RETURN(conn.ca_file, FileField(kc, cluster, "certificate-authority", where));
  ASSIGN_OR_RETURN(conn.ca_data_pem,
                   PemDataField(kc, cluster, "certificate-authority-data", where));
  ASSIGN_OR_RETURN(conn.insecure_skip_tls_verify,
                   BoolField(kc, cluster, "insecure-skip-tls-verify", where));
  return absl::OkStatus();
}

absl::Status ReadUser(const Kubeconfig& kc, const std::string& name, KubeConnection& conn) {
  ASSIGN_OR_RETURN(json user, FindEntry(kc, "users", "user", name, "the context names user"));
  std::string where = absl::StrCat("users[\"", name, "\"].user");
  constexpr char kInstead[] =
      ", which this master does not run; give that user a bearer token (token or tokenFile, e.g. a "
      "service account's) or a client certificate instead";
  if (user.is_object() && user.contains("exec") && !user["exec"].is_null()) {
    std::string command = user["exec"].is_object() ? user["exec"].value("command", "") : "";
    return kc.Error(absl::StatusCode::kUnimplemented,
                    absl::StrCat(where, ".exec asks for a credential plugin (command \"", command,
                                 "\")", kInstead));
  }
  if (user.is_object() && user.contains("auth-provider") && !user["auth-provider"].is_null()) {
    std::string provider =
        user["auth-provider"].is_object() ? user["auth-provider"].value("name", "") : "";
    return kc.Error(absl::StatusCode::kUnimplemented,
                    absl::StrCat(where, ".auth-provider asks for the \"", provider,
                                 "\" authentication plugin", kInstead));
  }
  if (user.is_object() && (user.contains("username") || user.contains("password"))) {
    return kc.Error(absl::StatusCode::kUnimplemented,
                    absl::StrCat(where, " uses basic authentication (username and password)",
                                 ", which Kubernetes no longer serves; give that user a bearer "
                                 "token or a client certificate instead"));
  }
  ASSIGN_OR_RETURN(conn.token, StringField(kc, user, "token", where));
  ASSIGN_OR_RETURN(conn.token_file, FileField(kc, user, "tokenFile", where));
  if (!conn.token_file.empty()) {
    // As client-go: the file's content wins over `token`, and is read again while running.
    ASSIGN_OR_RETURN(std::string text, ReadFile(conn.token_file));
    conn.token = std::string(absl::StripAsciiWhitespace(text));
    if (conn.token.empty()) {
      return kc.Invalid(absl::StrCat(where, ".tokenFile ", conn.token_file, " is empty"));
    }
  }
  ASSIGN_OR_RETURN(conn.client_cert_file, FileField(kc, user, "client-certificate", where));
  ASSIGN_OR_RETURN(conn.client_key_file, FileField(kc, user, "client-key", where));
  ASSIGN_OR_RETURN(conn.client_cert_pem, PemDataField(kc, user, "client-certificate-data", where));
  ASSIGN_OR_RETURN(conn.client_key_pem, PemDataField(kc, user, "client-key-data", where));
  bool has_cert = !conn.client_cert_file.empty() || !conn.client_cert_pem.empty();
  bool has_key = !conn.client_key_file.empty() || !conn.client_key_pem.empty();
  if (has_cert != has_key) {
    return kc.Invalid(
        absl::StrCat(where, " has a client ", has_cert ? "certificate" : "key", " without its ",
                     has_cert ? "key" : "certificate",
                     " (client-certificate(-data) and client-key(-data) go together)"));
  }
  return absl::OkStatus();
}

// Reads a small file of the service account, trimmed; NotFound when it is absent.
absl::StatusOr<std::string> ReadTrimmed(const fs::path& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return std::string(absl::StripAsciiWhitespace(text));
}

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

absl::StatusOr<KubeConnection> LoadKubeconfig(const fs::path& path, std::string_view context) {
  Kubeconfig kc{.file = path, .doc = {}};
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    return absl::Status(
        text.status().code(),
        absl::StrCat("cannot read the kubeconfig ", path.string(), ": ", text.status().message()));
  }
  absl::StatusOr<json> doc = ParseYaml(*text);
  if (!doc.ok()) return kc.Invalid(std::string(doc.status().message()));
  kc.doc = *std::move(doc);
  if (!kc.doc.is_object()) return kc.Invalid("not a kubeconfig (the document is not a map)");

  std::string context_name(context);
  if (context_name.empty()) {
    ASSIGN_OR_RETURN(context_name, StringField(kc, kc.doc, "current-context", "the document"));
  }
  if (context_name.empty()) {
    std::vector<std::string> known = EntryNames(kc.doc.value("contexts", json()));
    return kc.Invalid(absl::StrCat("no context given and current-context is not set (contexts: ",
                                   known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
  }
  std::string named_by = context.empty() ? "current-context is" : "the context asked for is";
  ASSIGN_OR_RETURN(json ctx, FindEntry(kc, "contexts", "context", context_name, named_by));
  std::string where = absl::StrCat("contexts[\"", context_name, "\"].context");
  ASSIGN_OR_RETURN(std::string cluster, StringField(kc, ctx, "cluster", where));
  if (cluster.empty()) return kc.Invalid(absl::StrCat(where, ".cluster is missing"));
  ASSIGN_OR_RETURN(std::string user, StringField(kc, ctx, "user", where));

  KubeConnection conn;
  RETURN_IF_ERROR(ReadCluster(kc, cluster, conn));
  if (!user.empty()) RETURN_IF_ERROR(ReadUser(kc, user, conn));
  ASSIGN_OR_RETURN(conn.namespace_name, StringField(kc, ctx, "namespace", where));
  if (conn.namespace_name.empty()) conn.namespace_name = "default";
  return conn;
}

absl::StatusOr<KubeConnection> InClusterConnection(const fs::path& sa_dir) {
  std::string host = EnvOrEmpty("KUBERNETES_SERVICE_HOST");
  std::string port = EnvOrEmpty("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    std::vector<std::string> missing;
    if (host.empty()) missing.push_back("KUBERNETES_SERVICE_HOST");
    if (port.empty()) missing.push_back("KUBERNETES_SERVICE_PORT");
    return absl::FailedPreconditionError(
        absl::StrCat("not running in a Kubernetes pod: ", absl::StrJoin(missing, " and "),
                     missing.size() == 1 ? " is" : " are", " not set", kOutsideClusterHint));
  }
  KubeConnection conn;
  // An IPv6 address goes in brackets in a URL.
  bool ipv6 = absl::StrContains(host, ':') && !absl::StartsWith(host, "[");
  conn.server = absl::StrCat("https://", ipv6 ? "[" : "", host, ipv6 ? "]" : "", ":", port);

  fs::path token_file = sa_dir / "token";
  absl::StatusOr<std::string> token = ReadTrimmed(token_file);
  if (!token.ok() || token->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "in a Kubernetes pod, but its service account token ", token_file.string(),
        token.ok() ? " is empty" : " cannot be read (is automountServiceAccountToken off?)",
        kOutsideClusterHint));
  }
  conn.token = *std::move(token);
  conn.token_file = token_file.string();

  fs::path ca_file = sa_dir / "ca.crt";
  std::error_code ec;
  if (!fs::is_regular_file(ca_file, ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat("in a Kubernetes pod, but the cluster's CA certificate ", ca_file.string(),
                     " is missing", kOutsideClusterHint));
  }
  conn.ca_file = ca_file.string();

  absl::StatusOr<std::string> ns = ReadTrimmed(sa_dir / "namespace");
  conn.namespace_name = ns.ok() && !ns->empty() ? *ns : "default";
  return conn;
}

absl::StatusOr<KubeConnection> ResolveKubeConnection(const std::string& kubeconfig_path) {
  if (kubeconfig_path.empty()) return InClusterConnection();
  std::string path = kubeconfig_path;
  if (path == "~" || absl::StartsWith(path, "~/")) {
    std::string home = EnvOrEmpty("HOME");
    if (home.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("kubeconfig_path ", kubeconfig_path,
                       " starts with ~ but HOME is not set; give a full path"));
    }
    path = home + path.substr(1);
  }
  return LoadKubeconfig(path);
}

}  // namespace det::master::kube
