#include "tools/lab/lab_ca.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <memory>

namespace netstack {
namespace {

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter>;
using CertPtr = std::unique_ptr<X509, Deleter>;
using BioPtr = std::unique_ptr<BIO, Deleter>;

// OpenSSL's first queued error as text (and clears the queue), for messages.
std::string SslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

KeyPtr NewKey() { return KeyPtr(EVP_EC_gen("P-256")); }

// Adds extension `nid` = `value` (openssl.cnf syntax) to `cert`, issued by `issuer`.
bool AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `key` named `cn`, with a random serial and kLabCaValidity.
CertPtr NewCert(EVP_PKEY* key, const std::string& cn) {
  CertPtr cert(X509_new());
  if (!cert) return nullptr;
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return nullptr;
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  const bool serial_ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_NAME* name = X509_get_subject_name(cert.get());
  const long validity_s =
      static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(kLabCaValidity).count());
  if (!serial_ok || X509_set_version(cert.get(), 2) != 1 ||
      !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), validity_s) ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1 ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return nullptr;
  }
  return cert;
}

bool WritePem(const std::string& path, X509* cert, EVP_PKEY* key) {
  BioPtr bio(BIO_new_file(path.c_str(), "w"));
  if (!bio) return false;
  if (cert) return PEM_write_bio_X509(bio.get(), cert) == 1;
  if (::chmod(path.c_str(), 0600) != 0) return false;
  return PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
}

// base64(SHA-256(SubjectPublicKeyInfo DER)), as Chromium's SPKI lists take it.
std::string SpkiHash(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  const bool ok = EVP_Digest(der, len, digest, &digest_len, EVP_sha256(), nullptr) == 1;
  OPENSSL_free(der);
  if (!ok) return "";
  unsigned char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(b64, digest, static_cast<int>(digest_len));
  return std::string(reinterpret_cast<char*>(b64), n);
}

}  // namespace

std::string LabHostCertPath(const LabCaFiles& files, const std::string& host) {
  return files.cert_dir + "/" + host + ".pem";
}

bool CreateLabCa(const std::string& work_dir, const std::vector<std::string>& hosts,
                 LabCaFiles* files, std::string* error) {
  files->ca_cert = work_dir + "/ca.pem";
  files->ca_key = work_dir + "/ca.key";
  files->server_key = work_dir + "/server.key";
  files->cert_dir = work_dir + "/certs";
  files->spki_file = work_dir + "/ca.spki";
  auto fail = [&](const std::string& what) {
    *error = "lab CA: " + what + ": " + SslError();
    return false;
  };
  KeyPtr ca_key = NewKey();
  KeyPtr server_key = NewKey();
  if (!ca_key || !server_key) return fail("cannot make an EC P-256 key");
  CertPtr ca = NewCert(ca_key.get(), "netstack lab CA");
  if (!ca || X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) != 1 ||
      !AddExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !AddExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !AddExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash") ||
      X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) {
    return fail("cannot make the CA certificate");
  }
  if (!WritePem(files->ca_cert, ca.get(), nullptr)) return fail("cannot write " + files->ca_cert);
  if (!WritePem(files->ca_key, nullptr, ca_key.get())) return fail("cannot write " + files->ca_key);
  if (!WritePem(files->server_key, nullptr, server_key.get())) {
    return fail("cannot write " + files->server_key);
  }
  if (::mkdir(files->cert_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = "lab CA: cannot create " + files->cert_dir;
    return false;
  }
  for (const std::string& host : hosts) {
    CertPtr cert = NewCert(server_key.get(), host);
    const std::string san = "DNS:" + host;
    if (!cert || X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get())) != 1 ||
        !AddExtension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE") ||
        !AddExtension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature") ||
        !AddExtension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth") ||
        !AddExtension(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always") ||
        !AddExtension(cert.get(), ca.get(), NID_subject_alt_name, san.c_str()) ||
        X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) {
      return fail("cannot make the certificate of " + host);
    }
    const std::string path = LabHostCertPath(*files, host);
    if (!WritePem(path, cert.get(), nullptr)) return fail("cannot write " + path);
  }
  const std::string ca_hash = SpkiHash(ca_key.get());
  const std::string server_hash = SpkiHash(server_key.get());
  if (ca_hash.empty() || server_hash.empty()) return fail("cannot hash the public keys");
  files->spki_list = ca_hash + "," + server_hash;
  FILE* f = std::fopen(files->spki_file.c_str(), "w");
  const bool ok = f && std::fputs((files->spki_list + "\n").c_str(), f) >= 0;
  if (f && std::fclose(f) != 0) return fail("cannot write " + files->spki_file);
  if (!ok) {
    *error = "lab CA: cannot write " + files->spki_file;
    return false;
  }
  return true;
}

}  // namespace netstack
