#include "agent/master_link.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <exception>
#include <future>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/tcp_or_tls_stream.h"
#include "common/version.h"
#include "spdlog/spdlog.h"

namespace det::agent {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
namespace ssl = asio::ssl;
using client::TcpOrTlsStream;

// One websocket connection (ws:// or wss://). Handlers hold it by shared_ptr and compare it with
// the current one, so a completion that arrives after the connection was replaced does nothing.
struct Session {
  explicit Session(asio::io_context& ioc) : ws(TcpOrTlsStream(beast::tcp_stream(ioc))) {}
  Session(asio::io_context& ioc, ssl::context& tls) : ws(TcpOrTlsStream(TcpOrTlsStream::TlsStream(ioc, tls))) {}
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(ws); }
  websocket::stream<TcpOrTlsStream> ws;
  beast::flat_buffer buffer;
  bool hello_written = false;
  bool writing = false;
};

// The most specific reason OpenSSL recorded, else the error code's message.
std::string TlsReason(const beast::error_code& ec) {
  unsigned long err = ERR_peek_last_error();
  ERR_clear_error();
  if (err == 0) return ec.message();
  char buf[256];
  ERR_error_string_n(err, buf, sizeof buf);
  return buf;
}

bool IsIpAddress(const std::string& host) {
  beast::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

struct Outgoing {
  std::shared_ptr<const std::string> text;
  std::function<void()> on_written;
};

}  // namespace

struct MasterLink::Impl {
  explicit Impl(Options opts)
      : options(std::move(opts)),
        work(asio::make_work_guard(ioc)),
        resolver(ioc),
        retry_timer(ioc),
        backoff(options.initial_backoff) {}

  // --- everything below runs on the link thread ---

  // The client TLS context, made once: verification against ca_file or the system CAs.
  bool MakeTlsContext() {
    if (tls_context) return true;
    auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    beast::error_code ec;
    if (options.skip_verify) {
      ctx->set_verify_mode(ssl::verify_none, ec);
    } else {
      ctx->set_verify_mode(ssl::verify_peer, ec);
      if (!ec && !options.ca_file.empty()) {
        ctx->load_verify_file(options.ca_file, ec);
        if (ec) {
          spdlog::error("security.tls.master_cert {}: cannot load it ({}); retrying",
                        options.ca_file, TlsReason(ec));
          return false;
        }
      } else if (!ec) {
        ctx->set_default_verify_paths(ec);
      }
    }
    if (ec) {
      spdlog::error("setting up TLS to the master: {}; retrying", TlsReason(ec));
      return false;
    }
    tls_context = std::move(ctx);
    return true;
  }

  void Connect() {
    if (stopping) return;
    ++attempts;
    if (options.tls && !MakeTlsContext()) return ScheduleReconnect();
    resolver.async_resolve(options.host, std::to_string(options.port),
                           [this](beast::error_code ec, tcp::resolver::results_type results) {
                             if (ec) return ConnectFailed("resolve", ec);
                             auto s = options.tls ? std::make_shared<Session>(ioc, *tls_context)
                                                  : std::make_shared<Session>(ioc);
                             pending = s;
                             s->lowest().expires_after(std::chrono::seconds(10));
                             s->lowest().async_connect(
                                 results, [this, s](beast::error_code ec, const tcp::endpoint&) {
                                   if (s != pending) return;
                                   if (ec) return ConnectFailed("connect", ec);
                                   // Task starts and exits go out at once, not after Nagle's wait.
                                   beast::error_code ignored;
                                   s->lowest().socket().set_option(tcp::no_delay(true), ignored);
                                   if (options.tls) return TlsHandshake(s);
                                   Handshake(s);
                                 });
                           });
  }

