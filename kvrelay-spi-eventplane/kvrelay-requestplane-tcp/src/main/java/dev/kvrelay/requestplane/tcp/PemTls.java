package dev.kvrelay.requestplane.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Stateless and thread-safe: builds the response listener's TLS context from the PEM files named by
 * {@code DYN_TCP_TLS_*} (plugins-wire §1.2 step 1) with the JDK's own X.509 and PKCS#8 parsers.
 */
final class PemTls {
  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private PemTls() {}

  /**
   * The server context for {@code files}.
   *
   * @throws IllegalArgumentException naming the file when one cannot be read or parsed (only PKCS#8
   *     {@code BEGIN PRIVATE KEY} keys of RSA, EC or Ed25519 are accepted)
   */
  static SSLContext serverContext(TcpRequestPlaneConfig.TlsFiles files) {
    try {
      List<Certificate> chain = certificates(files.certificate());
      PrivateKey key = privateKey(files.privateKey());
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      char[] pw = new char[0];
      ks.setKeyEntry("listener", key, pw, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pw);
      TrustManagerFactory tmf = null;
      if (files.clientCa().isPresent()) {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        int i = 0;
        for (Certificate c : certificates(files.clientCa().get())) {
          ts.setCertificateEntry("ca" + i++, c);
        }
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("DYN_TCP_TLS_* material is unusable: " + e.getMessage(), e);
    }
  }

  /** Requires client certificates on {@code socket} when {@code files} name a client CA (mTLS). */
  static void configure(SSLServerSocket socket, TcpRequestPlaneConfig.TlsFiles files) {
    socket.setNeedClientAuth(files.clientCa().isPresent());
  }

  private static List<Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IllegalArgumentException(pem + " holds no certificate");
      }
      return new ArrayList<>(certs);
    }
  }

  private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
    Matcher m = PKCS8.matcher(Files.readString(pem, StandardCharsets.US_ASCII));
    if (!m.find()) {
      throw new IllegalArgumentException(pem + " holds no PKCS#8 'BEGIN PRIVATE KEY' block");
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
    GeneralSecurityException last = null;
    for (String alg : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new IllegalArgumentException(pem + " is not an RSA, EC or Ed25519 PKCS#8 key", last);
  }
}
