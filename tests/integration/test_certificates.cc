#include "tests/integration/test_certificates.h"

#include "tests/integration/package_installer.h"
#include "tests/integration/process_runner.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

bool Openssl(const std::string& openssl, std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), openssl);
  ProcessResult r = RunProcess(args, std::chrono::seconds(30));
  if (r.exit_code == 0) return true;
  *error = "openssl " + args[1] + " failed: " + r.Describe();
  return false;
}

}  // namespace

std::vector<std::string> TestCertificates::DefaultNames() {
  return {"localhost", "a.test", "b.test", "c.test", "d.test", "ttl.test"};
}

bool TestCertificates::Create(const std::string& dir, const std::vector<std::string>& dns_names,
                              std::string* error) {
  std::string openssl = EnsureProgram("openssl", "openssl", error);
  if (openssl.empty()) return false;
  const std::string ca_key = dir + "/ca.key";
  const std::string ca = dir + "/ca.pem";
  const std::string key = dir + "/server.key";
  const std::string csr = dir + "/server.csr";
  const std::string cert = dir + "/server.pem";
  const std::string ext = dir + "/server.ext";

  std::string san;
  for (const std::string& name : dns_names) san += "DNS:" + name + ",";
  san += "IP:127.0.0.1,IP:::1";
  if (!WriteStringToFile(ext,
                         "basicConstraints=critical,CA:FALSE\n"
                         "keyUsage=critical,digitalSignature\n"
                         "extendedKeyUsage=serverAuth\n"
                         "subjectAltName=" +
                             san + "\n")) {
    *error = "cannot write " + ext;
    return false;
  }
  const std::vector<std::string> ec_key = {"-newkey", "ec", "-pkeyopt",
                                           "ec_paramgen_curve:prime256v1", "-nodes"};
  std::vector<std::string> ca_args = {"req", "-x509"};
  ca_args.insert(ca_args.end(), ec_key.begin(), ec_key.end());
  ca_args.insert(
      ca_args.end(),
      {"-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=netstack test CA", "-addext",
       "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
  if (!Openssl(openssl, ca_args, error)) return false;

  std::vector<std::string> csr_args = {"req", "-new"};
  csr_args.insert(csr_args.end(), ec_key.begin(), ec_key.end());
  csr_args.insert(csr_args.end(), {"-keyout", key, "-out", csr, "-subj", "/CN=localhost"});
  if (!Openssl(openssl, csr_args, error)) return false;

  if (!Openssl(openssl,
               {"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out",
                cert, "-days", "2", "-sha256", "-extfile", ext},
               error)) {
    return false;
  }
  ca_cert_ = ca;
  server_cert_ = cert;
  server_key_ = key;
  return true;
}

}  // namespace netstack::test
