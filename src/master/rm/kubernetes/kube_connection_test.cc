#include "master/rm/kubernetes/kube_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/base64.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::master::kube {
namespace {

using ::testing::HasSubstr;

constexpr char kPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class KubeconfigTest : public ::testing::Test {
 protected:
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::filesystem::path path = dir_ / name;
    EXPECT_TRUE(MakeDirs(path.parent_path()).ok());
    EXPECT_TRUE(WriteFile(path, text).ok());
    return path;
  }

  TestTempDir tmp_{"det_kubeconfig"};
  const std::filesystem::path dir_ = tmp_.path();
};

// Two contexts; `prod` is current. Its user has a token, the other a token file.
std::string TwoContexts(const std::string& prod_cluster_extra) {
  return R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
)" + prod_cluster_extra +
         R"(- name: dev-cluster
  cluster:
    server: http://127.0.0.1:8001
    insecure-skip-tls-verify: true
contexts:
- name: prod
  context:
    cluster: prod-cluster
    user: admin
    namespace: det
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
users:
- name: admin
  user:
    token: abc.def
- name: dev-user
  user:
    tokenFile: secrets/dev-token
)";
}

TEST_F(KubeconfigTest, CurrentContextWithTokenAndBase64CaData) {
  std::string ca_data = Base64Encode(kPem);
  auto path = Write("config", TwoContexts("    certificate-authority-data: " + ca_data + "\n"));
  auto conn = LoadKubeconfig(path);
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->server, "https://10.0.0.1:6443");
  EXPECT_EQ(conn->token, "abc.def");
  EXPECT_EQ(conn->token_file, "");
  EXPECT_EQ(conn->ca_data_pem, kPem);
  EXPECT_EQ(conn->ca_file, "");
  EXPECT_FALSE(conn->insecure_skip_tls_verify);
  EXPECT_EQ(conn->namespace_name, "det");
}

TEST_F(KubeconfigTest, NamedContextWithTokenFileRelativeToTheKubeconfig) {
  Write("kube/secrets/dev-token", "tok-from-file\n");
  auto path = Write("kube/config", TwoContexts(""));
  auto conn = LoadKubeconfig(path, "dev");
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->server, "http://127.0.0.1:8001");
  EXPECT_EQ(conn->token, "tok-from-file");
  EXPECT_EQ(conn->token_file, (dir_ / "kube/secrets/dev-token").string());
  EXPECT_TRUE(conn->insecure_skip_tls_verify);
  EXPECT_EQ(conn->namespace_name, "default");
}

TEST_F(KubeconfigTest, RelativeCertificateAuthorityPathAndClientCertificateData) {
  Write("kube/certs/ca.crt", kPem);
  std::string config = R"(current-context: c
clusters:
- name: k
  cluster:
    server: https://k:443
    certificate-authority: certs/ca.crt
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user:
    client-certificate-data: )" +
                       Base64Encode(kPem) + R"(
    client-key-data: )" +
                       Base64Encode("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n") +
                       "\n";
  auto conn = LoadKubeconfig(Write("kube/config", config));
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->ca_file, (dir_ / "kube/certs/ca.crt").string());
  EXPECT_EQ(conn->client_cert_pem, kPem);
  EXPECT_THAT(conn->client_key_pem, HasSubstr("PRIVATE KEY"));
  EXPECT_EQ(conn->token, "");
}

TEST_F(KubeconfigTest, MissingCaFileNamesTheFieldAndThePath) {
  auto path = Write("config", TwoContexts("    certificate-authority: nowhere/ca.crt\n"));
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr(path.string()));
  EXPECT_THAT(conn.status().message(),
              HasSubstr("clusters[\"prod-cluster\"].cluster.certificate-authority names " +
                        (dir_ / "nowhere/ca.crt").string()));
}

TEST_F(KubeconfigTest, BadBase64IsNamed) {
  auto path = Write("config", TwoContexts("    certificate-authority-data: '%%%'\n"));
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr("certificate-authority-data is not valid base64"));
}

TEST_F(KubeconfigTest, MissingContextListsTheKnownOnes) {
  auto path = Write("config", TwoContexts(""));
  auto conn = LoadKubeconfig(path, "staging");
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr("\"staging\""));
  EXPECT_THAT(conn.status().message(), HasSubstr("(prod, dev)"));
  EXPECT_THAT(conn.status().message(), HasSubstr(path.string()));
}

TEST_F(KubeconfigTest, NoCurrentContext) {
  auto path = Write("config", "clusters: []\ncontexts: []\nusers: []\n");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr("current-context is not set"));
}

TEST_F(KubeconfigTest, ContextNamingAnUnknownCluster) {
  auto path = Write("config", R"(current-context: c
contexts:
- name: c
  context: {cluster: gone}
clusters:
- name: other
  cluster: {server: https://x}
)");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(),
              HasSubstr("cluster \"gone\", which is not among its clusters (other)"));
}

