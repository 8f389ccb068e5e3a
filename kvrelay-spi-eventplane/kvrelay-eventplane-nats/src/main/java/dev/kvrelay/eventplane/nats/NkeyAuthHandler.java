package dev.kvrelay.eventplane.nats;

import io.nats.client.AuthHandler;
import io.nats.client.NKey;
import java.io.IOException;
import java.security.GeneralSecurityException;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: signs the server's nonce with a user NKey seed ({@code NATS_AUTH_NKEY}); no
 * JWT.
 */
final class NkeyAuthHandler implements AuthHandler {
  private final char[] seed;

  NkeyAuthHandler(String seed) {
    this.seed = seed.toCharArray();
  }

  @Override
  public byte[] sign(byte[] nonce) {
    try {
      return NKey.fromSeed(seed.clone()).sign(nonce);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot sign the NATS nonce with NATS_AUTH_NKEY: " + e.getMessage(), e);
    }
  }

  @Override
  public char[] getID() {
    try {
      return NKey.fromSeed(seed.clone()).getPublicKey();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot derive the public key of NATS_AUTH_NKEY: " + e.getMessage(), e);
    }
  }

  @Override
  public char @Nullable [] getJWT() {
    return null;
  }
}
