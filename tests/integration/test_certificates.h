// A test certificate authority and one server certificate signed by it, made at test time with
// the `openssl` command-line tool (so no key material lives in the repository).
#ifndef TESTS_INTEGRATION_TEST_CERTIFICATES_H_
#define TESTS_INTEGRATION_TEST_CERTIFICATES_H_

#include <string>
#include <vector>

namespace netstack::test {

class TestCertificates {
 public:
  // The DNS names the server certificate covers by default (besides 127.0.0.1 and ::1).
  static std::vector<std::string> DefaultNames();

  // Writes ca.pem, ca.key, server.pem, server.key (EC P-256, valid for two days) into `dir`.
  // The server certificate has subjectAltName DNS:<each of dns_names>, IP:127.0.0.1, IP:::1.
  // Returns false with *error set (openssl's stderr) on failure.
  bool Create(const std::string& dir, const std::vector<std::string>& dns_names,
              std::string* error);

  const std::string& ca_cert() const { return ca_cert_; }
  const std::string& server_cert() const { return server_cert_; }
  const std::string& server_key() const { return server_key_; }

 private:
  std::string ca_cert_;
  std::string server_cert_;
  std::string server_key_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_TEST_CERTIFICATES_H_
