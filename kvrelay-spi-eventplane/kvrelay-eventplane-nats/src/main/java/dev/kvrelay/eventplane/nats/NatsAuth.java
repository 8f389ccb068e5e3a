package dev.kvrelay.eventplane.nats;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Immutable and thread-safe: how the plane authenticates to the NATS server, chosen from the
 * {@code NATS_AUTH_*} settings in upstream's priority order (user and password, token, NKey, credentials
 * file; plugins-wire §6, runtime-inputs §9). Secrets never appear in {@code toString()}.
 */
public sealed interface NatsAuth
    permits NatsAuth.UserPassword, NatsAuth.Token, NatsAuth.NKeySeed, NatsAuth.CredentialsFile {

  /**
   * Immutable and thread-safe: {@code NATS_AUTH_USERNAME} with {@code NATS_AUTH_PASSWORD}; also upstream's
   * default ({@code user}/{@code user}) when no {@code NATS_AUTH_*} is set, which a server without
   * authorization accepts.
   *
   * @param username the user
   * @param password the password
   */
  record UserPassword(String username, String password) implements NatsAuth {
    /** Requires both. */
    public UserPassword {
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
    }

    @Override
    public String toString() {
      return "UserPassword[username=" + username + ", password=<redacted>]";
    }
  }

  /**
   * Immutable and thread-safe: {@code NATS_AUTH_TOKEN}.
   *
   * @param token the token
   */
  record Token(String token) implements NatsAuth {
    /** Requires a token. */
    public Token {
      Objects.requireNonNull(token, "token");
    }

    @Override
    public String toString() {
      return "Token[<redacted>]";
    }
  }

  /**
   * Immutable and thread-safe: {@code NATS_AUTH_NKEY}, a user NKey seed ({@code SU…}); the server's
   * nonce is signed with it.
   *
   * @param seed the seed
   */
  record NKeySeed(String seed) implements NatsAuth {
    /** Requires a seed. */
    public NKeySeed {
      Objects.requireNonNull(seed, "seed");
    }

    @Override
    public String toString() {
      return "NKeySeed[<redacted>]";
    }
  }

  /**
   * Immutable and thread-safe: {@code NATS_AUTH_CREDENTIALS_FILE}, a {@code .creds} file (user JWT and
   * NKey seed).
   *
   * @param path the file
   */
  record CredentialsFile(Path path) implements NatsAuth {
    /** Requires a path. */
    public CredentialsFile {
      Objects.requireNonNull(path, "path");
    }
  }
}
