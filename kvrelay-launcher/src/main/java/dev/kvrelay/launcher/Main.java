package dev.kvrelay.launcher;

/** Placeholder entry point until the demo lands. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("kvrelay");
  }
}
