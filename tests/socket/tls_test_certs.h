// Test PKI made at test time with the OpenSSL API: a CA and server certificates it signs, as
// PEM text and files in a temporary directory (tests/support/temp_dir.h). Nothing is checked in;
// every run has new keys. TestPki is the set most TLS tests use.
#ifndef TESTS_SOCKET_TLS_TEST_CERTS_H_
#define TESTS_SOCKET_TLS_TEST_CERTS_H_

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace netstack::test {

struct TestCertificate {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed CA (EC P-256) that issues server certificates.
class TestCertificateAuthority {
 public:
  explicit TestCertificateAuthority(const std::string& common_name);
  ~TestCertificateAuthority();
  TestCertificateAuthority(const TestCertificateAuthority&) = delete;
  TestCertificateAuthority& operator=(const TestCertificateAuthority&) = delete;

  const std::string& cert_pem() const { return cert_pem_; }

  // A server certificate with subjectAltName DNS `dns_names` and IP `ips`, valid from
  // now + `not_before_s` to now + `not_after_s` (seconds; negative is the past).
  TestCertificate Issue(const std::string& common_name, const std::vector<std::string>& dns_names,
                        const std::vector<std::string>& ips, long not_before_s = -3600,
                        long not_after_s = 86400) const;

 private:
  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  std::string cert_pem_;
};

// The PKI most TLS tests share: a CA that issued `leaf` (localhost, 127.0.0.1) and an unrelated
// CA, both written to files for SslConfig::ca_file.
struct TestPki {
  TestCertificateAuthority ca{"netstack test CA"};
  TestCertificateAuthority other_ca{"someone else's CA"};
  TestCertificate leaf = ca.Issue("localhost", {"localhost"}, {"127.0.0.1"});
  TempDir dir{"tls"};
  std::string ca_file = dir.Write("ca.pem", ca.cert_pem());
  std::string other_ca_file = dir.Write("other.pem", other_ca.cert_pem());
};

// One TestPki per test program, made on first use (key generation is the slow part).
TestPki& SharedTestPki();

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TLS_TEST_CERTS_H_
