package dev.kvrelay.launcher;

/**
 * Entry point of the stock relay jar. Until the launcher issue lands it runs {@link EmbeddedDemo}.
 *
 * <p>Usage: {@code java -jar kvrelay-launcher-all.jar [--dc-id NAME]}.
 */
public final class Main {
  private Main() {}

  /** Runs the embedded demo; exit status 0 on success, 2 on bad arguments, 1 on failure. */
  public static void main(String[] args) {
    String dc = "dc-local";
    for (int i = 0; i < args.length; i++) {
      if ("--dc-id".equals(args[i]) && i + 1 < args.length) {
        dc = args[++i];
      } else {
        System.err.println("usage: kvrelay [--dc-id NAME]");
        System.exit(2);
      }
    }
    try {
      new EmbeddedDemo(System.out, dc).run();
    } catch (dev.kvrelay.api.WireValidationException e) {
      System.err.println("kvrelay: " + e.getMessage());
      System.exit(2);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
