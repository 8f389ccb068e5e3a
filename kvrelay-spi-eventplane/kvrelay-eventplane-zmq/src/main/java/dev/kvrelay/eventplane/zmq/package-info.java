/**
 * The ZMQ event plane: {@link dev.kvrelay.eventplane.zmq.ZmqEventPlaneProvider} (found through
 * {@link java.util.ServiceLoader} as {@code zmq}) opens a {@link dev.kvrelay.eventplane.zmq.ZmqEventPlane} from
 * {@link dev.kvrelay.eventplane.zmq.ZmqSettings}; every received message goes through the SPI's
 * {@code ZmqFrames.check} (runtime-inputs §5.4) and a per-publisher sequence tracker, and every drop is counted in
 * {@link dev.kvrelay.eventplane.zmq.ZmqStats}.
 */
@NullMarked
package dev.kvrelay.eventplane.zmq;

import org.jspecify.annotations.NullMarked;
