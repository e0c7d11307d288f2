// LabCa: the lab's certificate authority, made fresh for every lab with OpenSSL (no key material
// is stored anywhere else): an EC P-256 CA ("netstack lab CA") and, for every host of the site,
// a certificate whose subjectAltName is that host, signed by the CA. All hosts' certificates
// share one server key. Nothing here is secret beyond the lab's run: the CA is valid for
// kLabCaValidity only and its key stays in the work folder, which the lab removes.
#ifndef TOOLS_LAB_LAB_CA_H_
#define TOOLS_LAB_LAB_CA_H_

#include <string>
#include <vector>

#include "net/base/time.h"

namespace netstack {

// How long the CA and the hosts' certificates are valid (from an hour before they are made).
inline constexpr TimeDelta kLabCaValidity = std::chrono::hours(48);

struct LabCaFiles {
  std::string ca_cert;     // WORK/ca.pem: the CA's certificate, for the client to trust
  std::string ca_key;      // WORK/ca.key
  std::string server_key;  // WORK/server.key: the key of every host's certificate
  std::string cert_dir;    // WORK/certs: <host>.pem, the certificate of each host
  // WORK/ca.spki: one line, the base64 SHA-256 hashes of the CA's and of the server key's
  // SubjectPublicKeyInfo, comma-separated: the value of Chromium's
  // --ignore-certificate-errors-spki-list that accepts the lab's servers.
  std::string spki_file;
  std::string spki_list;  // that line's content (no newline)
};

// The path of host's certificate in cert_dir.
std::string LabHostCertPath(const LabCaFiles& files, const std::string& host);

// Makes the CA and one certificate per host in `work_dir` (which exists). Returns false with a
// one-line *error naming the step or file that failed.
bool CreateLabCa(const std::string& work_dir, const std::vector<std::string>& hosts,
                 LabCaFiles* files, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_CA_H_
