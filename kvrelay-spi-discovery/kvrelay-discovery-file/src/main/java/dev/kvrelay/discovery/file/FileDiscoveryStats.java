package dev.kvrelay.discovery.file;

/**
 * Immutable and thread-safe: counters of one {@link FileDiscovery}, each since it was opened.
 *
 * @param liveRecords records currently known (valid files younger than the TTL)
 * @param badFiles files that could not be used (a file name that is no key, invalid JSON, a value that does not
 *     match its key, not a regular file, too large); each version of a bad file is counted once
 * @param readErrors files that could not be read (an I/O error other than the file having vanished; counted once
 *     until the file is readable or gone again), and bucket directories that could not be listed, created or
 *     watched
 * @param expired records removed because their file's mtime was older than the TTL
 * @param watchEvents file-system events received (before filtering out temporary files)
 * @param overflows {@code OVERFLOW} events: the event queue lost changes and a full rescan followed
 * @param rescans full rescans of every bucket directory (periodic, on overflow, and for each new watch)
 * @param listenerFailures listener callbacks that threw (the event was dropped for that listener)
 * @param watchFailures file-event watching that failed in the background: a bucket directory's watch that ended
 *     (the directory was removed; a full rescan follows and re-watches it), or the event thread stopping on an
 *     error or on its watch service closing before the backend; changes are still found by the rescans
 * @param scannerFailures scanner steps that threw (the rest of that step was dropped; the scanner goes on and
 *     the next rescan catches up)
 */
public record FileDiscoveryStats(
    long liveRecords,
    long badFiles,
    long readErrors,
    long expired,
    long watchEvents,
    long overflows,
    long rescans,
    long listenerFailures,
    long watchFailures,
    long scannerFailures) {}
