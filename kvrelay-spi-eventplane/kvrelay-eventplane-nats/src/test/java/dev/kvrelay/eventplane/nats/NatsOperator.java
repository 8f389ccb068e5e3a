package dev.kvrelay.eventplane.nats;

import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Immutable and thread-safe: a NATS operator and one account, with their JWTs minted by jnats'
 * {@code JwtUtils} and {@code NKey}, for a nats-server in operator mode ({@code operator} JWT, {@code resolver:
 * MEMORY}, the account JWT preloaded); it issues user {@code .creds} files signed by the account.
 */
final class NatsOperator {
  private static final SecureRandom RANDOM = new SecureRandom();
  /** Account limits of -1 (unlimited): a v2 account JWT without them allows no connection at all. */
  private static final String ACCOUNT_CLAIM = "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,\"imports\":-1,"
      + "\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1},\"type\":\"account\",\"version\":2}";

  private final NKey account;
  private final String accountPublic;
  private final String operatorJwt;
  private final String accountJwt;

  private NatsOperator(NKey account, String accountPublic, String operatorJwt, String accountJwt) {
    this.account = account;
    this.accountPublic = accountPublic;
    this.operatorJwt = operatorJwt;
    this.accountJwt = accountJwt;
  }

  /** A fresh operator (self-signed JWT) and an account it signs. */
  static NatsOperator create() throws Exception {
    NKey operator = NKey.createOperator(RANDOM);
    NKey account = NKey.createAccount(RANDOM);
    String operatorPublic = new String(operator.getPublicKey());
    String accountPublic = new String(account.getPublicKey());
    long now = JwtUtils.currentTimeSeconds();
    String operatorJwt = JwtUtils.issueJWT(operator, operatorPublic, "kvrelay-test-operator", null, now,
        operatorPublic, () -> "{\"type\":\"operator\",\"version\":2}");
    String accountJwt = JwtUtils.issueJWT(operator, accountPublic, "kvrelay-test-account", null, now,
        operatorPublic, () -> ACCOUNT_CLAIM);
    return new NatsOperator(account, accountPublic, operatorJwt, accountJwt);
  }

  /** The server config lines that trust this operator and know its account (no network resolver). */
  String serverConfig() {
    return "operator: " + operatorJwt + "\nresolver: MEMORY\nresolver_preload: {\n  " + accountPublic + ": "
        + accountJwt + "\n}";
  }

  /** Writes a {@code .creds} file (user JWT signed by the account, and the user's seed) to {@code file}. */
  Path userCreds(Path file, String name) throws Exception {
    NKey user = NKey.createUser(RANDOM);
    String jwt = JwtUtils.issueUserJWT(account, accountPublic, new String(user.getPublicKey()), name);
    return write(file, jwt, new String(user.getSeed()));
  }

  /** Writes a {@code .creds} file in the format {@code nsc} generates. */
  static Path write(Path file, String jwt, String seed) throws Exception {
    Files.writeString(file, String.format(JwtUtils.NATS_USER_JWT_FORMAT, jwt, seed), StandardCharsets.US_ASCII);
    return file;
  }
}
