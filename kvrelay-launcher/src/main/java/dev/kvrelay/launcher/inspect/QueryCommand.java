package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.hashing.BlockHashSalt;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Not thread-safe: confined to the thread running the command line. {@code kvrelay inspect query}: installs the
 * pool's validated snapshot and answers the prefix depth its filter holds for a token sequence, hashed per the
 * pool's query semantics; with {@code --lora} the pool is one that registers that LoRA adapter and the blocks are
 * salted with the registration's canonical adapter, never an alias (runtime-inputs §7.1).
 */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = "Install the pool's snapshot and answer the prefix depth in blocks of a token sequence, "
        + "hashed per the pool's query semantics: block size and hash format.")
final class QueryCommand extends PoolCommandBase {
  /** Separates the ids of a {@code --text-file}. */
  private static final Pattern TOKEN_SEPARATORS = Pattern.compile("[,\\s]+");

  @Option(names = "--tokens", split = ",", paramLabel = "ID", description = "Token ids, comma separated.")
  int @Nullable [] tokens;

  @Option(names = "--text-file", paramLabel = "FILE",
      description = "A file of token ids separated by commas or white space.")
  @Nullable Path textFile;

  @Option(names = "--lora", paramLabel = "ADAPTER",
      description = "Ask as a request of this LoRA adapter (its served name, an alias or the adapter id): the pool "
          + "registering it (default: the first such pool), blocks salted with its canonical adapter.")
  @Nullable String lora;

  @Option(names = "--seconds", defaultValue = "15", paramLabel = "N",
      description = "Wait at most N seconds for the snapshot.")
  double seconds = 15;

  @Spec
  @Nullable CommandSpec self;

  @Override
  public Integer call() throws Exception {
    int[] ids = readTokens();
    try (Connected c = connect()) {
      KvPoolDescriptor pool;
      String adapterName = lora;
      try {
        pool = adapterName == null ? pick(c.client())
            : pick(c.client(), d -> adapter(d, adapterName) != null, " registering LoRA adapter " + adapterName);
      } catch (RelayException e) {
        return connection.fail("WatchKvPoolCatalog", e);
      }
      if (pool == null) {
        return InspectCommand.CALL_FAILED;
      }
      PoolSession s;
      try {
        s = follow(c.client(), pool, seconds, true, false);
      } catch (RelayException e) {
        return connection.fail("SubscribeKvPool", e);
      }
      if (s == null) {
        return InspectCommand.CALL_FAILED;
      }
      if (s.violation() != null) {
        return invalid(s);
      }
      ModelRegistration registration = lora == null ? null : Objects.requireNonNull(adapter(pool, lora));
      String salt = registration == null ? null : ((ModelTarget.Lora) registration.target()).adapter();
      TokenBlockHasher hasher;
      try {
        hasher = TokenBlockHasher.create(pool.querySemantics().hashFormat(), pool.querySemantics().kvBlockSize(),
            salt == null ? BlockHashSalt.NONE : BlockHashSalt.of(salt, ""));
      } catch (HashingInputException e) {
        throw new IllegalStateException("validated query semantics refused: " + e.getMessage(), e);
      }
      long[] hashes = hasher.sequenceHashes(ids);
      int depth = s.prefixDepth(hashes);
      List<Map.Entry<String, Object>> rows = new ArrayList<>();
      rows.add(Map.entry("pool", pool.servingEndpoint().dottedName()));
      if (registration != null) {
        rows.add(Map.entry("model", registration.canonicalModelId()));
        rows.add(Map.entry("lora", salt));
      }
      rows.add(Map.entry("sequence", Long.toUnsignedString(s.sequence())));
      rows.add(Map.entry("blockSize", pool.querySemantics().kvBlockSize()));
      rows.add(Map.entry("hashFormat", pool.querySemantics().hashFormat().toString()));
      rows.add(Map.entry("tokens", ids.length));
      rows.add(Map.entry("requestBlocks", hashes.length));
      rows.add(Map.entry("prefixBlocks", depth));
      rows.add(Map.entry("prefixTokens", (long) Math.max(depth, 0) * pool.querySemantics().kvBlockSize()));
      Report.print(connection, rows);
      return InspectCommand.OK;
    }
  }

  /** The pool's LoRA registration whose served name, alias or canonical adapter is {@code name}, or null. */
  static @Nullable ModelRegistration adapter(KvPoolDescriptor pool, String name) {
    for (ModelRegistration r : pool.registrations()) {
      if (r.target() instanceof ModelTarget.Lora l
          && (l.adapter().equals(name) || r.canonicalModelId().equals(name) || r.aliases().contains(name))) {
        return r;
      }
    }
    return null;
  }

  private int[] readTokens() throws IOException {
    CommandLine cl = Objects.requireNonNull(self).commandLine();
    if ((tokens == null) == (textFile == null)) {
      throw new CommandLine.ParameterException(cl, "give exactly one of --tokens and --text-file");
    }
    if (tokens != null) {
      return tokens;
    }
    String text = Files.readString(Objects.requireNonNull(textFile), StandardCharsets.UTF_8).trim();
    if (text.isEmpty()) {
      return new int[0];
    }
    String[] parts = TOKEN_SEPARATORS.split(text, -1);
    int count = parts.length;
    while (count > 0 && parts[count - 1].isEmpty()) {
      count--; // trailing separators end the list; a leading one leaves an empty id, refused below
    }
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      try {
        out[i] = Integer.parseInt(parts[i]);
      } catch (NumberFormatException e) {
        throw new CommandLine.ParameterException(cl, textFile + ": not a token id: " + parts[i]);
      }
    }
    return out;
  }
}
