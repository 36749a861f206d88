#pragma once
// A SqlDatabase with one writer connection (writers one at a time), a small pool of readers and a
// fixed number of side writers, opened as they are needed. SQLite (WAL) and PostgreSQL both let
// readers run beside the writer; only PostgreSQL has side writers.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "master/db/sql/sql_connection.h"

namespace det::master {

class PooledSqlDatabase : public SqlDatabase {
 public:
  // The thread that holds the writer gets it again (a batch of writes calls the store's write
  // methods, each of which asks for the writer).
  SqlLease Writer() override {
    if (writer_holder_.load() == std::this_thread::get_id()) return SqlLease(writer_.get(), nullptr);
    writer_mu_.lock();
    writer_holder_ = std::this_thread::get_id();
    return SqlLease(writer_.get(), [this] {
      writer_holder_ = std::thread::id();
      writer_mu_.unlock();
    });
  }

  // A thread that holds the writer (a batch of writes: Store::WriteBatch) reads on it, so it sees the
  // rows its own transaction wrote; other threads read what is committed.
  SqlLease Reader() override {
    if (writer_holder_.load() == std::this_thread::get_id()) return Writer();
    std::unique_lock lock(readers_mu_);
    if (idle_readers_.empty() && static_cast<int>(readers_.size()) < max_readers_) {
      std::unique_ptr<SqlConnection> reader = OpenConnection();
      if (reader == nullptr) {  // none can be opened now: read on the writer's connection
        lock.unlock();
        return Writer();
      }
      readers_.push_back(std::move(reader));
      idle_readers_.push_back(readers_.back().get());
    }
    reader_returned_.wait(lock, [this] { return !idle_readers_.empty(); });
    SqlConnection* reader = idle_readers_.back();
    idle_readers_.pop_back();
    return SqlLease(reader, [this, reader] {
      {
        std::lock_guard returned(readers_mu_);
        idle_readers_.push_back(reader);
      }
      reader_returned_.notify_one();
    });
  }

  int SideWriters() const override { return static_cast<int>(side_writers_.size()); }

  // Opened on first use; while it cannot be opened, the writer stands in for it.
  SqlLease SideWriter(int lane) override {
    SideWriterSlot& slot = *side_writers_.at(lane);
    slot.mu.lock();
    if (slot.connection == nullptr) slot.connection = OpenConnection();
    if (slot.connection == nullptr) {
      slot.mu.unlock();
      return Writer();
    }
    return SqlLease(slot.connection.get(), [&slot] { slot.mu.unlock(); });
  }

 protected:
  PooledSqlDatabase(std::unique_ptr<SqlConnection> writer, int max_readers, int side_writers = 0)
      : max_readers_(max_readers), writer_(std::move(writer)) {
    for (int i = 0; i < side_writers; ++i) side_writers_.push_back(std::make_unique<SideWriterSlot>());
  }
  void SetWriter(std::unique_ptr<SqlConnection> writer) { writer_ = std::move(writer); }
  // A new connection for a reader or a side writer, or nullptr when none can be opened now.
  virtual std::unique_ptr<SqlConnection> OpenConnection() = 0;

 private:
  struct SideWriterSlot {
    std::mutex mu;  // held by the lease
    std::unique_ptr<SqlConnection> connection;
  };

  const int max_readers_;
  std::mutex writer_mu_;
  std::atomic<std::thread::id> writer_holder_;
  std::unique_ptr<SqlConnection> writer_;

  std::mutex readers_mu_;
  std::condition_variable reader_returned_;
  std::vector<std::unique_ptr<SqlConnection>> readers_;  // every reader opened
  std::vector<SqlConnection*> idle_readers_;

  std::vector<std::unique_ptr<SideWriterSlot>> side_writers_;
};

}  // namespace det::master
