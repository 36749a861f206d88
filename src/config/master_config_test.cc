#include "config/master_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::config {
namespace {

using nlohmann::json;

absl::StatusOr<MasterConfig> Load(const std::string& yaml,
                                  std::map<std::string, std::string> env = {},
                                  FlagValues flags = {}) {
  return LoadMasterConfig(yaml, env, flags);
}

std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<MasterConfig> c = Load(yaml);
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(MasterConfigTest, DefaultsWithoutAFile) {
  auto c = Load("", {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->data_dir, "/srv/det");
  EXPECT_EQ(c->host, "0.0.0.0");
  EXPECT_EQ(c->port, 8080);
  EXPECT_EQ(c->cluster_name, "determined");
  EXPECT_EQ(c->log.level, "info");
  EXPECT_EQ(c->db.type, "sqlite");
  EXPECT_EQ(c->db.path, "/srv/det/determined.db");
  EXPECT_EQ(json::parse(c->checkpoint_storage_json),
            (json{{"type", "shared_fs"}, {"host_path", "/srv/det/checkpoints"}}));
  json tcd = json::parse(c->task_container_defaults_json);
  EXPECT_EQ(tcd["shm_size_bytes"], 4294967296);
  EXPECT_EQ(tcd["network_mode"], "host");
  EXPECT_EQ(tcd["preemption_timeout"], 3600);
  EXPECT_EQ(c->resource_manager.type, "agent");
  EXPECT_EQ(c->resource_manager.scheduler, SchedulerConfig{});
  EXPECT_EQ(c->resource_manager.scheduler.type, "priority");
  EXPECT_EQ(c->resource_manager.scheduler.default_priority, 42);
  EXPECT_EQ(c->resource_manager.default_aux_resource_pool, "default");
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "default");
  ASSERT_EQ(c->resource_pools.size(), 1u);
  EXPECT_EQ(c->resource_pools[0].pool_name, "default");
  EXPECT_FALSE(c->resource_pools[0].has_own_scheduler);
  EXPECT_EQ(c->resource_pools[0].max_aux_containers_per_agent, 100);
  EXPECT_TRUE(c->launch_error);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(MasterConfigTest, LaunchErrorAndNotebookTimeoutAreUsedNotJustAccepted) {
  auto c = Load("launch_error: false\nnotebook_timeout: 60\n", {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->launch_error);
  EXPECT_EQ(c->notebook_timeout, 60);
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();  // no "accepted but not used"
}

TEST(MasterConfigTest, ObservabilityEnablesPrometheusByDefault) {
  auto c = Load("");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->observability.enable_prometheus);
  EXPECT_EQ(json::parse(c->effective_json)["observability"]["enable_prometheus"], true);
  c = Load("observability: {enable_prometheus: false}\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->observability.enable_prometheus);
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();  // used, not "accepted but not used"
  EXPECT_NE(ErrorOf("observability: {enable_prometheus: maybe}\n")
                .find("observability.enable_prometheus"),
            std::string::npos);
  EXPECT_NE(ErrorOf("observability: {enable_grafana: true}\n").find("observability.enable_grafana"),
            std::string::npos);
}

TEST(MasterConfigTest, RetentionPolicyIsUsedAndChecked) {
  auto c = Load("", {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->retention_policy.log_retention_days.has_value()) << "kept forever by default";
  EXPECT_EQ(c->retention_policy.schedule, "0 0 * * *");
  c = Load("retention_policy: {log_retention_days: 90, schedule: 12h}\n", {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->retention_policy.log_retention_days, 90);
  EXPECT_EQ(c->retention_policy.schedule, "12h");
  EXPECT_TRUE(c->warnings.empty()) << c->warnings.front();  // no "accepted but not used"
  EXPECT_NE(ErrorOf("retention_policy: {log_retention_days: 40000}\n").find("retention_policy.log_retention_days"),
            std::string::npos);
  EXPECT_NE(ErrorOf("retention_policy: {schedule: daily}\n").find("retention_policy.schedule"), std::string::npos);
  EXPECT_NE(ErrorOf("retention_policy: {keep: 1}\n").find("retention_policy.keep"), std::string::npos);
}

TEST(MasterConfigTest, SecurityAuthzChoosesTheRuleAndItsSettings) {
  auto basic = Load("", {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(basic.ok()) << basic.status();
  EXPECT_EQ(basic->security.authz.type, "basic");
  EXPECT_FALSE(basic->security.authz.rbac_ui_enabled);
  auto rbac = Load("security:\n  authz:\n    type: rbac\n    strict_job_queue_control: true\n"
                   "    workspace_creator_assign_role: {enabled: false}\n",
                   {}, {{"data-dir", "/srv/det"}});
  ASSERT_TRUE(rbac.ok()) << rbac.status();
  EXPECT_EQ(rbac->security.authz.type, "rbac");
  EXPECT_TRUE(rbac->security.authz.rbac_ui_enabled) << "on with rbac unless configured";
  EXPECT_TRUE(rbac->security.authz.strict_job_queue_control);
  EXPECT_FALSE(rbac->security.authz.workspace_creator_role_enabled);
  EXPECT_EQ(rbac->security.authz.workspace_creator_role_id, 2);
  EXPECT_NE(ErrorOf("security: {authz: {type: ldap}}\n").find("security.authz.type"), std::string::npos);
  EXPECT_NE(ErrorOf("security: {authz: {workspace_creator_assign_role: {role_id: 0}}}\n")
                .find("security.authz.workspace_creator_assign_role.role_id"),
            std::string::npos);
  EXPECT_NE(ErrorOf("security: {authz: {typo: 1}}\n").find("typo"), std::string::npos);
}

TEST(MasterConfigTest, ReadsEveryDocumentedKey) {
  auto c = Load(R"(
port: 9090
cluster_name: lab
log: {level: debug, color: false}
db: {type: sqlite, path: /var/db/det.db}
checkpoint_storage: {type: shared_fs, host_path: /mnt/ckpt, storage_path: det}
task_container_defaults: {shm_size_bytes: 1024, startup_hook: "echo hi"}
security:
  initial_user_password: s3cret
  tls: {cert: /etc/c.pem, key: /etc/k.pem}
logging: {type: default}
resource_manager:
  type: agent
  scheduler: {type: priority, preemption: true, default_priority: 10, fitting_policy: worst}
  default_aux_resource_pool: cpu
  default_compute_resource_pool: gpu
resource_pools:
  - pool_name: cpu
    description: cheap
  - pool_name: gpu
    scheduler: {type: round_robin}
    max_aux_containers_per_agent: 3
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->port, 9090);
  EXPECT_EQ(c->cluster_name, "lab");
  EXPECT_EQ(c->log.level, "debug");
  EXPECT_FALSE(c->log.color);
  EXPECT_EQ(c->db.path, "/var/db/det.db");
  EXPECT_EQ(json::parse(c->checkpoint_storage_json)["host_path"], "/mnt/ckpt");
  json tcd = json::parse(c->task_container_defaults_json);
  EXPECT_EQ(tcd["shm_size_bytes"], 1024);
  EXPECT_EQ(tcd["startup_hook"], "echo hi");
  EXPECT_EQ(tcd["network_mode"], "host");
  EXPECT_EQ(c->security.initial_user_password, "s3cret");
  EXPECT_TRUE(c->security.tls_enabled());
  EXPECT_EQ(c->security.tls_key, "/etc/k.pem");
  const SchedulerConfig& rm = c->resource_manager.scheduler;
  EXPECT_EQ(rm.type, "priority");
  EXPECT_TRUE(rm.preemption);
  EXPECT_EQ(rm.default_priority, 10);
  EXPECT_EQ(rm.fitting_policy, "worst");
  ASSERT_EQ(c->resource_pools.size(), 2u);
  const ResourcePoolConfig* cpu = c->FindPool("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->description, "cheap");
  EXPECT_EQ(cpu->scheduler, rm);  // inherited whole
  const ResourcePoolConfig* gpu = c->FindPool("gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->scheduler.type, "round_robin");
  EXPECT_EQ(gpu->scheduler.fitting_policy, "best");  // not inherited from resource_manager
  EXPECT_EQ(gpu->max_aux_containers_per_agent, 3);
  EXPECT_EQ(c->resource_manager.default_aux_resource_pool, "cpu");
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "gpu");
  EXPECT_EQ(c->FindPool("nope"), nullptr);
}

// The product docs' first pool1 example, literally: the pool's scheduler block sets only
// fitting_policy, so nothing is inherited and the blank type means fair_share.
TEST(MasterConfigTest, DocsPool1ExampleBlankTypeIsFairShare) {
  auto c = Load(R"(
resource_manager:
  type: agent
  scheduler:
    type: round_robin
    fitting_policy: best
  default_aux_resource_pool: pool1
  default_compute_resource_pool: pool1

resource_pools:
  - pool_name: pool1
    scheduler:
      fitting_policy: worst
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->resource_manager.scheduler.type, "round_robin");
  EXPECT_EQ(c->resource_manager.scheduler.fitting_policy, "best");
  ASSERT_EQ(c->resource_pools.size(), 1u);
  EXPECT_EQ(c->resource_pools[0].pool_name, "pool1");
  EXPECT_TRUE(c->resource_pools[0].has_own_scheduler);
  EXPECT_EQ(c->resource_pools[0].scheduler.type, "fair_share");
  EXPECT_EQ(c->resource_pools[0].scheduler.fitting_policy, "worst");
  EXPECT_EQ(c->resource_manager.default_aux_resource_pool, "pool1");
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "pool1");
}

// The docs' second pool1 example: redefining the type gives a worst-fit round robin pool.
TEST(MasterConfigTest, DocsPool1ExampleRedefinedType) {
  auto c = Load(R"(
resource_manager:
  type: agent
  scheduler:
    type: round_robin
    fitting_policy: best
  default_aux_resource_pool: pool1
  default_compute_resource_pool: pool1

resource_pools:
  - pool_name: pool1
    scheduler:
      type: round_robin
      fitting_policy: worst
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->resource_pools[0].scheduler.type, "round_robin");
  EXPECT_EQ(c->resource_pools[0].scheduler.fitting_policy, "worst");
}

TEST(MasterConfigTest, PoolSchedulerDoesNotInheritPriorityFields) {
  auto c = Load(R"(
resource_manager:
  scheduler: {type: priority, preemption: true, default_priority: 7}
resource_pools:
  - pool_name: default
    scheduler: {type: priority}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->resource_manager.scheduler.preemption);
  EXPECT_FALSE(c->resource_pools[0].scheduler.preemption);
  EXPECT_EQ(c->resource_pools[0].scheduler.default_priority, 42);
}

TEST(MasterConfigTest, LegacyFormatBecomesOneDefaultPool) {
  auto c = Load(R"(
scheduler:
  type: priority
  fitting_policy: worst
  preemption: true
provisioner:
  provider: aws
  max_instances: 3
)");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->resource_pools.size(), 1u);
  EXPECT_EQ(c->resource_pools[0].pool_name, "default");
  EXPECT_EQ(c->resource_pools[0].scheduler.fitting_policy, "worst");
  EXPECT_TRUE(c->resource_pools[0].scheduler.preemption);
  EXPECT_EQ(json::parse(c->resource_pools[0].provider_json)["max_instances"], 3);
  EXPECT_EQ(c->resource_manager.default_aux_resource_pool, "default");
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "default");
  EXPECT_FALSE(c->warnings.empty());  // the provider is not acted on

  auto old_spelling =
      Load("scheduler: {type: round_robin, fit: worst, resource_provider: {type: default}}\n");
  ASSERT_TRUE(old_spelling.ok()) << old_spelling.status();
  EXPECT_EQ(old_spelling->resource_pools[0].scheduler.type, "round_robin");
  EXPECT_EQ(old_spelling->resource_pools[0].scheduler.fitting_policy, "worst");
  EXPECT_NE(ErrorOf("scheduler: {resource_provider: {type: kubernetes}}\n").find("not supported"),
            std::string::npos);

  EXPECT_NE(ErrorOf("scheduler: {type: priority}\nresource_pools: [{pool_name: a}]\n")
                .find("cannot be mixed"),
            std::string::npos);
}

TEST(MasterConfigTest, EnvOverridesFileAndFlagsOverrideEnv) {
  std::string yaml = "port: 9000\nlog: {level: warn}\nsecurity: {initial_user_password: file}\n";
  auto c = Load(yaml,
                {{"DET_PORT", "9100"},
                 {"DET_SECURITY_INITIAL_USER_PASSWORD", "env"},
                 {"DET_LOG_LEVEL", "debug"},
                 {"DET_MASTER", "ignored"}},
                {{"port", "9200"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->port, 9200);
  EXPECT_EQ(c->security.initial_user_password, "env");
  EXPECT_EQ(c->log.level, "debug");

  auto bad = Load("", {{"DET_PORT", "http"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("DET_PORT: must be an integer"), std::string::npos);
}

TEST(MasterConfigTest, PostgresFieldsMeanPostgres) {
  auto c = Load("", {{"DET_DB_HOST", "db.example.com"}}, {{"db-name", "determined"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->db.type, "postgres");
  EXPECT_EQ(c->db.host, "db.example.com");
  EXPECT_EQ(c->db.port, "5432");

  auto port_int = Load("db: {host: h, name: n, port: 6543, user: u, password: p}");
  ASSERT_TRUE(port_int.ok()) << port_int.status();
  EXPECT_EQ(port_int->db.port, "6543");

  std::string err = ErrorOf("db: {type: sqlite, host: h}\n");
  EXPECT_NE(err.find("db.host: only used with db.type: postgres"), std::string::npos) << err;
  err = ErrorOf("db: {type: postgres}\n");
  EXPECT_NE(err.find("db.host: required"), std::string::npos) << err;
  EXPECT_NE(err.find("db.name: required"), std::string::npos) << err;
  err = ErrorOf("db: {type: mysql}\n");
  EXPECT_NE(err.find("db.type: must be one of postgres, sqlite"), std::string::npos) << err;
}

TEST(MasterConfigTest, ReportsEveryProblemWithItsPath) {
  std::string err = ErrorOf(R"(
bogus: 1
port: 70000
log: {level: loud}
security:
  tls: {cert: /c.pem}
resource_manager:
  scheduler: {type: lottery, fitting_policy: tight, default_priority: 100, extra: 1}
  default_compute_resource_pool: missing
resource_pools:
  - pool_name: a
  - pool_name: a
  - description: no name
  - pool_name: b
    scheduler: {preemption: true}
    agent_reconnect_wait: soon
)");
  for (const char* want : {
           "bogus: unknown key",
           "port: must be between 0 and 65535, got 70000",
           "log.level: must be one of",
           "security.tls: cert and key must be given together",
           "resource_manager.scheduler.type: must be one of priority, fair_share, round_robin",
           "resource_manager.scheduler.fitting_policy: must be one of best, worst",
           "resource_manager.scheduler.default_priority: must be between 1 and 99, got 100",
           "resource_manager.scheduler.extra: unknown key",
           "resource_pools[1].pool_name: duplicate pool name \"a\"",
           "resource_pools[2].pool_name: required and must not be empty",
           "resource_pools[3].scheduler.preemption: only valid with type: priority",
           "resource_pools[3].agent_reconnect_wait: must be a duration like 25s, 1m30s or 500ms, got \"soon\"",
           "resource_manager.default_compute_resource_pool: names pool \"missing\"",
           "resource_manager.default_aux_resource_pool: names pool \"default\"",
       }) {
    EXPECT_NE(err.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << err;
  }
}

TEST(MasterConfigTest, AgentReconnectWaitIsAGoDuration) {
  auto c = Load("resource_pools:\n  - pool_name: default\n  - pool_name: slow\n    agent_reconnect_wait: 1m30s\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->resource_pools[0].agent_reconnect_wait, std::chrono::seconds(25));
  EXPECT_EQ(c->resource_pools[1].agent_reconnect_wait, std::chrono::seconds(90));
}

TEST(MasterConfigTest, RefusesOtherResourceManagersAndBadShapes) {
  EXPECT_NE(ErrorOf("resource_manager: {type: pbs}").find("not supported by this master"), std::string::npos);
  EXPECT_NE(ErrorOf("resource_pools: {pool_name: a}").find("resource_pools: must be a list"),
            std::string::npos);
  EXPECT_NE(ErrorOf("resource_pools: []").find("at least one pool"), std::string::npos);
  EXPECT_NE(ErrorOf("- 1\n- 2\n").find("must be a YAML mapping"), std::string::npos);
  EXPECT_NE(ErrorOf("checkpoint_storage: {type: shared_fs}")
                .find("checkpoint_storage.host_path: required"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("task_container_defaults: {shm: 1}").find("task_container_defaults.shm: unknown key"),
      std::string::npos);
  EXPECT_NE(ErrorOf("security: {tls: {key: /k}}").find("both or neither"), std::string::npos);
}

TEST(MasterConfigTest, LegacyPoolAliasesAndNoDefaultPools) {
  auto c = Load(R"(
resource_manager:
  default_cpu_resource_pool: a
  default_gpu_resource_pool: b
resource_pools: [{pool_name: a}, {pool_name: b}]
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->resource_manager.default_aux_resource_pool, "a");
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "b");
  EXPECT_EQ(c->warnings.size(), 2u);

  auto none = Load(
      "resource_manager: {no_default_resource_pools: true}\nresource_pools: [{pool_name: x}]\n");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->resource_manager.default_aux_resource_pool, "");
}

TEST(MasterConfigTest, PrintableJsonMasksSecrets) {
  auto c = Load(R"(
db: {host: h, name: n, user: u, password: dbpw}
security: {initial_user_password: userpw, tls: {cert: /c.pem, key: /k.pem}}
checkpoint_storage: {type: s3, bucket: b, access_key: AKIA, secret_key: SECRET}
telemetry: {enabled: false}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  std::string text = ToPrintableJson(*c);
  for (const char* secret : {"dbpw", "userpw", "AKIA", "SECRET"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " leaked: " << text;
  }
  json printable = json::parse(text);
  EXPECT_EQ(printable["db"]["password"], "********");
  EXPECT_EQ(printable["db"]["user"], "u");
  EXPECT_EQ(printable["security"]["initial_user_password"], "********");
  EXPECT_EQ(printable["security"]["tls"]["key"], "/k.pem");
  EXPECT_EQ(printable["checkpoint_storage"]["access_key"], "********");
  EXPECT_EQ(printable["checkpoint_storage"]["secret_key"], "********");
  EXPECT_EQ(printable["checkpoint_storage"]["bucket"], "b");
  EXPECT_EQ(printable["telemetry"]["enabled"], false);
  EXPECT_EQ(printable["resource_pools"][0]["pool_name"], "default");
  EXPECT_EQ(printable["resource_manager"]["scheduler"]["type"], "priority");
  // Blank secrets stay blank: nothing to hide, and the operator sees none is set.
  auto plain = Load("");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(json::parse(ToPrintableJson(*plain))["security"]["initial_user_password"], "");
}

TEST(MasterConfigTest, FeatureSwitchesAreAlwaysAList) {
  auto plain = Load("");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(json::parse(ToPrintableJson(*plain))["feature_switches"], json::array());
  auto given = Load("feature_switches: [a, b]\n");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(json::parse(ToPrintableJson(*given))["feature_switches"], json({"a", "b"}));
}

}  // namespace
}  // namespace det::config

namespace det::config {
namespace {

TEST(MasterConfigTest, DefaultTaskUserIsKeptOnlyWhereTheConfigGivesIt) {
  auto none = Load("");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->security.default_task.has_value());
  auto given = Load("security: {default_task: {uid: 65534, gid: 65533, user: nobody, group: nogroup}}\n");
  ASSERT_TRUE(given.ok()) << given.status();
  ASSERT_TRUE(given->security.default_task.has_value());
  EXPECT_EQ(given->security.default_task->uid, 65534u);
  EXPECT_EQ(given->security.default_task->gid, 65533u);
  EXPECT_EQ(given->security.default_task->user, "nobody");
  EXPECT_EQ(given->security.default_task->group, "nogroup");
  auto by_flag = Load("", {}, {{"security-default-task-uid", "1000"}});
  ASSERT_TRUE(by_flag.ok()) << by_flag.status();
  ASSERT_TRUE(by_flag->security.default_task.has_value());
  EXPECT_EQ(by_flag->security.default_task->uid, 1000u);
  EXPECT_EQ(by_flag->security.default_task->user, "root");  // upstream's defaults for what is not given
  EXPECT_NE(ErrorOf("security: {default_task: {uid: -1}}\n").find("security.default_task.uid"), std::string::npos);
}

TEST(MasterConfigTest, TokenLifespansAreDaysOrInfiniteAndTheDefaultFitsTheMaximum) {
  auto defaults = Load("");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->security.token.max_lifespan_days, 30);
  EXPECT_EQ(defaults->security.token.default_lifespan_days, 30);
  auto given = Load("security: {token: {max_lifespan_days: -1, default_lifespan_days: 7}}\n");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->security.token.max_lifespan_days, kInfiniteTokenLifespanDays);  // as upstream stores -1
  EXPECT_EQ(given->security.token.default_lifespan_days, 7);
  EXPECT_EQ(json::parse(given->effective_json)["security"]["token"]["max_lifespan_days"], kInfiniteTokenLifespanDays);
  auto both_infinite = Load("security: {token: {max_lifespan_days: -1, default_lifespan_days: -1}}\n");
  ASSERT_TRUE(both_infinite.ok()) << both_infinite.status();

  std::string too_long = ErrorOf("security: {token: {max_lifespan_days: 10, default_lifespan_days: 20}}\n");
  EXPECT_NE(too_long.find("security.token.default_lifespan_days: must not exceed security.token.max_lifespan_days (10); got 20"),
            std::string::npos) << too_long;
  std::string infinite_default = ErrorOf("security: {token: {default_lifespan_days: -1}}\n");
  EXPECT_NE(infinite_default.find("got -1 (infinite)"), std::string::npos) << infinite_default;
  std::string zero = ErrorOf("security: {token: {max_lifespan_days: 0}}\n");
  EXPECT_NE(zero.find("security.token.max_lifespan_days: must be a number of days >= 1, or -1"), std::string::npos) << zero;
  EXPECT_NE(ErrorOf("security: {token: {max_lifespan_days: -5}}\n").find("security.token.max_lifespan_days"),
            std::string::npos);
  EXPECT_NE(ErrorOf("security: {token: {max_lifespan_days: ten}}\n").find("must be an integer"), std::string::npos);
  EXPECT_NE(ErrorOf("security: {token: {lifespan: 1}}\n").find("security.token.lifespan: unknown key"),
            std::string::npos);
}

TEST(MasterConfigTest, TlsMovesTheDefaultPortTo8443) {
  auto tls = Load("security: {tls: {cert: /c.pem, key: /k.pem}}\n");
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(tls->port, 8443);
  auto explicit_port = Load("port: 9000\nsecurity: {tls: {cert: /c.pem, key: /k.pem}}\n");
  ASSERT_TRUE(explicit_port.ok()) << explicit_port.status();
  EXPECT_EQ(explicit_port->port, 9000);
  auto flag_port = Load("security: {tls: {cert: /c.pem, key: /k.pem}}\n", {}, {{"port", "0"}});
  ASSERT_TRUE(flag_port.ok()) << flag_port.status();
  EXPECT_EQ(flag_port->port, 0);
  auto plain = Load("");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->port, 8080);
}

TEST(MasterConfigTest, KubernetesResourceManagerTakesUpstreamsKeys) {
  auto c = Load(R"(
resource_manager:
  type: kubernetes
  namespace: team-a
  max_slots_per_pod: 4
  slot_type: gpu
  master_service_name: determined-master-service
  determined_master_port: 8080
  kubeconfig_path: /etc/kube/config
  leave_kubernetes_resources: true
  default_aux_resource_pool: aux
  default_compute_resource_pool: gpus
  cluster_name: k8s
resource_pools:
  - pool_name: aux
  - pool_name: gpus
    task_container_defaults:
      gpu_pod_spec: {spec: {nodeSelector: {accelerator: h200}}}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->resource_manager.kubernetes.has_value());
  const KubernetesConfig& k = *c->resource_manager.kubernetes;
  EXPECT_EQ(c->resource_manager.type, "kubernetes");
  EXPECT_EQ(c->resource_manager.cluster_name, "k8s");
  EXPECT_EQ(k.namespace_name, "team-a") << "the deprecated namespace key still counts";
  EXPECT_EQ(k.max_slots_per_pod, 4);
  EXPECT_EQ(k.slot_type, "cuda") << "upstream reads gpu as cuda";
  EXPECT_EQ(k.master_service_name, "determined-master-service");
  EXPECT_EQ(k.master_port, 8080);
  EXPECT_EQ(k.kubeconfig_path, "/etc/kube/config");
  EXPECT_TRUE(k.leave_kubernetes_resources);
  EXPECT_EQ(c->resource_manager.default_compute_resource_pool, "gpus");
  EXPECT_NE(c->resource_pools[1].task_container_defaults_json.find("h200"), std::string::npos);
  bool warned = false;
  for (const std::string& w : c->warnings) warned = warned || w.find("namespace is deprecated") != std::string::npos;
  EXPECT_TRUE(warned);
  json eff = json::parse(c->effective_json);
  EXPECT_EQ(eff["resource_manager"]["default_namespace"], "team-a");
  EXPECT_EQ(eff["resource_manager"]["max_slots_per_pod"], 4);
}

TEST(MasterConfigTest, KubernetesResourceManagerRefusesBadAndContradictoryKeys) {
  const std::string base = "resource_manager:\n  type: kubernetes\n  master_service_name: m\n";
  for (const auto& [yaml, want] : std::vector<std::pair<std::string, std::string>>{
           {base, "resource_manager.max_slots_per_pod: required"},
           {base + "  max_slots_per_pod: 0\n", "resource_manager.max_slots_per_pod: must be between 1"},
           {base + "  max_slots_per_pod: 1\n  slot_type: rocm\n", "rocm slots are not supported on Kubernetes"},
           {base + "  max_slots_per_pod: 1\n  slot_type: tpu\n", "must be cuda or cpu, got \"tpu\""},
           {base + "  max_slots_per_pod: 1\n  slot_type: cpu\n", "slot_resource_requests.cpu: must be > 0"},
           {base + "  max_slots_per_pod: 1\n  namespace: a\n  default_namespace: b\n",
            "resource_manager.namespace: contradicts default_namespace"},
           {base + "  max_slots_per_pod: 1\n  client_ca: /ca\n", "resource_manager.client_ca: unknown key"},
           {base + "  max_slots_per_pod: 1\n  internal_task_gateway: {}\n", "internal_task_gateway: is not supported"},
           {"resource_manager: {type: kubernetes, max_slots_per_pod: 1}\n",
            "resource_manager.master_service_name: required unless determined_master_host"},
           {"resource_manager: {type: agent, max_slots_per_pod: 1}\n", "resource_manager.max_slots_per_pod: unknown key"},
       }) {
    std::string err = ErrorOf(yaml);
    EXPECT_NE(err.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << err;
  }
  auto cpu = Load(base + "  max_slots_per_pod: 2\n  slot_type: cpu\n  slot_resource_requests: {cpu: 0.5}\n");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->resource_manager.kubernetes->cpu_per_slot, 0.5);
}

TEST(MasterConfigTest, AdditionalResourceManagersAreKubernetesClustersWithPoolsOfTheirOwn) {
  auto c = Load(R"(
resource_pools:
  - pool_name: default
additional_resource_managers:
  - resource_manager: {type: kubernetes, cluster_name: east, max_slots_per_pod: 8, determined_master_host: m,
                       kubeconfig_path: /etc/east.yaml}
    resource_pools:
      - pool_name: east-gpus
        task_container_defaults: {gpu_pod_spec: {spec: {nodeSelector: {zone: east}}}}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->additional_resource_managers.size(), 1u);
  const AdditionalResourceManagerConfig& east = c->additional_resource_managers[0];
  EXPECT_EQ(east.resource_manager.cluster_name, "east");
  EXPECT_EQ(east.resource_manager.kubernetes->kubeconfig_path, "/etc/east.yaml");
  ASSERT_EQ(east.resource_pools.size(), 1u);
  EXPECT_EQ(east.resource_pools[0].pool_name, "east-gpus");
  ASSERT_NE(c->FindPool("east-gpus"), nullptr) << "its pools' task_container_defaults apply to their tasks";
  EXPECT_NE(c->FindPool("east-gpus")->task_container_defaults_json.find("east"), std::string::npos);

  const std::string k8s = "{type: kubernetes, cluster_name: east, max_slots_per_pod: 1, determined_master_host: m}";
  for (const auto& [yaml, want] : std::vector<std::pair<std::string, std::string>>{
           {"additional_resource_managers: {a: 1}\n", "additional_resource_managers: must be a list"},
           {"additional_resource_managers:\n  - resource_manager: {type: agent, cluster_name: x}\n",
            "additional_resource_managers[0].resource_manager.type: must be kubernetes"},
           {"additional_resource_managers:\n  - resource_manager: {type: kubernetes, max_slots_per_pod: 1, "
            "determined_master_host: m}\n",
            "additional_resource_managers[0].resource_manager.cluster_name: required"},
           {"additional_resource_managers:\n  - resource_manager: " + k8s + "\n    resource_pools: [{pool_name: default}]\n",
            "additional_resource_managers[0].resource_pools[0].pool_name: pool \"default\" is already resource manager "
            "default's"},
           {"additional_resource_managers:\n  - resource_manager: " + k8s + "\n  - resource_manager: " + k8s + "\n",
            "additional_resource_managers[1].resource_manager.cluster_name: \"east\" is another resource manager's"},
           {"additional_resource_managers:\n  - resource_manager: {type: kubernetes, cluster_name: e}\n",
            "additional_resource_managers[0].resource_manager.max_slots_per_pod: required"},
       }) {
    std::string err = ErrorOf(yaml);
    EXPECT_NE(err.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << err;
  }
}

TEST(MasterConfigTest, SlurmResourceManagerTakesUpstreamsKeysAndWarnsOfTheLaunchersOnes) {
  auto c = Load(R"(
resource_manager:
  type: slurm
  tres_supported: false
  job_storage_root: /shared/det-jobs
  user_name: det
  sudo_authorized: true
  job_project_source: label:team-
  host: launcher.example
  port: 8181
  partition_overrides:
    gpu: {slot_type: cuda, description: H200 nodes, task_container_defaults: {environment_variables: [A=1]}}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->resource_manager.slurm.has_value());
  const SlurmConfig& s = *c->resource_manager.slurm;
  EXPECT_FALSE(s.tres_supported);
  EXPECT_TRUE(s.gres_supported);
  EXPECT_EQ(s.job_storage_root, "/shared/det-jobs");
  EXPECT_EQ(s.user_name, "det");
  EXPECT_TRUE(s.sudo_authorized);
  EXPECT_EQ(s.job_project_source, "label:team-");
  ASSERT_EQ(s.partition_overrides.count("gpu"), 1u);
  EXPECT_EQ(s.partition_overrides.at("gpu").slot_type, "cuda");
  EXPECT_NE(s.partition_overrides.at("gpu").task_container_defaults_json.find("A=1"), std::string::npos);
  int launcher_warnings = 0;
  for (const std::string& w : c->warnings) launcher_warnings += w.find("without HPE's launcher") != std::string::npos;
  EXPECT_EQ(launcher_warnings, 2) << "host and port";

  for (const auto& [yaml, want] : std::vector<std::pair<std::string, std::string>>{
           {"resource_manager: {type: slurm, job_storage_root: jobs}", "job_storage_root: must be an absolute path"},
           {"resource_manager: {type: slurm, job_project_source: team}", "must be project, workspace, label"},
           {"resource_manager: {type: slurm, slot_type: tpu}", "resource_manager.slot_type: must be one of"},
           {"resource_manager: {type: slurm, max_slots_per_pod: 1}", "resource_manager.max_slots_per_pod: unknown key"},
           {"resource_manager: {type: slurm, partition_overrides: {gpu: {nodes: 2}}}",
            "resource_manager.partition_overrides.gpu.nodes: unknown key"},
       }) {
    std::string err = ErrorOf(yaml);
    EXPECT_NE(err.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << err;
  }
}

}  // namespace
}  // namespace det::config
