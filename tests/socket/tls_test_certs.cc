#include "tests/socket/tls_test_certs.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace netstack::test {

namespace {

EVP_PKEY* NewKey() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (!key) throw std::runtime_error("EVP_EC_gen failed");
  return key;
}

std::string ToPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(len));
  BIO_free(bio);
  return pem;
}

std::string ToPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(len));
  BIO_free(bio);
  return pem;
}

void AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) throw std::runtime_error("bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `key` named `common_name`, with a random serial and the given validity.
X509* NewCert(EVP_PKEY* key, const std::string& common_name, long not_before_s, long not_after_s) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);  // v3
  unsigned char serial[16];
  RAND_bytes(serial, sizeof(serial));
  serial[0] &= 0x7f;  // Positive.
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert), not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(cert), not_after_s);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("netstack tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  return cert;
}

}  // namespace

TestCertificateAuthority::TestCertificateAuthority(const std::string& common_name) {
  key_ = NewKey();
  cert_ = NewCert(key_, common_name, -86400, 10 * 86400);
  X509_set_issuer_name(cert_, X509_get_subject_name(cert_));
  AddExtension(cert_, cert_, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(cert_, cert_, NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(cert_, cert_, NID_subject_key_identifier, "hash");
  if (X509_sign(cert_, key_, EVP_sha256()) == 0) throw std::runtime_error("CA sign failed");
  cert_pem_ = ToPem(cert_);
}

TestCertificateAuthority::~TestCertificateAuthority() {
  X509_free(cert_);
  EVP_PKEY_free(key_);
}

TestCertificate TestCertificateAuthority::Issue(const std::string& common_name,
                                                const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ips,
                                                long not_before_s, long not_after_s) const {
  EVP_PKEY* key = NewKey();
  X509* cert = NewCert(key, common_name, not_before_s, not_after_s);
  X509_set_issuer_name(cert, X509_get_subject_name(cert_));
  AddExtension(cert, cert_, NID_basic_constraints, "critical,CA:FALSE");
  AddExtension(cert, cert_, NID_key_usage, "critical,digitalSignature");
  AddExtension(cert, cert_, NID_ext_key_usage, "serverAuth");
  AddExtension(cert, cert_, NID_authority_key_identifier, "keyid:always");
  std::string san;
  for (const auto& name : dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + name;
  for (const auto& ip : ips) san += (san.empty() ? "IP:" : ",IP:") + ip;
  if (!san.empty()) AddExtension(cert, cert_, NID_subject_alt_name, san);
  if (X509_sign(cert, key_, EVP_sha256()) == 0) throw std::runtime_error("sign failed");
  TestCertificate result{ToPem(cert), ToPem(key)};
  X509_free(cert);
  EVP_PKEY_free(key);
  return result;
}

TestPki& SharedTestPki() {
  static TestPki pki;
  return pki;
}

}  // namespace netstack::test