  void TlsHandshake(const std::shared_ptr<Session>& s) {
    auto& stream = s->ws.next_layer().tls();
    SSL* ssl = stream.native_handle();
    // SNI carries DNS names only; the name to verify is cert_name, else the host we dial.
    if (!IsIpAddress(options.host)) SSL_set_tlsext_host_name(ssl, options.host.c_str());
    if (!options.skip_verify) {
      const std::string& name = options.cert_name.empty() ? options.host : options.cert_name;
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
      if (X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) != 1) {
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
      }
    }
    stream.async_handshake(ssl::stream_base::client, [this, s](beast::error_code ec) {
      if (s != pending) return;
      if (ec) {
        last_tls_error = TlsReason(ec);
        return ConnectFailed("TLS handshake", ec);
      }
      Handshake(s);
    });
  }

  void Handshake(const std::shared_ptr<Session>& s) {
    // The websocket's own timeouts take over from the TCP stream's.
    s->lowest().expires_never();
    std::string host_header =
        (options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host) +
        ":" + std::to_string(options.port);
    websocket::stream_base::timeout timeouts;
    timeouts.handshake_timeout = std::chrono::seconds(10);
    timeouts.idle_timeout = options.idle_timeout;
    timeouts.keep_alive_pings = true;
    s->ws.set_option(timeouts);
    s->ws.set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
      req.set(beast::http::field::user_agent, absl::StrCat("determined-agent/", det::kVersion));
    }));
    s->ws.async_handshake(host_header, options.target, [this, s](beast::error_code ec) { OnHandshake(s, ec); });
  }

  void OnHandshake(const std::shared_ptr<Session>& s, beast::error_code ec) {
    if (s != pending) return;
    if (ec) return ConnectFailed("websocket handshake", ec);
    pending.reset();
    if (stopping) {
      CloseSocket(s);
      return;
    }
    session = s;
    s->ws.text(true);
    connected = true;
    backoff = options.initial_backoff;
    spdlog::info("connected to the master at {}://{}:{}{}", options.tls ? "wss" : "ws",
                 options.host, options.port, options.target);
    attempts = 0;
    try {
      hello = handler.hello ? handler.hello() : std::string();
    } catch (const std::exception& e) {
      spdlog::error("building the agent hello failed: {}", e.what());
    }
    Read(s);
    Write(s);
  }

  void ConnectFailed(const char* stage, beast::error_code ec) {
    if (pending) CloseSocket(pending);
    pending.reset();
    if (stopping) return;
    // The first failure is worth a warning; retrying forever should not flood the log.
    if (attempts == 1 || attempts % 12 == 0) {
      spdlog::warn("cannot connect to the master at {}:{} ({}: {}); retrying", options.host,
                   options.port, stage, last_tls_error.empty() ? ec.message() : last_tls_error);
    } else {
      spdlog::debug("master connection attempt {} failed ({}: {})", attempts, stage, ec.message());
    }
    last_tls_error.clear();
    ScheduleReconnect();
  }

  void ScheduleReconnect() {
    if (stopping) return;
    retry_timer.expires_after(backoff);
    backoff = std::min(backoff * 2, options.max_backoff);
    retry_timer.async_wait([this](beast::error_code ec) {
      if (!ec) Connect();
    });
  }

  void Read(const std::shared_ptr<Session>& s) {
    s->ws.async_read(s->buffer, [this, s](beast::error_code ec, std::size_t) { OnRead(s, ec); });
  }

  void OnRead(const std::shared_ptr<Session>& s, beast::error_code ec) {
    if (s != session) return;
    if (ec) return Lost(s, ec);
    std::string text = beast::buffers_to_string(s->buffer.data());
    s->buffer.consume(s->buffer.size());
    try {
      if (handler.on_message) handler.on_message(std::move(text));
    } catch (const std::exception& e) {
      spdlog::error("handling a message from the master failed: {}", e.what());
    }
    Read(s);
  }

  void Write(const std::shared_ptr<Session>& s) {
    if (s != session || s->writing) return;
    std::shared_ptr<const std::string> text;
    bool is_hello = !s->hello_written;
    if (is_hello) {
      text = std::make_shared<const std::string>(hello);
    } else if (!outbox.empty()) {
      text = outbox.front().text;
    } else {
      return;
    }
    s->writing = true;
    s->ws.async_write(asio::buffer(*text), [this, s, text, is_hello](beast::error_code ec, std::size_t) {
      OnWritten(s, is_hello, ec);
    });
  }

  void OnWritten(const std::shared_ptr<Session>& s, bool is_hello, beast::error_code ec) {
    s->writing = false;
    if (s != session) return;
    if (ec) return Lost(s, ec);
    if (is_hello) {
      s->hello_written = true;
    } else {
      std::function<void()> on_written = std::move(outbox.front().on_written);
      outbox.pop_front();
      queued.fetch_sub(1);
      if (on_written) {
        try {
          on_written();
        } catch (const std::exception& e) {
          spdlog::error("after writing to the master: {}", e.what());
        }
      }
    }
    Write(s);
  }

  void Lost(const std::shared_ptr<Session>& s, beast::error_code ec) {
    session.reset();
    connected = false;
    if (stopping) return;  // the close handshake in progress ends the socket
    CloseSocket(s);
    spdlog::warn("lost the connection to the master ({}); reconnecting, {} message(s) queued",
                 ec.message(), queued.load());
    attempts = 0;
    ScheduleReconnect();
  }

  static void CloseSocket(const std::shared_ptr<Session>& s) {
    beast::error_code ignored;
    s->lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    s->lowest().socket().close(ignored);
  }

  void BeginStop() {
    stopping = true;
    retry_timer.cancel();
    resolver.cancel();
    if (pending) CloseSocket(pending);
    pending.reset();
    if (std::shared_ptr<Session> s = session) {
      session.reset();
      connected = false;
      s->ws.async_close(websocket::close_code::going_away, [s](beast::error_code) { CloseSocket(s); });
    }
    work.reset();
  }

  Options options;
  Handler handler;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  tcp::resolver resolver;
  asio::steady_timer retry_timer;
  std::unique_ptr<ssl::context> tls_context;  // made on the first connect when options.tls
  std::string last_tls_error;                 // OpenSSL's reason for the last failed handshake
  std::chrono::milliseconds backoff;
  int attempts = 0;
  std::shared_ptr<Session> pending;  // connecting or handshaking
  std::shared_ptr<Session> session;  // open
  std::string hello;
  std::deque<Outgoing> outbox;
  bool stopping = false;

  // --- shared with other threads ---
  std::atomic<bool> connected{false};
  std::atomic<size_t> queued{0};
  std::atomic<bool> stopped{false};
  std::thread thread;
  std::promise<void> thread_done;
};

