package dev.kvrelay.grpc.sidecar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to one test thread. A throw-away PKI made with the {@code openssl} CLI in a directory: a
 * CA (P-256, self-signed) that signs server certificates (serverAuth, SAN {@code IP:127.0.0.1, DNS:localhost}) and
 * client certificates (clientAuth). Keys are unencrypted PKCS#8 PEM, the form netty and nginx both read.
 */
public final class TestPki {
  private final Path dir;
  private final String name;

  /** A certificate and its key, both PEM files. */
  public record Issued(Path certificate, Path privateKey) {}

  private TestPki(Path dir, String name) {
    this.dir = dir;
    this.name = name;
  }

  /** Creates the CA {@code name} in {@code dir} (files {@code <name>-ca.crt}, {@code <name>-ca.key}). */
  public static TestPki create(Path dir, String name) throws IOException, InterruptedException {
    TestPki pki = new TestPki(dir, name);
    pki.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", pki.caKey().toString(), "-out", pki.caCertificate().toString(), "-days", "2",
        "-subj", "/CN=" + name + " test CA", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    return pki;
  }

  /** The CA certificate (the trust bundle of whoever trusts this PKI). */
  public Path caCertificate() {
    return dir.resolve(name + "-ca.crt");
  }

  private Path caKey() {
    return dir.resolve(name + "-ca.key");
  }

  /** A server certificate for {@code 127.0.0.1} / {@code localhost}. */
  public Issued server(String commonName) throws IOException, InterruptedException {
    return issue(commonName, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  }

  /** A client certificate with {@code CN=commonName}. */
  public Issued client(String commonName) throws IOException, InterruptedException {
    return issue(commonName, "extendedKeyUsage=clientAuth\n");
  }

  private Issued issue(String commonName, String extensions) throws IOException, InterruptedException {
    String base = name + "-" + commonName;
    Path key = dir.resolve(base + ".key");
    Path csr = dir.resolve(base + ".csr");
    Path crt = dir.resolve(base + ".crt");
    Path ext = dir.resolve(base + ".ext");
    Files.writeString(ext, "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n" + extensions);
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(),
        "-out", csr.toString(), "-subj", "/CN=" + commonName);
    openssl("x509", "-req", "-in", csr.toString(), "-CA", caCertificate().toString(), "-CAkey", caKey().toString(),
        "-set_serial", Long.toString(System.nanoTime() & Long.MAX_VALUE), "-days", "2", "-extfile", ext.toString(),
        "-out", crt.toString());
    String pem = Files.readString(key, StandardCharsets.US_ASCII);
    if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
      throw new IllegalStateException("openssl wrote a key that is not PKCS#8: " + key);
    }
    return new Issued(crt, key);
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("openssl did not finish: " + command);
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("openssl failed (" + p.exitValue() + "): " + command + "\n"
          + Files.readString(log));
    }
  }
}
