package dev.locksmith.etcd;

import dev.locksmith.etcd.internal.EtcdGateway;
import dev.locksmith.etcd.internal.EtcdKv;
import dev.locksmith.spi.LockMode;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.fixture.ServerHandle;
import dev.locksmith.tck.fixture.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real {@code etcd} member as a child process on free loopback ports (client and peer), with its
 * data directory in a temporary folder, for these tests: the kit's {@code StoreFaults} through
 * {@link ServerProcess} (a restart runs the same command on the same data directory, so data
 * survives a {@code SIGKILL}). A missing binary fails with the install command.
 *
 * <p>{@link #start()} runs one member; {@link #cluster(int)} runs several that form one cluster. A
 * member counts as started when {@code GET /health} says {@code true}, which needs a leader.
 */
final class EtcdServer extends ServerHandle {

  private final Path dataDir;

  private EtcdServer(ServerProcess process, Path dataDir) {
    super(process);
    this.dataDir = dataDir;
  }

  /** One member, its own cluster, with {@code extraArgs} for etcd. */
  static EtcdServer start(String... extraArgs) {
    return cluster(1, extraArgs).get(0);
  }

  /** {@code size} members of one cluster, started together (each needs the others' votes). */
  static List<EtcdServer> cluster(int size, String... extraArgs) {
    String binary = ServerProcess.requireBinary("etcd", "apt-get install etcd-server");
    int[] clientPorts = new int[size];
    int[] peerPorts = new int[size];
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      clientPorts[i] = ServerProcess.freePort();
      peerPorts[i] = ServerProcess.freePort();
      peers.add("m" + i + "=http://127.0.0.1:" + peerPorts[i]);
    }
    String initialCluster = String.join(",", peers);
    String token = "locksmith-" + Long.toHexString(System.nanoTime());
    List<CompletableFuture<EtcdServer>> starting = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      int member = i;
      Path dataDir;
      try {
        dataDir = Files.createTempDirectory("locksmith-etcd-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String peer = "http://127.0.0.1:" + peerPorts[i];
      String client = "http://127.0.0.1:" + clientPorts[i];
      List<String> command =
          new ArrayList<>(
              List.of(
                  binary,
                  "--name",
                  "m" + member,
                  "--data-dir",
                  dataDir.toString(),
                  "--listen-client-urls",
                  client,
                  "--advertise-client-urls",
                  client,
                  "--listen-peer-urls",
                  peer,
                  "--initial-advertise-peer-urls",
                  peer,
                  "--initial-cluster",
                  initialCluster,
                  "--initial-cluster-token",
                  token,
                  // A single member elects itself at once; a cluster must not re-elect on every
                  // hiccup
                  // of a loaded 2-core machine. etcd's shortest lease is 1.5 election timeouts.
                  "--heartbeat-interval",
                  size == 1 ? "50" : "100",
                  "--election-timeout",
                  size == 1 ? "500" : "1000",
                  "--log-level",
                  "warn"));
      command.addAll(List.of(extraArgs));
      starting.add(
          CompletableFuture.supplyAsync(
              () ->
                  new EtcdServer(
                      ServerProcess.start(
                          "etcd-m" + member, command, clientPorts[member], EtcdServer::healthy),
                      dataDir)));
    }
    return starting.stream().map(CompletableFuture::join).collect(Collectors.toList());
  }

  /** Whether {@code GET /health} on {@code socket} answers {@code "health":"true"}. */
  static boolean healthy(Socket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(
        "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    return answer.contains("\"health\":\"true\"");
  }

  /** {@code etcd://127.0.0.1:PORT}. */
  String uri() {
    return "etcd://" + address();
  }

  /** {@code etcd://a,b,c} for every member of a cluster. */
  static String uri(List<EtcdServer> members) {
    return "etcd://" + members.stream().map(EtcdServer::address).collect(Collectors.joining(","));
  }

  /** Calls to this member, for what the tests do behind the lock clients' backs. */
  EtcdKv kv() {
    return new EtcdKv(new EtcdGateway(List.of(address()), false, Duration.ofSeconds(10), null));
  }

  /** Whether this member is its cluster's Raft leader ({@code /v3/maintenance/status}). */
  boolean isLeader() {
    com.fasterxml.jackson.databind.JsonNode status =
        kv().gateway().call("/v3/maintenance/status", EtcdGateway.object(), EtcdGateway.Retry.SAFE);
    return status.path("leader").asText().equals(status.path("header").path("member_id").asText());
  }

  /** An operator deleting a lock's key under the default key prefix with its own etcd client. */
  OutsideActor outsideActor() {
    EtcdKv kv = kv();
    return (name, mode) -> {
      if (mode != LockMode.EXCLUSIVE) {
        throw new IllegalArgumentException("etcd locks are exclusive only");
      }
      kv.delete(
          (EtcdLockStore.DEFAULT_KEY_PREFIX + "lock/" + name).getBytes(StandardCharsets.UTF_8));
    };
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      deleteTree(dataDir);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary folder left behind.
    }
  }
}
