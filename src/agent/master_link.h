#pragma once
// The agent's websocket connection to the master (a Boost.Beast client; Beast stays inside
// master_link.cc). It connects, sends the hello, reads messages, and reconnects forever with
// backoff (initial_backoff doubling to max_backoff) when the connection cannot be made or drops.
//
// Messages passed to Send() are queued and written in order; a message stays queued until it was
// written on a connection, so nothing sent while disconnected is lost. On every new connection the
// hello goes out first, then the queue.
//
// All socket work happens on one internal thread; the handler's callbacks run there too and must
// not block for long.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace det::agent {

class MasterLink {
 public:
  struct Options {
    std::string host;  // as given to the resolver; an IPv6 literal without brackets
    int port = 8080;
    std::string target;  // request target, e.g. "/agents?id=a1&resource_pool=default"
    // wss:// instead of ws://. The master's certificate is verified against `ca_file` (PEM), or
    // the system CAs when empty, and must carry `cert_name`, or `host` when empty; `skip_verify`
    // accepts any certificate.
    bool tls = false;
    std::string ca_file;
    std::string cert_name;
    bool skip_verify = false;
    std::chrono::milliseconds initial_backoff{500};
    std::chrono::milliseconds max_backoff{5000};
    // A connection that carries nothing (not even a pong) for this long is considered dead.
    std::chrono::seconds idle_timeout{30};
  };
  struct Handler {
    // The text of the first message on each connection; called on the link thread.
    std::function<std::string()> hello;
    // A text message from the master; called on the link thread, in order.
    std::function<void(std::string text)> on_message;
  };

  explicit MasterLink(Options options);
  // Stop()s without flushing.
  ~MasterLink();
  MasterLink(const MasterLink&) = delete;
  MasterLink& operator=(const MasterLink&) = delete;

  // Starts connecting in the background. Call once. A TLS setup problem (an unreadable ca_file)
  // is logged and retried like a failed connection.
  void Start(Handler handler);
  // Queues a text message; `on_written` (if any) is called on the link thread once it was written
  // to a connection. Thread-safe, never blocks. Ignored after Stop().
  void Send(std::string text, std::function<void()> on_written = nullptr);
  // Waits up to `flush` for the queue to drain (only helps while connected), closes the connection
  // and joins the link thread. Idempotent.
  void Stop(std::chrono::milliseconds flush = std::chrono::milliseconds(0));

  bool connected() const;
  // Messages queued but not yet written (the hello not counted).
  size_t queued() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace det::agent