TEST_F(KubeconfigTest, MissingServer) {
  auto path = Write("config", R"(current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]
)");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr("clusters[\"k\"].cluster.server is missing"));
}

TEST_F(KubeconfigTest, ExecPluginIsRefusedNamingItAndSuggestingAToken) {
  auto path = Write("config", R"(current-context: eks
contexts: [{name: eks, context: {cluster: k, user: aws}}]
clusters: [{name: k, cluster: {server: "https://eks"}}]
users:
- name: aws
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token]
)");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(conn.status().message(), HasSubstr("users[\"aws\"].user.exec"));
  EXPECT_THAT(conn.status().message(), HasSubstr("\"aws\""));
  EXPECT_THAT(conn.status().message(), HasSubstr("token"));
}

TEST_F(KubeconfigTest, AuthProviderIsRefused) {
  auto path = Write("config", R"(current-context: g
contexts: [{name: g, context: {cluster: k, user: g}}]
clusters: [{name: k, cluster: {server: "https://gke"}}]
users: [{name: g, user: {auth-provider: {name: gcp}}}]
)");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(conn.status().message(), HasSubstr("\"gcp\""));
}

TEST_F(KubeconfigTest, ClientCertificateWithoutKey) {
  Write("client.crt", kPem);
  auto path = Write("config", R"(current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://k"}}]
users: [{name: u, user: {client-certificate: client.crt}}]
)");
  auto conn = LoadKubeconfig(path);
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(conn.status().message(), HasSubstr("client certificate without its key"));
}

TEST_F(KubeconfigTest, UnreadableAndMalformedFiles) {
  auto missing = LoadKubeconfig(dir_ / "absent");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr((dir_ / "absent").string()));

  auto bad = LoadKubeconfig(Write("bad", "clusters: [\n"));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("YAML syntax error"));
}

// Sets environment variables for one test and puts back what was there.
class ScopedEnv {
 public:
  void Set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.push_back({name, old != nullptr ? std::optional<std::string>(old) : std::nullopt});
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

class InClusterTest : public KubeconfigTest {
 protected:
  void WriteServiceAccount() {
    Write("sa/token", "sa-token\n");
    Write("sa/ca.crt", kPem);
    Write("sa/namespace", "determined\n");
  }
  ScopedEnv env_;
};

TEST_F(InClusterTest, ReadsTheServiceAccount) {
  WriteServiceAccount();
  env_.Set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  auto conn = InClusterConnection(dir_ / "sa");
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->server, "https://10.96.0.1:443");
  EXPECT_EQ(conn->token, "sa-token");
  EXPECT_EQ(conn->token_file, (dir_ / "sa/token").string());
  EXPECT_EQ(conn->ca_file, (dir_ / "sa/ca.crt").string());
  EXPECT_EQ(conn->namespace_name, "determined");
}

TEST_F(InClusterTest, Ipv6HostGoesInBrackets) {
  WriteServiceAccount();
  env_.Set("KUBERNETES_SERVICE_HOST", "fd00::1");
  env_.Set("KUBERNETES_SERVICE_PORT", "6443");
  auto conn = InClusterConnection(dir_ / "sa");
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->server, "https://[fd00::1]:6443");
}

TEST_F(InClusterTest, OutsideAClusterSaysToSetKubeconfigPath) {
  WriteServiceAccount();
  env_.Set("KUBERNETES_SERVICE_HOST", nullptr);
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  auto conn = InClusterConnection(dir_ / "sa");
  EXPECT_EQ(conn.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(conn.status().message(), HasSubstr("KUBERNETES_SERVICE_HOST is not set"));
  EXPECT_THAT(conn.status().message(), HasSubstr("kubeconfig_path"));

  auto resolved = ResolveKubeConnection("");
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(InClusterTest, MissingTokenOrCa) {
  env_.Set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  auto no_token = InClusterConnection(dir_ / "sa");
  EXPECT_EQ(no_token.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_token.status().message(), HasSubstr((dir_ / "sa/token").string()));
  EXPECT_THAT(no_token.status().message(), HasSubstr("kubeconfig_path"));

  Write("sa/token", "t");
  auto no_ca = InClusterConnection(dir_ / "sa");
  EXPECT_EQ(no_ca.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_ca.status().message(), HasSubstr((dir_ / "sa/ca.crt").string()));

  Write("sa/ca.crt", kPem);
  auto no_namespace = InClusterConnection(dir_ / "sa");
  ASSERT_TRUE(no_namespace.ok()) << no_namespace.status();
  EXPECT_EQ(no_namespace->namespace_name, "default");
}

TEST_F(InClusterTest, ResolveExpandsTildeInKubeconfigPath) {
  Write("home/.kube/config", TwoContexts(""));
  env_.Set("HOME", (dir_ / "home").c_str());
  auto conn = ResolveKubeConnection("~/.kube/config");
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(conn->server, "https://10.0.0.1:6443");
}

}  // namespace
}  // namespace det::master::kube