MasterLink::MasterLink(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}

MasterLink::~MasterLink() { Stop(); }

void MasterLink::Start(Handler handler) {
  impl_->handler = std::move(handler);
  impl_->thread = std::thread([impl = impl_.get()] {
    asio::post(impl->ioc, [impl] { impl->Connect(); });
    while (true) {
      try {
        impl->ioc.run();
        break;
      } catch (const std::exception& e) {
        // Callbacks catch their own errors; this is a last resort so the link keeps running.
        spdlog::error("master link: {}", e.what());
      }
    }
    impl->thread_done.set_value();
  });
}

void MasterLink::Send(std::string text, std::function<void()> on_written) {
  if (impl_->stopped) return;
  impl_->queued.fetch_add(1);
  asio::post(impl_->ioc,
             [impl = impl_.get(), text = std::make_shared<const std::string>(std::move(text)),
              on_written = std::move(on_written)]() mutable {
               impl->outbox.push_back(Outgoing{std::move(text), std::move(on_written)});
               if (impl->session) impl->Write(impl->session);
             });
}

void MasterLink::Stop(std::chrono::milliseconds flush) {
  if (impl_->stopped.exchange(true)) return;
  if (!impl_->thread.joinable()) return;
  auto deadline = std::chrono::steady_clock::now() + flush;
  while (impl_->queued.load() > 0 && impl_->connected.load() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (impl_->queued.load() > 0) {
    spdlog::warn("stopping with {} message(s) to the master unsent", impl_->queued.load());
  }
  std::future<void> done = impl_->thread_done.get_future();
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->BeginStop(); });
  // The close handshake gets a moment; a master that does not answer does not hold us up.
  if (done.wait_for(std::chrono::seconds(2)) != std::future_status::ready) impl_->ioc.stop();
  impl_->thread.join();
}

bool MasterLink::connected() const { return impl_->connected.load(); }

size_t MasterLink::queued() const { return impl_->queued.load(); }

}  // namespace det::agent
