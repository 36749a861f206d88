#pragma once
// The cluster actor under test: a real SQLite store in a temporary file, a manual loop, and agents
// whose connections record what the master sends them.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "master/cluster/cluster.h"
#include "master/db/temp_sqlite_store.h"
#include "master/http/recording_connection.h"
#include "master/manual_loop.h"

namespace det::master {

// Another writer holding the database (a slow transaction elsewhere) until destroyed.
class HeldDatabase {
 public:
  explicit HeldDatabase(SqlDatabase& db) : holder_([this, &db] {
    SqlLease busy = db.Writer();
    held_.set_value();
    release_.get_future().wait();
  }) {
    held_.get_future().wait();
  }
  ~HeldDatabase() {
    release_.set_value();
    holder_.join();
  }

 private:
  std::promise<void> held_;
  std::promise<void> release_;
  std::thread holder_;
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<Cluster>(*store_, loop_, Options());
    // Running the loop includes the cluster's writes behind it and their outcomes.
    loop_.SetSettle([this] { return cluster_ != nullptr && cluster_->WaitForWrites(); });
  }
  virtual ClusterOptions Options() { return ClusterOptions{.cluster_id = "c", .master_id = "m"}; }

  int64_t CreateExperiment(int max_restarts = 0) {
    return CreateExperimentFrom(
        "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\nhyperparameters: {lr: 0.1}\n"
        "max_restarts: " + std::to_string(max_restarts) + "\n");
  }

  int64_t CreateExperimentFrom(const std::string& yaml) {
    auto cfg = config::ParseExperimentConfig(
        yaml, {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})", .seed = 3, .name = "n"});
    EXPECT_TRUE(cfg.ok()) << cfg.status();
    NewExperiment req{.config = *cfg, .original_yaml = "", .model_definition_tgz = "", .owner_id = 2, .owner_username = "determined", .activate = true};
    absl::StatusOr<int64_t> id = absl::UnknownError("not run");
    cluster_->CreateExperiment(req, [&](absl::StatusOr<int64_t> r) { id = r; });
    loop_.RunPending();
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }

  std::shared_ptr<RecordingConnection> ConnectAgent(const std::string& id, int slots, const std::string& pool = "",
                                                    const std::string& slot_type = "cpu") {
    auto conn = std::make_shared<RecordingConnection>();
    auto handlers = cluster_->ConnectAgent({.id = id, .resource_pool = pool, .hostname = "h", .version = "v", .address = "ip-" + id}, conn);
    EXPECT_TRUE(handlers.ok());
    handlers_[id] = *handlers;
    api::AgentHello hello;
    for (int i = 0; i < slots; ++i) {
      hello.slots.push_back({i, slot_type, slot_type == "cpu" ? "cpu" : "NVIDIA H200", slot_type == "cpu" ? "" : "GPU-" + std::to_string(i)});
    }
    handlers->on_message(api::Encode(api::AgentMessage(hello)));
    loop_.RunPending();
    return conn;
  }

  // The messages of type M (StartTask, KillTask) sent on `conn`, in order.
  template <typename M>
  static std::vector<M> Sent(const RecordingConnection& conn) {
    std::vector<M> out;
    for (const std::string& text : conn.sent) {
      auto msg = api::DecodeMasterMessage(text);
      if (msg.ok() && std::holds_alternative<M>(*msg)) out.push_back(std::get<M>(*msg));
    }
    return out;
  }
  static std::vector<api::StartTask> Starts(const RecordingConnection& conn) { return Sent<api::StartTask>(conn); }
  static std::vector<api::KillTask> Kills(const RecordingConnection& conn) { return Sent<api::KillTask>(conn); }

  // The master dies: a new cluster actor over the same database, recovered.
  void RestartMaster() {
    ClusterOptions options = Options();
    options.master_id = "m2";
    cluster_ = std::make_unique<Cluster>(*store_, loop_, std::move(options));
    handlers_.clear();
    ASSERT_TRUE(cluster_->Recover().ok());
    loop_.RunPending();
  }

  // An agent connecting again with `slots` slots, still running `running`.
  std::shared_ptr<RecordingConnection> ReconnectAgent(const std::string& id, int slots,
                                                      const std::vector<std::string>& running) {
    auto conn = std::make_shared<RecordingConnection>();
    auto handlers = cluster_->ConnectAgent({.id = id, .resource_pool = "", .hostname = "h", .version = "v"}, conn);
    EXPECT_TRUE(handlers.ok());
    handlers_[id] = *handlers;
    api::AgentHello hello;
    for (int i = 0; i < slots; ++i) hello.slots.push_back({i, "cpu", "cpu"});
    hello.running_allocations = running;
    handlers->on_message(api::Encode(api::AgentMessage(hello)));
    loop_.RunPending();
    return conn;
  }

  bool Preempted(const std::string& allocation_id) {
    bool preempt = false;
    cluster_->WaitForPreemption(allocation_id, std::chrono::seconds(0), [&](absl::StatusOr<bool> p) { preempt = *p; });
    loop_.RunPending();
    return preempt;
  }

  void Exit(const std::string& agent, const std::string& allocation_id, int code = 0) {
    handlers_[agent].on_message(api::Encode(api::AgentMessage(api::TaskExited{allocation_id, code, ""})));
    loop_.RunPending();
  }

  TempSqliteStore store_{"det_cluster_test"};
  ManualLoop loop_;
  std::unique_ptr<Cluster> cluster_;  // declared last: destroyed before the loop and the store
  std::map<std::string, WebSocketHandlers> handlers_;
};

}  // namespace det::master
