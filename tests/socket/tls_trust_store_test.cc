// SslClientContext's deferral: the SSL_CTX and the system trust store (the CA bundle
// SSL_CERT_FILE names is checked at Create) are made only when the first TLS connection needs
// them, so a process that speaks only plain HTTP (or is answered from its cache) never pays for
// them; a CA file the user names is still loaded at Create. Certificates are made at test time; the
// environment is restored.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "net/socket/ssl_client_context.h"
#include "net/socket/tls_client_engine.h"
#include "tests/socket/tls_memory_server.h"
#include "tests/socket/tls_test_certs.h"
#include "tests/socket/tls_test_util.h"
#include "tests/socket/tls_wire.h"

namespace netstack {
namespace {

// Sets an environment variable for one scope and restores the previous value (or its absence).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Runs the handshake of `client` against `server` by moving bytes by hand.
int Handshake(TlsClientEngine& client, test::TlsMemoryServer& server) {
  return test::TlsWire{client, server}.Handshake();
}

TEST_CASE("ssl client context: SSL_CERT_FILE is parsed at the first TLS connection") {
  test::TestPki& pki = test::SharedTestPki();
  test::TempDir empty_dir;
  ScopedEnv cert_dir("SSL_CERT_DIR", empty_dir.path());
  ScopedEnv cert_file("SSL_CERT_FILE", pki.ca_file);
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig(""), &error);
  REQUIRE(context);
  CHECK(context->trust_store_deferred());
  CHECK_FALSE(context->ssl_ctx_created());

  test::TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);
  TlsClientEngine client(context.get(), "localhost", 443);
  CHECK_FALSE(context->trust_store_deferred());
  CHECK(context->ssl_ctx_created());
  CHECK(context->ssl_ctx_error() == OK);
  CHECK(context->ssl_ctx_error_detail().empty());
  REQUIRE(client.init_result() == OK);
  test::TlsMemoryServer server(server_context);
  // The bundle's CA is the only trust anchor: the handshake verifies only if it was loaded.
  CHECK(Handshake(client, server) == OK);
}

TEST_CASE("ssl client context: an SSL_CERT_FILE that is not a bundle fails the connection") {
  test::TempDir dir;
  std::string bundle = dir.Write("bundle.pem", "not a certificate\n");
  ScopedEnv cert_dir("SSL_CERT_DIR", dir.path());
  ScopedEnv cert_file("SSL_CERT_FILE", bundle);
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig(""), &error);
  REQUIRE(context);  // Readable: parsed later.
  TlsClientEngine client(context.get(), "localhost", 443);
  CHECK(client.init_result() == ERR_CERT_AUTHORITY_INVALID);
  CHECK(client.last_error_detail().find(bundle) != std::string::npos);
  CHECK(client.last_error_detail().find("cannot load the system CA store") != std::string::npos);
  CHECK(context->ssl_ctx() == nullptr);
  CHECK(client.Handshake() == ERR_CERT_AUTHORITY_INVALID);
  // Every later connection fails the same way.
  TlsClientEngine second(context.get(), "localhost", 443);
  CHECK(second.init_result() == ERR_CERT_AUTHORITY_INVALID);
}

TEST_CASE("ssl client context: an unreadable SSL_CERT_FILE is an error at Create") {
  ScopedEnv cert_file("SSL_CERT_FILE", "/nonexistent/bundle.pem");
  std::string error;
  CHECK(SslClientContext::Create(test::TestSslConfig(""), &error) == nullptr);
  CHECK(error.find("/nonexistent/bundle.pem") != std::string::npos);
}

TEST_CASE("ssl client context: no verification loads no trust store") {
  ScopedEnv cert_file("SSL_CERT_FILE", "/nonexistent/bundle.pem");
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig("", "1.3", false), &error);
  REQUIRE(context);
  CHECK_FALSE(context->trust_store_deferred());
  CHECK_FALSE(context->ssl_ctx_created());
  // The first connection makes the SSL_CTX, verifying nothing.
  test::TestPki& pki = test::SharedTestPki();
  test::TlsMemoryServerContext server_context(pki.leaf.cert_pem, pki.leaf.key_pem);
  TlsClientEngine client(context.get(), "not-the-certificate-name.test", 443);
  REQUIRE(client.init_result() == OK);
  CHECK(context->ssl_ctx_created());
  test::TlsMemoryServer server(server_context);
  CHECK(Handshake(client, server) == OK);
}

TEST_CASE("ssl client context: a named CA file is loaded at Create") {
  test::TestPki& pki = test::SharedTestPki();
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig(pki.ca_file), &error);
  REQUIRE(context);
  CHECK(context->ssl_ctx_created());
  CHECK_FALSE(context->trust_store_deferred());

  // Readable but not certificates: an error at Create, naming the file.
  test::TempDir dir;
  std::string bad = dir.Write("ca.pem", "not a certificate\n");
  CHECK(SslClientContext::Create(test::TestSslConfig(bad), &error) == nullptr);
  CHECK(error.find("cannot load CA file " + bad) != std::string::npos);
}

TEST_CASE("ssl client context: the session cache works before any SSL_CTX exists") {
  std::string error;
  auto context = SslClientContext::Create(test::TestSslConfig("", "1.3", false), &error);
  REQUIRE(context);
  CHECK(context->LookupSession("a.test:443") == nullptr);
  context->RemoveSession("a.test:443");
  context->ClearSessionCache();
  CHECK(context->session_count() == 0);
  CHECK_FALSE(context->ssl_ctx_created());
}

}  // namespace
}  // namespace netstack
