#pragma once
// Where the Kubernetes API server is and how to authenticate to it: read from a kubeconfig file or
// from the service account a pod runs as. KubeHttpClient (kube_http_client.h) speaks with it.
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace det::master::kube {

struct KubeConnection {
  std::string server;  // "https://10.0.0.1:6443" (may carry a path prefix, as behind a proxy)

  // Bearer token ("" = none). When token_file is set, the client re-reads the token from it now
  // and then, as client-go does: service-account tokens are rotated by the kubelet; `token` holds
  // the value read when the connection was loaded.
  std::string token;
  std::string token_file;

  // The server's CA: a PEM file or PEM text ("" both = the system's CAs).
  std::string ca_file;
  std::string ca_data_pem;
  // A client certificate and its key: PEM files or PEM text (text wins when both are set).
  std::string client_cert_file, client_key_file;
  std::string client_cert_pem, client_key_pem;
  bool insecure_skip_tls_verify = false;

  // The kubeconfig context's namespace, or the service account's ("default" when neither says).
  std::string namespace_name;
};

// Reads a kubeconfig file (YAML, as kubectl's): the given context, or its current-context, gives
// the cluster (server, certificate-authority file or -data, insecure-skip-tls-verify), the user
// (token, tokenFile, client-certificate/-key files or -data) and the namespace. Relative file
// paths are relative to the kubeconfig's directory. Credential plugins (`exec`, `auth-provider`)
// and basic auth are Unimplemented. Errors name the file and the missing or bad field.
absl::StatusOr<KubeConnection> LoadKubeconfig(const std::filesystem::path& path,
                                              std::string_view context = "");

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// The connection of a process in a pod: the API server from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the service account's token, ca.crt and namespace from `sa_dir`.
// FailedPrecondition when not in a pod (the variables or files are missing), saying so.
absl::StatusOr<KubeConnection> InClusterConnection(
    const std::filesystem::path& sa_dir = kServiceAccountDir);

// Upstream's rule for the Kubernetes resource manager's `kubeconfig_path`: when set, that file
// (a leading "~" is the home directory); when empty, the in-cluster service account.
absl::StatusOr<KubeConnection> ResolveKubeConnection(const std::string& kubeconfig_path);

}  // namespace det::master::kube
