#include "master/proxy/proxy_resolver.h"

#include <gtest/gtest.h>

#include "master/proxy/service_registry.h"

namespace det::master {
namespace {

class ProxyTestAuthenticator : public Authenticator {
 public:
  absl::StatusOr<Principal> Authenticate(const HttpRequest& request) override {
    if (request.Header("authorization") == "Bearer owner") return Principal{.user_id = 7, .username = "owner"};
    if (request.Header("authorization") == "Bearer other") return Principal{.user_id = 8, .username = "other"};
    if (request.Header("authorization") == "Bearer admin") return Principal{.user_id = 1, .admin = true};
    if (request.Header("authorization") == "Bearer task") return Principal{.user_id = 7, .allocation_id = "a.1"};
    return absl::UnauthenticatedError("token missing");
  }
};

class ProxyResolverTest : public ::testing::Test {
 protected:
  ProxyResolverTest() {
    services_.Register({.id = "nb", .owner_id = 7, .host = "10.0.0.2", .port = 2900, .token = "secret"});
    services_.Register({.id = "sh", .owner_id = 7, .host = "10.0.0.3", .port = 3200, .tcp = true});
  }

  std::variant<RelayTarget, HttpResponse> Resolve(const std::string& path, const std::string& auth = "",
                                                  std::multimap<std::string, std::string> query = {}) {
    HttpRequest head{.method = "GET", .path = path, .query = std::move(query)};
    if (!auth.empty()) head.headers["authorization"] = auth;
    return resolve_(head);
  }

  static int StatusOf(const std::variant<RelayTarget, HttpResponse>& d) {
    return std::holds_alternative<HttpResponse>(d) ? std::get<HttpResponse>(d).status : 0;
  }

  ServiceRegistry services_;
  ProxyTestAuthenticator auth_;
  BasicAuthz authz_;
  RelayResolver resolve_ = MakeProxyResolver(services_, auth_, authz_);
};

TEST_F(ProxyResolverTest, TheOwnerReachesTheServiceWhichGetsTheNotebookTokenInsteadOfTheSession) {
  auto d = Resolve("/proxy/nb/api/kernels", "Bearer owner");
  ASSERT_TRUE(std::holds_alternative<RelayTarget>(d));
  const RelayTarget& t = std::get<RelayTarget>(d);
  EXPECT_EQ(t.host, "10.0.0.2");
  EXPECT_EQ(t.port, 2900);
  EXPECT_FALSE(t.tcp_over_websocket);
  EXPECT_EQ(t.remove_headers, std::vector<std::string>{"authorization"});
  ASSERT_EQ(t.set_headers.size(), 1u);
  EXPECT_EQ(t.set_headers[0].second, "token secret");
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb", "Bearer admin")), 0);
}

TEST_F(ProxyResolverTest, TheNotebookTokenOpensItsNotebookOnly) {
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb/tree", "", {{"token", "secret"}})), 0);
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb/tree", "token secret")), 0);
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb/tree", "", {{"token", "wrong"}})), 401);
}

TEST_F(ProxyResolverTest, NoCredentialsIs401AndSomeoneElsesServiceLooksLikeNone) {
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb/api")), 401);
  HttpResponse other = std::get<HttpResponse>(Resolve("/proxy/nb/api", "Bearer other"));
  HttpResponse unknown = std::get<HttpResponse>(Resolve("/proxy/nope/api", "Bearer owner"));
  EXPECT_EQ(other.status, 404);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("service \\\"nope\\\" not found"), std::string::npos) << unknown.body;
  // A task's own token opens no service.
  EXPECT_EQ(StatusOf(Resolve("/proxy/nb/api", "Bearer task")), 404);
}

TEST_F(ProxyResolverTest, ShellsAreTcpAndNeedNoSession) {
  auto d = Resolve("/proxy/sh/");
  ASSERT_TRUE(std::holds_alternative<RelayTarget>(d));
  EXPECT_TRUE(std::get<RelayTarget>(d).tcp_over_websocket);
  EXPECT_TRUE(std::get<RelayTarget>(d).set_headers.empty());
}

TEST(ServiceRegistryTest, UseRecordsTheLastRequestAndUnregisterForgets) {
  ServiceRegistry registry;
  EXPECT_FALSE(registry.Use("x"));
  registry.Register({.id = "x", .port = 1});
  auto registered = registry.LastRequested("x");
  ASSERT_TRUE(registered);
  EXPECT_EQ(registry.Use("x")->port, 1);
  EXPECT_GE(*registry.LastRequested("x"), *registered);
  registry.Register({.id = "x", .port = 2});  // replaced, e.g. after a restart
  EXPECT_EQ(registry.Use("x")->port, 2);
  registry.Unregister("x");
  EXPECT_FALSE(registry.Use("x"));
  EXPECT_FALSE(registry.LastRequested("x"));
}

}  // namespace
}  // namespace det::master
