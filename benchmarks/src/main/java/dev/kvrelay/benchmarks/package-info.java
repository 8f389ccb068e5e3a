/** JMH benchmarks of the kvrelay hot paths; never run by CI. */
@NullMarked
package dev.kvrelay.benchmarks;

import org.jspecify.annotations.NullMarked;
