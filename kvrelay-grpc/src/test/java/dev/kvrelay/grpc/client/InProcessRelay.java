package dev.kvrelay.grpc.client;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** Not thread-safe: confined to the test thread. An in-process server for one service, a channel and a client. */
final class InProcessRelay implements AutoCloseable {
  final Server server;
  final ManagedChannel channel;
  final RelayGrpcClient client;

  InProcessRelay(BindableService service) {
    this(service, RelayGrpcClient.builder());
  }

  InProcessRelay(BindableService service, RelayGrpcClient.Builder builder) {
    String name = InProcessServerBuilder.generateName();
    try {
      server = InProcessServerBuilder.forName(name).addService(service).build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    channel = InProcessChannelBuilder.forName(name).build();
    client = builder.channel(channel).build();
  }

  @Override
  public void close() throws InterruptedException {
    client.close();
    channel.shutdownNow();
    server.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
